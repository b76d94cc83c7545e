#!/bin/sh
# sandbox-mcp session_fetch: domain_allowlist (wildcards), every redirect
# checked again, the address checked after resolution (loopback, private,
# metadata refused), bounds, save_to like any path. Addresses other than
# loopback only inside a network and mount namespace this test makes
# (unshare -n -m, a private /etc/hosts).
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
sbx_setup "$TMP/a"
sbx create_session
W=$SBX_STORE/sessions/$(j .session_id)/workspace
cat > "$TMP/srv.py" <<'PY'
import http.server, os, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/short":
            # announces 1000 bytes, sends 10, then nothing
            self.send_response(200); self.send_header("Content-Length", "1000"); self.end_headers()
            self.wfile.write(b"0123456789"); self.wfile.flush()
            open(os.environ["TMP"] + "/short-seen", "w").close()
            time.sleep(120); return
        routes = {"/redir-evil": "http://evil.example/", "/redir-loop": "http://loop.good.test:8080/",
                  "/redir-ok": "/hello", "/redir-meta": "http://meta.good.test:8080/"}
        if self.path in routes:
            self.send_response(302); self.send_header("Location", routes[self.path]); self.end_headers(); return
        body = b"x" * (20 << 20) if self.path == "/big" else b"public:" + self.path.encode()
        if self.path == "/hdr":
            body = ("hdr:%s:%s" % (self.headers.get("X-Probe"), self.headers.get("X-Two"))).encode()
        self.send_response(200); self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    do_POST = do_GET
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY

# no allowlist entry: refused before any connection
echo '{"domain_allowlist": ["*.good.test", "localhost"]}' > "$SBX_CFG"
sbx session_fetch '{"url":"https://evil.example/"}'
like "$iserr:$text" 'true:.*evil\.example is not on domain_allowlist: refused' 'an unlisted host refused'
sbx session_fetch '{"url":"https://good.test/"}'
like "$text" 'good\.test is not on domain_allowlist' '*.good.test does not list good.test itself'
sbx session_fetch '{"url":"file:///etc/passwd"}'
like "$iserr:$text" 'true:.*(not a URL|only http)' 'file:// refused'
sbx session_fetch '{"url":"ftp://a.good.test/x"}'
like "$text" 'only http and https' 'ftp:// refused'
sbx session_fetch '{"url":"http://a.good.test/","headers":{"Host":"internal"}}'
like "$text" 'header Host: refused' 'a Host header refused'
sbx session_fetch '{"url":"http://a.good.test/","headers":{"X":"a\r\nInjected: 1"}}'
like "$text" 'not a valid header' 'a header with CR LF refused'
sbx session_fetch '{"url":"http://a.good.test/","headers":[{"name":"Host","value":"internal"}]}'
like "$text" 'header Host: refused' "a Host header in drun's headers array refused"
sbx session_fetch '{"url":"http://a.good.test/","headers":[{"name":"X","value":"a\r\nInjected: 1"}]}'
like "$text" 'not a valid header' 'a header with CR LF in the array refused'
sbx session_fetch '{"url":"http://a.good.test/","headers":["X: y"]}'
like "$text" 'headers\[0\] must be an object \{name, value\}' 'an array element that is not {name, value} refused'
sbx session_fetch '{"url":"http://a.good.test/","headers":[{"name":"X","value":"y","extra":1}]}'
like "$text" 'headers\[0\] must be an object \{name, value\}' 'an array element with more than name and value refused'
sbx session_fetch '{"url":"http://a.good.test/","save_to":"../x"}'
like "$text" 'component: refused' 'save_to: traversal refused'
sbx session_fetch '{"url":"http://a.good.test/","method":"CONNECT"}'
like "$text" 'method CONNECT' 'a method off the list refused'

# a listed name that resolves to loopback (on this machine: 127.0.0.1 only)
/usr/bin/python3 "$TMP/srv.py" 127.0.0.1 0 > "$TMP/port" 2>/dev/null &
spid=$!
trap 'kill $spid 2>/dev/null; rm -rf "$TMP"' EXIT
while [ ! -s "$TMP/port" ]; do sleep 0.05; done
PORT=$(cat "$TMP/port")
sbx session_fetch "{\"url\":\"http://localhost:$PORT/\"}"
like "$iserr:$text" 'true:.*loopback, private, link-local or metadata address: refused' 'a listed name resolving to loopback refused'
sbx session_fetch "{\"url\":\"http://127.0.0.1:$PORT/\"}"
like "$text" '127\.0\.0\.1 is not on domain_allowlist' 'a loopback address as host: not listed'
run /usr/bin/python3 -c "import urllib.request; print(urllib.request.urlopen('http://localhost:$PORT/x').read().decode())"
is "$out" "public:/x" 'control: the listener answers a direct request'

if ! is_root; then
	diag "not root: the network namespace part needs unshare -n (run the suite as root)"
	status_ok 1 'network namespace tests need root'
	done_testing; exit
