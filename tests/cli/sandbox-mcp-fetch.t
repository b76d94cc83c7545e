#!/bin/sh
# sandbox-mcp session_fetch: domain_allowlist (wildcards), every redirect
# checked again, the address checked after resolution (loopback, private,
# metadata refused), bounds, save_to like any path; drun's downloads
# folder: the page saved under downloads/HOST/PAGE/ with a manifest, an
# HTML page's assets each checked like the page (an unlisted host skipped,
# a redirect to a refused address failed, both reported; the listed ones
# saved, binary intact), never through a symlink the agent planted, no
# partial file when a bound is hit; a drun-shaped call through the SDK
# client. Addresses other than
# loopback only inside a network and mount namespace this test makes
# (unshare -n -m, a private /etc/hosts).
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"
sbx_setup "$TMP/a"
sbx create_session
W=$SBX_STORE/sessions/$(j .session_id)/workspace
cat > "$TMP/srv.py" <<'PY'
import http.server, os, sys, time
BIN = bytes(range(256)) * 3 + b"\r\n\x00end"
PAGE = (b'<html><head><link rel="stylesheet" href="css/s.css"><link rel="shortcut icon" href="/fav.ico">'
        b'<link rel="next" href="/not-an-asset.html"><script src="/js/a.js"></script><!-- <img src="/commented.png"> -->'
        b'<script>document.write("<img src=/in-script.png>")</script></head><body>'
        b'<img src="img/bin.png"><img src="/img/bin.png"><img src="http://evil.example/t.png">'
        b'<img src="/redir-asset"><img src="data:image/png;base64,AAAA"><img src="/missing.png"></body></html>')
PAGES = {"/page.html": ("text/html; charset=utf-8", PAGE), "/other.html": ("text/html", PAGE), "/css/s.css": ("text/css", b".x{color:red}"),
         "/fav.ico": ("image/x-icon", BIN[:40]), "/js/a.js": ("application/javascript", b"console.log(1)"),
         "/img/bin.png": ("image/png", BIN), "/files/data.bin": ("application/octet-stream", BIN),
         "/two-mib": ("application/octet-stream", b"y" * (2 << 20))}
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/short":
            # announces 1000 bytes, sends 10, then nothing
            self.send_response(200); self.send_header("Content-Length", "1000"); self.end_headers()
            self.wfile.write(b"0123456789"); self.wfile.flush()
            open(os.environ["TMP"] + "/short-seen", "w").close()
            time.sleep(120); return
        if self.path in PAGES:
            ct, body = PAGES[self.path]
            self.send_response(200); self.send_header("Content-Type", ct)
            self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body); return
        routes = {"/redir-evil": "http://evil.example/", "/redir-loop": "http://loop.good.test:8080/",
                  "/redir-asset": "http://loop.good.test:8080/img/x.png",
                  "/redir-ok": "/hello", "/redir-meta": "http://meta.good.test:8080/"}
        if self.path in routes:
            self.send_response(302); self.send_header("Location", routes[self.path]); self.end_headers(); return
        body = b"x" * (20 << 20) if self.path == "/big" else b"public:" + self.path.encode()
        if self.path == "/hdr":
            body = ("hdr:%s:%s" % (self.headers.get("X-Probe"), self.headers.get("X-Two"))).encode()
        if self.path == "/missing.png":
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
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
sbx session_fetch '{"url":"http://a.good.test/","crawl":true}'
like "$iserr:$text" 'takes no argument "crawl"' 'an unknown argument refused (drun has no crawl argument: an HTML page'"'"'s assets come with it)'
sbx session_fetch '{"url":"http://a.good.test/","inline":true,"save_to":"x"}'
like "$text" 'inline and save_to: the body is either returned' 'inline with save_to refused, saying why'
sbx session_fetch '{"url":"http://a.good.test/","assets":true,"save_to":"x"}'
like "$text" 'assets: a page.s assets are saved only with the page in the downloads folder \(leave out save_to\)' 'assets with save_to refused, saying what to do'
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
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"%s","inline":true}}}\n' "$SBX_INIT" "$SBX_CUR" "$u" |
		env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1
