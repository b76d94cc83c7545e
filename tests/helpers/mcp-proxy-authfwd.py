#!/usr/bin/env python3
"""mcp-proxy-authfwd: let a client that sends no token reach mcp-proxy's
HTTP endpoint (the conformance suite's server scenarios have no way to add
a header). Loopback only; each request is forwarded with Authorization:
Bearer TOKEN and the Host mcp-proxy expects; the answer (JSON or an event
stream) is streamed back as it comes.

  mcp-proxy-authfwd.py PORTFILE UPSTREAM_URL TOKEN_FILE
"""
import http.client, http.server, os, sys, urllib.parse

portfile, upstream, tokfile = sys.argv[1:4]
token = open(tokfile).read().strip()
up = urllib.parse.urlparse(upstream)

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a):
        pass
    def fwd(self):
        n = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(n) if n else None
        hdrs = {k: v for k, v in self.headers.items() if k.lower() not in ('host', 'authorization', 'origin', 'connection')}
        hdrs['Authorization'] = 'Bearer ' + token
        c = http.client.HTTPConnection(up.hostname, up.port, timeout=60)
        c.request(self.command, up.path, body=body, headers=hdrs)
        r = c.getresponse()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ('connection', 'content-length', 'transfer-encoding'):
                self.send_header(k, v)
        self.send_header('Transfer-Encoding', 'chunked')
        self.send_header('Connection', 'close')
        self.end_headers()
        while True:
            d = r.read1(65536)
            if not d:
                break
            self.wfile.write(b'%x\r\n%s\r\n' % (len(d), d)); self.wfile.flush()
        self.wfile.write(b'0\r\n\r\n'); self.wfile.flush()
        self.close_connection = True
    do_POST = do_GET = do_DELETE = fwd

s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
open(portfile + '.tmp', 'w').write(str(s.server_address[1])); os.rename(portfile + '.tmp', portfile)
s.serve_forever()
