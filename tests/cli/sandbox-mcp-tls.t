#!/bin/sh
# sandbox-mcp session_fetch over HTTPS against a real TLS peer (python's ssl)
# with a test CA that only --cacert makes trusted: a listed name is fetched,
# a certificate for another name, a listed name resolving to 127.0.0.1 and
# a redirect to an unlisted host are refused; without --cacert (the system
# bundle) or with another CA nothing is fetched. The fetch refuses loopback
# by design, so the peer runs on 198.51.100.10 (TEST-NET-2) inside a
# network and mount namespace this test makes (unshare -n -m, a private
# /etc/hosts), never outside one.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
sbx_setup "$TMP/a"
C=$TMP/ca
mkdir -p "$C"
cert() {	# cert NAME SAN
	openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "/CN=$1" 2>/dev/null &&
	printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" > "$C/$1.ext" &&
	openssl x509 -req -in "$C/$1.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial -out "$C/$1.pem" \
		-days 2 -extfile "$C/$1.ext" 2>/dev/null
}
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 -subj /CN=corral-test-ca 2>/dev/null &&
	cert srv DNS:www.good.test,DNS:loop.good.test && cert wrong DNS:wrong.test &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/other.key" -out "$C/other.pem" -days 2 -subj /CN=other-ca 2>/dev/null
status_ok $? 'a test CA, a server certificate and one for another name, made with openssl'

# --cacert names a file, checked at start
run "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" --cacert "$TMP/none.pem" </dev/null
is "$rc:$err" "2:sandbox-mcp: fatal: unable to open --cacert $TMP/none.pem: No such file or directory" '--cacert: a missing file refused at start'
run "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" --cacert "$C" </dev/null
is "$rc:$err" "2:sandbox-mcp: fatal: --cacert $C: not a regular file" '--cacert: a directory refused'

if ! is_root; then
	diag "not root: the network namespace part needs unshare -n (run the suite as root)"
	status_ok 1 'network namespace tests need root'
	done_testing; exit
fi
echo '{"domain_allowlist": ["*.good.test"]}' > "$SBX_CFG"
sbx create_session
is "$iserr" false 'a session to fetch into'
cat > "$TMP/srv.py" <<'PY'
import http.server, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        routes = {"/redir-evil": "https://evil.example/", "/redir-ok": "/hello",
                  "/redir-loop": "https://loop.good.test:8443/"}
        if self.path in routes:
            # a length, as servers send: without one the body ends at a close
            # without close_notify, which BearSSL rightly calls truncation
            self.send_response(302); self.send_header("Location", routes[self.path])
            self.send_header("Content-Length", "0"); self.end_headers(); return
        body = b"tls:" + self.path.encode()
        self.send_response(200); self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("0.0.0.0", int(sys.argv[1])), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[3], sys.argv[2])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(sys.argv[4], "w").write("up\n")
s.serve_forever()
PY
cat > "$TMP/hosts" <<'H'
127.0.0.1 localhost
198.51.100.10 www.good.test other.good.test
127.0.0.1 loop.good.test
H
cat > "$TMP/calls.sh" <<'CALLS'
set -u
mount --bind "$TMP/hosts" /etc/hosts
ip link set lo up
ip addr add 198.51.100.10/32 dev lo
/usr/bin/python3 "$TMP/srv.py" 8443 "$C/srv.key" "$C/srv.pem" "$TMP/up1" 2>/dev/null &
/usr/bin/python3 "$TMP/srv.py" 8444 "$C/wrong.key" "$C/wrong.pem" "$TMP/up2" 2>/dev/null &
while [ ! -s "$TMP/up1" ] || [ ! -s "$TMP/up2" ]; do sleep 0.05; done
call() {	# call URL [SERVER OPTION...]
	u=$1; shift
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"%s","inline":true}}}\n' "$SBX_INIT" "$SBX_CUR" "$u" |
		env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" "$@" | tail -n1
}
call https://www.good.test:8443/hello --cacert "$C/ca.pem"
call https://www.good.test:8443/redir-ok --cacert "$C/ca.pem"
call https://other.good.test:8444/ --cacert "$C/ca.pem"
call https://loop.good.test:8443/ --cacert "$C/ca.pem"
call https://www.good.test:8443/redir-loop --cacert "$C/ca.pem"
call https://www.good.test:8443/redir-evil --cacert "$C/ca.pem"
call https://www.good.test:8443/hello
call https://www.good.test:8443/hello --cacert "$C/other.pem"
for u in https://loop.good.test:8443/c https://www.good.test:8443/c; do
	/usr/bin/python3 -c "import ssl,sys,urllib.request; print(urllib.request.urlopen(sys.argv[1], context=ssl.create_default_context(cafile=sys.argv[2])).read().decode())" "$u" "$C/ca.pem"
done
CALLS
export TMP C SBX SBX_INIT SBX_HOME SBX_STORE SBX_CFG SBX_CUR
# a pid namespace of its own too: when its first process ends, the kernel
# ends the servers in it (jobs -p in a command substitution saw none, and
# every run left them listening); --kill-child does the same if unshare goes
unshare -n -m -p -f --kill-child --mount-proc sh -c '. "$TMP/calls.sh"' > "$TMP/ns.out" 2>"$TMP/ns.err"
R() { sed -n "$1p" "$TMP/ns.out" | jq -r "$2"; }
is "$(R 1 .result.structuredContent.body):$(R 1 .result.structuredContent.status)" "tls:/hello:200" 'netns: a listed name over HTTPS, verified with the test CA: the body returned'
is "$(R 2 .result.structuredContent.body):$(R 2 '.result.structuredContent.redirects[0]')" "tls:/hello:https://www.good.test:8443/hello" 'netns: an HTTPS redirect to a listed host, followed'
like "$(R 3 .result.isError):$(R 3 .result.content[0].text)" '^true:.*other\.good\.test:8444/: SSL peer certificate or SSH remote key was not OK$' 'netns: a certificate for another name refused'
like "$(R 4 .result.content[0].text)" 'loop\.good\.test:8443/: the host resolved to a loopback.*refused' 'netns: a listed name resolving to 127.0.0.1 refused'
like "$(R 5 .result.content[0].text)" 'loop\.good\.test:8443/: the host resolved to a loopback.*refused' 'netns: a redirect to a listed name resolving to 127.0.0.1 refused'
like "$(R 6 .result.content[0].text)" 'a redirect to evil\.example is not on domain_allowlist: refused' 'netns: a redirect to an unlisted host refused'
like "$(R 7 .result.isError):$(R 7 .result.content[0].text)" '^true:.*www\.good\.test:8443/hello: SSL peer certificate or SSH remote key was not OK$' 'netns: without --cacert (the system bundle) the test CA is not trusted'
like "$(R 8 .result.isError):$(R 8 .result.content[0].text)" '^true:.*: SSL peer certificate or SSH remote key was not OK$' 'netns: another CA: refused'
is "$(sed -n '9,10p' "$TMP/ns.out" | tr '\n' ' ')" "tls:/c tls:/c " 'netns: control: the loopback and the public listener answer a direct verified request'
unlike "$(cat "$TMP/ns.err")" 'Traceback' 'netns: the peers ran'
done_testing
