#!/usr/bin/env python3
# fake-provider: a sign-in provider's account endpoint, for tests.
#   fake-provider.py PORTFILE LOG KEY CERT TOKENS
# HTTPS on 127.0.0.1 (an ephemeral port, written to PORTFILE) with the
# certificate CERT. TOKENS holds "TOKEN ACCOUNT" lines, read on every request.
#   GET|POST /profile    Authorization: Bearer TOKEN -> {"account":{"uuid":ACCOUNT}}
#   GET|POST /userinfo   Authorization: Bearer TOKEN -> {"sub":ACCOUNT}
#   GET|POST /keyed      X-Api-Key: TOKEN            -> {"account":{"uuid":ACCOUNT}}
#   /redirect -> 302 to /profile; /huge -> 1 MiB of JSON
# An unknown token gets 401. LOG gets one JSON line per request (method,
# path, the token it saw, the extra headers).
import http.server, json, os, ssl, sys

portfile, log, key, cert, tokens = sys.argv[1:6]


def table():
    t = {}
    with open(tokens) as f:
        for line in f:
            p = line.split()
            if len(p) == 2:
                t[p[0]] = p[1]
    return t


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self):
        n = int(self.headers.get('Content-Length') or 0)
        if n:
            self.rfile.read(n)
        auth = self.headers.get('Authorization') or ''
        tok = auth[7:] if auth.startswith('Bearer ') else None
        if self.path == '/keyed':
            tok = self.headers.get('X-Api-Key')
        with open(log, 'a') as f:
            f.write(json.dumps({'method': self.command, 'path': self.path, 'token': tok,
                                'beta': self.headers.get('anthropic-beta')}) + '\n')
        if self.path == '/redirect':
            self.send_response(302)
            self.send_header('Location', '/profile')
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        if self.path == '/huge':
            body = b'{"pad":"' + b'x' * (1 << 20) + b'"}'
        else:
            acct = table().get(tok or '')
            if acct is None:
                body = b'{"error":"invalid_token"}'
                self.send_response(401)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if self.path == '/userinfo':
                body = json.dumps({'sub': acct}).encode()
            else:
                body = json.dumps({'account': {'uuid': acct, 'email_address': 'a@example.com'}}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = answer
    do_POST = answer


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)


class S(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    # the TLS handshake in the request's own thread: one slow client never
    # holds up the others
    def finish_request(self, sock, addr):
        sock.settimeout(30)
        try:
            tls = ctx.wrap_socket(sock, server_side=True)
        except (ssl.SSLError, OSError):
            return
        self.RequestHandlerClass(tls, addr, self)


srv = S(('127.0.0.1', 0), H)
tmp = portfile + '.tmp'
with open(tmp, 'w') as f:
    f.write('%d\n' % srv.server_address[1])
os.rename(tmp, portfile)
srv.serve_forever()