done
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"http://www.good.test:8080/saved","save_to":"dl/page.txt"}}}\n' "$SBX_INIT" "$SBX_CUR" |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1
for h in '[{"name":"X-Probe","value":"v1"},{"name":"X-Two","value":"v2"}]' '{"X-Probe":"o1"}'; do
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":{"session_id":"%s","url":"http://www.good.test:8080/hdr","inline":true,"headers":%s}}}\n' "$SBX_INIT" "$SBX_CUR" "$h" |
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
# drun's downloads folder: dl AS STORE CUR HOME SD (8 lines each, from 19)
dl() {
	as=$1 st=$2 cur=$3 h=$4 sd=$5 w=$2/sessions/$3/workspace
	call() {	# call ARGS [CONFIG]
		printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_fetch","arguments":%s}}\n' "$SBX_INIT" "$1" |
			$as env -i PATH=/usr/bin:/bin HOME="$h" "$SBX" --store "$st" --config "${2:-$h/.config/corral/sandbox-mcp.json}" | tail -n1
	}
	G=http://www.good.test:8080
	call "{\"session_id\":\"$cur\",\"url\":\"$G/page.html\",\"method\":\"GET\",\"headers\":[{\"name\":\"X-Probe\",\"value\":\"v\"}],\"description\":\"the page\"}"
	call "{\"session_id\":\"$cur\",\"url\":\"$G/files/data.bin\"}"
	ls -A "$sd/outside" | tr '\n' ' '; ls -A "$st/sessions/$cur/stage" | tr '\n' ' '; echo '"listed"'
	rm "$w/downloads/www.good.test/data"
	call "{\"session_id\":\"$cur\",\"url\":\"$G/files/data.bin\"}"
	call "{\"session_id\":\"$cur\",\"url\":\"$G/big\"}"
	call "{\"session_id\":\"$cur\",\"url\":\"$G/two-mib\"}" "$sd/cfg-small.json"
	ls -A "$st/sessions/$cur/stage" | tr '\n' ' '; echo '"listed"'
	call "{\"session_id\":\"$cur\",\"url\":\"$G/other.html\",\"assets\":false}"
	# drun's shape through the SDK client: no session_id (the connection's), description
	# shellcheck disable=SC2086
	HOME=$h node "$CLIENT" "$NM" "$T0/sdk.json" $as "$SBX" --store "$st" > "$sd/sdk.out" 2>"$sd/sdk.err"
}
dl "" "$SBX_STORE" "$SBX_CUR" "$SBX_HOME" "$SD"
dl "setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --" "$N_STORE" "$N_CUR" "$N_HOME" "$N_SD"
CALLS
# the downloads part runs the server as root and as nobody, each with its
# store; in each session the agent plants a symlink where a download will
# go, to a directory outside it could write to
R_SD=$SD R_STORE=$SBX_STORE R_CFG=$SBX_CFG R_HOME=$SBX_HOME R_CUR=$SBX_CUR
sbx_setup "$TMP/nobody"
chown -R nobody:nogroup "$TMP/nobody"
# the san build where a memory bound is RLIMIT_AS for nobody (tap.sh):
# ASan's shadow exceeds any bound, so no command could start
NM_MEM=
if san_rlimit_as as_nobody; then
	NM_MEM='"max_memory_mb": 0, '
	diag "nobody: san build, memory bound by RLIMIT_AS here: max_memory_mb 0 (ASan's shadow exceeds any bound)"
