"""mcphttp: raw HTTP/1.1 to mcp-proxy's --listen-http endpoint, for tests.

  from mcphttp import Endpoint
  ep = Endpoint(port, token)      # token: the listen token
  ep.conn()                       # a connected socket (20 s timeout)
  ep.request(body)                # the bytes of a POST /mcp carrying body
  ep.post(body)                   # POST on a new connection; the answer up to the
                                  # first JSON-RPC id (b'' when closed first)
  ep.served()                     # True when a ping gets a result
  Endpoint.closed(s)              # True when the proxy closed s (EOF or reset)
"""
import socket

class Endpoint:
    def __init__(self, port, token):
        self.port, self.token = int(port), token.strip()

    def conn(self):
        s = socket.create_connection(('127.0.0.1', self.port))
        s.settimeout(20)
        return s

    def request(self, body):
        return (b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n'
                b'Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n'
                b'Content-Length: %d\r\n\r\n' % (self.port, self.token.encode(), len(body))) + body

    def answer(self, s, until=b'"id"'):
        d = b''
        try:
            while until not in d:
                c = s.recv(65536)
                if not c:
                    break
                d += c
        except (socket.timeout, ConnectionResetError):
            pass
        return d

    def post(self, body, until=b'"id"'):
        s = self.conn()
        s.sendall(self.request(body))
        d = self.answer(s, until)
        s.close()
        return d

    def served(self):
        return b'"result"' in self.post(b'{"jsonrpc":"2.0","id":1,"method":"ping"}', b'"id":1')

    @staticmethod
    def closed(s):
        try:
            while True:
                if not s.recv(4096):
                    return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False
