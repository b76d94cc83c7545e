# http-slowloris: connections without a token against a loopback MCP
# endpoint (mcp-proxy --listen-http, sandbox-mcp --listen) that is to keep
# serving clients with one. Prints what the .t files check:
#   control, served-under-attack, evicted N, trickle-closed, served-after.
#   python3 http-slowloris.py PORT TOKEN
# The endpoint answers {"jsonrpc":"2.0","id":1,"method":"ping"}.
import socket, sys, time, select
port, token = int(sys.argv[1]), sys.argv[2]
def conn():
    s = socket.create_connection(('127.0.0.1', port)); s.settimeout(20); return s
body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
req = (b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n'
       b'Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n'
       b'Content-Length: %d\r\n\r\n' % (port, token.encode(), len(body))) + body
def served():
    s = conn(); s.sendall(req); ans = b''
    try:
        while b'"id":1' not in ans:
            d = s.recv(4096)
            if not d: break
            ans += d
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return b'"result"' in ans
# control: served with nothing in the way
print('control', served())
# 64 connections that send a request line and stop, then 64 more (reconnecting)
att = []
for _ in range(128):
    s = conn(); s.sendall(b'POST /mcp HTTP/1.1\r\n'); att.append(s)
print('served-under-attack', served())
# the attackers lost their slots: closed by the proxy (or reset)
def closed(s):
    try:
        while True:
            if not s.recv(4096): return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
print('evicted', sum(closed(s) for s in att[:64]))
# a head trickling in, a byte every 0.3 s: closed by the head deadline, not
# the 60 s idle limit
t = conn(); t.settimeout(0.3)
head = b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Pad: ' % port + b'a' * 200
gone = False
for i in range(len(head)):
    try:
        t.sendall(head[i:i + 1])
        r, _, _ = select.select([t], [], [], 0.3)
        if r and not t.recv(4096):
            gone = True; break
    except (BrokenPipeError, ConnectionResetError):
        gone = True; break
print('trickle-closed', gone, 'after-bytes', i)
print('served-after', served())