fi
echo "{$NM_MEM\"domain_allowlist\": [\"*.good.test\", \"localhost\"]}" > "$SBX_CFG"
SBX_AS=as_nobody
sbx create_session
N_SD=$SD N_STORE=$SBX_STORE N_HOME=$SBX_HOME N_CUR=$SBX_CUR
for who in root nobody; do
	if [ $who = root ]; then SBX_AS= SD=$R_SD SBX_STORE=$R_STORE SBX_CFG=$R_CFG SBX_HOME=$R_HOME SBX_CUR=$R_CUR
	else SBX_AS=as_nobody SD=$N_SD SBX_STORE=$N_STORE SBX_CFG=$N_HOME/.config/corral/sandbox-mcp.json SBX_HOME=$N_HOME SBX_CUR=$N_CUR; fi
	mkdir "$SD/outside"
	M=; [ $who = nobody ] && M=$NM_MEM
	echo "{$M\"domain_allowlist\": [\"*.good.test\", \"localhost\"], \"max_workspace_mb\": 1}" > "$SD/cfg-small.json"
	[ $who = nobody ] && chown nobody:nogroup "$SD/outside" "$SD/cfg-small.json"
	sbx session_bash "{\"command\":\"mkdir -p downloads/www.good.test && ln -s $SD/outside downloads/www.good.test/data\"}"
	is "$iserr:$(readlink "$SBX_STORE/sessions/$SBX_CUR/workspace/downloads/www.good.test/data")" "false:$SD/outside" \
		"$who: the agent planted downloads/www.good.test/data -> a directory outside"
done
SBX_AS= SD=$R_SD SBX_STORE=$R_STORE SBX_CFG=$R_CFG SBX_HOME=$R_HOME SBX_CUR=$R_CUR
cat > "$TMP/sdk.json" <<'JSON'
[{"call": "create_session", "args": {}},
 {"call": "session_fetch", "args": {"url": "http://www.good.test:8080/page.html", "method": "GET", "headers": [{"name": "Accept", "value": "text/html"}], "description": "fetch the page"}},
 {"call": "session_read_file", "args": {"path": "downloads/www.good.test/page/s.css", "description": "read"}},
 {"call": "session_read_file", "args": {"path": "downloads/www.good.test/page/manifest.json", "description": "read"}},
 {"call": "session_fetch", "args": {"url": "https://unlisted.example/", "description": "fetch"}}]
JSON
/usr/bin/python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 3 + b'\r\n\x00end')" > "$TMP/bin.expect"
export TMP SBX SBX_INIT SBX_HOME SBX_STORE SBX_CFG SBX_CUR SD CORRAL_TOP NM CLIENT N_STORE N_CUR N_HOME N_SD
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
# drun's downloads folder, the server as root, then as nobody
o=0
for who in root nobody; do
if [ $who = root ]; then SD=$R_SD SBX_STORE=$R_STORE SBX_CUR=$R_CUR; else SD=$N_SD SBX_STORE=$N_STORE SBX_CUR=$N_CUR; fi
W=$SBX_STORE/sessions/$SBX_CUR/workspace P=$W/downloads/www.good.test/page
Q() { R $(($1 + 18 + o)) "$2"; }
is "$(Q 1 .result.isError):$(Q 1 .result.structuredContent.saved_to):$(Q 1 .result.structuredContent.dir):$(Q 1 .result.structuredContent.manifest_path)" \
	"false:downloads/www.good.test/page/page.html:downloads/www.good.test/page:downloads/www.good.test/page/manifest.json" \
	"$who: netns: drun's call {url, method, headers [{name, value}], description}: saved under downloads/HOST/PAGE/ with a manifest"
is "$(Q 1 '[.result.structuredContent.assets_fetched, .result.structuredContent.assets_skipped, .result.structuredContent.assets_failed] | join(" ")')" "4 1 2" \
	"$who: netns: 4 assets fetched, 1 skipped, 2 failed (counted as drun does)"
is "$(Q 1 '[.result.structuredContent.assets[].saved_to] | join(" ")')" \
	"downloads/www.good.test/page/s.css downloads/www.good.test/page/fav.ico downloads/www.good.test/page/a.js downloads/www.good.test/page/bin.png" \
	"$who: netns: the stylesheet, the icon, the script and the image (once), in drun's order; not a rel=next link, a commented or scripted tag, a data: URL"
is "$(Q 1 '.result.structuredContent.skipped[0] | "\(.url) \(.reason)"')" "http://evil.example/t.png domain_not_allowed" \
	"$who: netns: an asset on an unlisted host: not fetched, reported skipped (domain_not_allowed)"