fi
# in a network namespace: public-looking (TEST-NET-2), loopback, private
# and metadata addresses, names for them in a private /etc/hosts
cat > "$TMP/hosts" <<'H'
127.0.0.1 localhost
198.51.100.1 www.good.test
127.0.0.1 loop.good.test
169.254.169.254 meta.good.test
10.0.0.5 priv.good.test
H
cat > "$TMP/ns.sh" <<'NS'
set -eu
mount --bind "$TMP/hosts" /etc/hosts
ip link set lo up
ip addr add 198.51.100.1/32 dev lo
ip addr add 169.254.169.254/32 dev lo
ip addr add 10.0.0.5/32 dev lo
/usr/bin/python3 "$TMP/srv.py" 0.0.0.0 8080 > "$TMP/nsport" 2>/dev/null &
while [ ! -s "$TMP/nsport" ]; do sleep 0.05; done
. "$CORRAL_TOP/tests/lib/tap.sh" >/dev/null 2>&1 || true
NS
cat > "$TMP/calls.sh" <<'CALLS'
T0=$TMP	# (tap.sh, sourced by ns.sh, makes a TMP of its own)
. "$TMP/ns.sh"
f() { "$@" >/dev/null 2>&1 || true; }
for u in http://www.good.test:8080/hello http://www.good.test:8080/redir-ok http://www.good.test:8080/redir-evil \
	http://www.good.test:8080/redir-loop http://www.good.test:8080/redir-meta http://loop.good.test:8080/ \
	http://meta.good.test:8080/ http://priv.good.test:8080/ http://www.good.test:8080/big; do
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"%s"}}}\n' "$SBX_INIT" "$SBX_CUR" "$u" |
		env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1
done
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"http://www.good.test:8080/saved","save_to":"dl/page.txt"}}}\n' "$SBX_INIT" "$SBX_CUR" |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1
for h in '[{"name":"X-Probe","value":"v1"},{"name":"X-Two","value":"v2"}]' '{"X-Probe":"o1"}'; do
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"http://www.good.test:8080/hdr","headers":%s}}}\n' "$SBX_INIT" "$SBX_CUR" "$h" |
		env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1
done
# a server that announces a length and stalls: the fetch holds no lock
# while it waits (another call runs meanwhile), and it ends
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"http://www.good.test:8080/short"}}}\n' "$SBX_INIT" "$SBX_CUR" |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" > "$T0/stall.out" &
fpid=$!
i=0; while [ ! -e "$T0/short-seen" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_list","arguments":{}}}\n' "$SBX_INIT" |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1
if kill -0 $fpid 2>/dev/null; then echo '"the fetch was still waiting"'; else echo '"the fetch had ended"'; fi
wait $fpid
tail -n1 "$T0/stall.out"
for u in http://loop.good.test:8080/c http://meta.good.test:8080/c http://priv.good.test:8080/c; do
	/usr/bin/python3 -c "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())" "$u"
done
CALLS
export TMP SBX SBX_INIT SBX_HOME SBX_STORE SBX_CFG SBX_CUR CORRAL_TOP
# a pid namespace of its own too: when its first process ends, the kernel
# ends the servers in it (jobs -p in a command substitution saw none, and
# every run left them listening); --kill-child does the same if unshare goes
unshare -n -m -p -f --kill-child --mount-proc sh -c '. "$TMP/calls.sh"' > "$TMP/ns.out" 2>"$TMP/ns.err"
R() { sed -n "$1p" "$TMP/ns.out" | jq -r "$2"; }
is "$(R 1 .result.structuredContent.body)" "public:/hello" 'netns: a listed host at a public address: fetched'
is "$(R 2 .result.structuredContent.body):$(R 2 '.result.structuredContent.redirects[0]')" "public:/hello:http://www.good.test:8080/hello" 'netns: a redirect to a listed host, followed and reported'
like "$(R 3 .result.content[0].text)" 'a redirect to evil\.example is not on domain_allowlist: refused' 'netns: a redirect to an unlisted host refused'
like "$(R 4 .result.content[0].text)" 'loop\.good\.test:8080/: the host resolved to a loopback.*refused' 'netns: a redirect to a listed name resolving to loopback refused'
like "$(R 5 .result.content[0].text)" 'meta\.good\.test.*refused' 'netns: a redirect to the metadata address refused'
like "$(R 6 .result.content[0].text)" 'resolved to a loopback, private, link-local or metadata address: refused' 'netns: a listed name resolving to loopback refused'
like "$(R 7 .result.content[0].text)" 'refused' 'netns: a listed name resolving to 169.254.169.254 refused'
like "$(R 8 .result.content[0].text)" 'refused' 'netns: a listed name resolving to 10.0.0.5 refused'
like "$(R 9 .result.content[0].text)" 'larger than the bound' 'netns: a response over the size bound refused'
is "$(R 10 .result.structuredContent.saved_to):$(cat "$W/dl/page.txt")" "dl/page.txt:public:/saved" 'netns: save_to writes the workspace'
is "$(R 11 .result.structuredContent.body)" "hdr:v1:v2" "netns: drun's headers array [{name, value}] is sent"
is "$(R 12 .result.structuredContent.body)" "hdr:o1:None" 'netns: control: the headers object is sent the same way'
is "$(R 13 .result.isError)" false 'netns: another call runs while a fetch waits on a stalled server'
is "$(R 14 .)" "the fetch was still waiting" '... and the fetch was still waiting then: it held no lock'
like "$(R 15 .result.content[0].text)" 'announced 1000 bytes, sent 10, then nothing: given up' 'netns: a Content-Length never sent: the fetch ends, saying so'
is "$(sed -n '16,18p' "$TMP/ns.out" | tr '\n' ' ')" "public:/c public:/c public:/c " 'netns: control: loopback, metadata and private listeners answer a direct request'
done_testing