like "$(Q 1 '.result.structuredContent.failed[0] | "\(.url) \(.reason)"')" \
	'^http://www.good.test:8080/redir-asset http://loop.good.test:8080/img/x.png: the host resolved to a loopback, private, link-local or metadata address: refused$' \
	"$who: netns: an asset redirecting to a listed name at a loopback address: refused at connect, reported failed"
is "$(Q 1 '.result.structuredContent.failed[1] | "\(.url) \(.reason)"')" "http://www.good.test:8080/missing.png http_404" "$who: netns: an asset answering 404: reported failed (http_404)"
cmp -s "$P/bin.png" "$TMP/bin.expect"; status_ok $? "$who: netns: the image saved with its bytes intact (every byte value, CR LF, NUL)"
is "$(cat "$P/s.css"):$(cat "$P/a.js"):$(head -c 17 "$P/page.html")" '.x{color:red}:console.log(1):<html><head><link' "$who: netns: the stylesheet, the script and the page saved as sent"
is "$(jq -c '[.source_url, .saved_to, .totals.fetched, .totals.skipped, .totals.failed, .skipped[0].reason]' "$P/manifest.json")" \
	'["http://www.good.test:8080/page.html","downloads/www.good.test/page/page.html",4,1,2,"domain_not_allowed"]' "$who: netns: manifest.json as drun's"
is "$(ls "$P" | tr '\n' ' ')" "a.js bin.png fav.ico manifest.json page.html s.css " "$who: netns: nothing else in the folder"
like "$(Q 2 .result.isError):$(Q 2 .result.content[0].text)" 'true:.*downloads/www.good.test/data/data.bin: a symbolic link is on the way: refused: nothing saved$' \
	"$who: netns: a symlink the agent planted at the downloads path: refused, not followed"
is "$(Q 3 .)" 'listed' "$who: ... nothing written outside through it, no temporary left in stage/"
is "$(Q 4 .result.isError):$(Q 4 .result.structuredContent.saved_to)" "false:downloads/www.good.test/data/data.bin" "$who: netns: control: without the symlink the download lands"
cmp -s "$W/downloads/www.good.test/data/data.bin" "$TMP/bin.expect"; status_ok $? "$who: netns: ... binary content intact"
like "$(Q 5 .result.content[0].text)" 'larger than the bound' "$who: netns: a response over the size bound: refused"
is "$(ls "$W/downloads/www.good.test" | tr '\n' ' ')" "data other page " "$who: ... and no file or folder of it left"
like "$(Q 6 .result.content[0].text)" 'downloads/www.good.test/two-mib \(2097[0-9]{3} bytes in 2 files\) would take the workspace over max_workspace_mb: nothing saved$' \
	"$who: netns: a download over max_workspace_mb: refused, naming the folder"
is "$(Q 7 .):$([ -e "$W/downloads/www.good.test/two-mib" ]; echo $?)" 'listed:1' "$who: ... no partial file, no temporary in stage/"
is "$(Q 8 '[.result.structuredContent.assets_fetched, .result.structuredContent.assets_skipped, (.result.structuredContent.assets | length)] | join(" ")')" "0 0 0" \
	"$who: netns: assets false: the page alone"
S() { sed -n "$1p" "$SD/sdk.out" | jq -r "$2"; }
is "$(S 3 .isError):$(S 3 .data.saved_to):$(S 3 .data.assets_fetched)" "false:downloads/www.good.test/page/page.html:4" "$who: netns: sdk: drun's session_fetch call replayed, the page and its assets saved"
is "$(S 4 .data.content)" ".x{color:red}" "$who: netns: sdk: session_read_file reads the saved stylesheet"
is "$(S 5 .data.content | jq -c .totals)" '{"fetched":4,"skipped":1,"failed":2}' "$who: netns: sdk: and the manifest"
like "$(S 6 .isError):$(S 6 .text)" 'true:.*unlisted\.example is not on domain_allowlist' "$who: netns: sdk: an unlisted host refused"
o=$((o + 8))
done
done_testing
