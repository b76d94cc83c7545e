#!/bin/sh
# mcp-proxy downstream: a unix socket and a loopback Streamable HTTP endpoint
# (per-attempt bearer token, Host and Origin checks, 401/403/404/405), several
# clients sharing one upstream through rewritten ids.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
REC=$TMP/record
umask 077
printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt"
LT=$(cat "$TMP/lt")

# 1. unix socket, two clients with the same ids
"$P" --listen-unix "$TMP/sock" -a say -a progress --audit "$TMP/audit" -- "$FAKE" "$REC" 2>"$TMP/err1" & PX=$!; pids="$pids $PX"
waitfor '[ -S "$TMP/sock" ]'
like "$(stat -c %a "$TMP/sock")" '^[67]00$' 'socket is owner-only'
for w in alpha beta; do
	printf 'send %s\nwait "i"\nsend {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say","arguments":{"word":"%s"}}}\nwait 1\nsend {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"secret","arguments":{}}}\nwait 2\n' "$INIT" "$w" > "$TMP/s-$w"
	printf 'send {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"same"}}}\nwait 3\n' >> "$TMP/s-$w"
	python3 "$DRIVE" "$TMP/s-$w" -- socat -t 30 - "UNIX-CONNECT:$TMP/sock" > "$TMP/out-$w" &
	eval "d_$w=\$!"
done
wait $d_alpha $d_beta
like "$(grep '"id":1,' "$TMP/out-alpha")" '"text":"alpha"' 'client A gets its own answer to id 1'
like "$(grep '"id":1,' "$TMP/out-beta")" '"text":"beta"' 'client B gets its own answer to id 1'
like "$(grep '"id":2,' "$TMP/out-alpha")" '"code":-32602' 'refusal on the socket too'
is "$(grep -c '"name":"say"' "$REC")" 2 'both calls reached the one upstream'
is "$(grep -c '"progressToken":"same"' "$TMP/out-alpha")" 1 'client A: one progress notification, its own token'
is "$(grep -c '"progressToken":"same"' "$TMP/out-beta")" 1 'client B: one progress notification, its own token'
unlike "$(grep '"name":"progress"' "$REC")" '"same"' 'the upstream sees proxy tokens, not the client ones'
ids=$(grep '"name":"say"' "$REC" | sed 's/.*"id":\([0-9]*\),.*/\1/' | sort -u | wc -l)
is "$ids" 2 'under two different upstream ids'
is "$(grep -c '"method":"initialize"' "$REC")" 1 'one upstream handshake for both clients'
run "$P" --listen-unix "$TMP/sock" -- "$FAKE" "$REC"
is "$rc" 2 'socket path in use: refused'
like "$err" "^mcp-proxy: fatal: unable to listen on $TMP/sock: Address (already )?in use" 'in use: message'
kill $PX; wait $PX; st=$?
is "$st" 0 'SIGTERM: exit 0'
status_ok "$([ ! -e "$TMP/sock" ]; echo $?)" 'socket removed on exit'

# 2. loopback Streamable HTTP
node "$FAKEH" "$TMP/uport" "$TMP/urec" & pids="$pids $!"
waitfor '[ -s "$TMP/uport" ]'
printf 'upstream-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/ut"
UT=$(cat "$TMP/ut")
"$P" --listen-http 0 --listen-token-file "$TMP/lt" -a json --token-file "$TMP/ut" \
	--url "http://127.0.0.1:$(cat "$TMP/uport")/mcp" > "$TMP/url" 2>"$TMP/err2" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
URL=$(head -1 "$TMP/url")
like "$URL" '^http://127\.0\.0\.1:[0-9]+/mcp$' 'endpoint URL printed'
port=${URL#http://127.0.0.1:}; port=${port%/mcp}
like "$(ss -ltnH "sport = :$port")" "127\\.0\\.0\\.1:$port " 'bound to 127.0.0.1 only'
J='Content-Type: application/json'
A='Accept: application/json, text/event-stream'
st() { curl -s -o "$TMP/body" -D "$TMP/hdr" -w '%{http_code}' "$@"; }
is "$(st -H "$J" -H "$A" -d "$INIT" "$URL")" 401 'no token: 401'
like "$(cat "$TMP/hdr")" 'WWW-Authenticate: Bearer' '401 names the scheme'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer wrong" -d "$INIT" "$URL")" 401 'wrong token: 401'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer ${LT}x" -d "$INIT" "$URL")" 401 'token with a suffix: 401'
is "$(st -H "$J" -H "$A" -H "Authorization: Basic $LT" -d "$INIT" "$URL")" 401 'other scheme: 401'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -H 'Origin: http://evil.example' -d "$INIT" "$URL")" 403 'foreign Origin: 403'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -H 'Host: evil.example' -d "$INIT" "$URL")" 403 'foreign Host (DNS rebinding): 403'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -d "$INIT" "${URL%/mcp}/other")" 404 'other path: 404'
is "$(st -H "Authorization: Bearer $LT" "$URL")" 405 'GET (no server stream offered): 405'
like "$(cat "$TMP/hdr")" 'Allow: POST' '405 names POST'
is "$(st -X DELETE -H "Authorization: Bearer $LT" "$URL")" 405 'DELETE: 405'
is "$(st -H 'Content-Type: text/plain' -H "$A" -H "Authorization: Bearer $LT" -d "$INIT" "$URL")" 415 'not JSON: 415'
is "$(st -H "$J" -H 'Accept: application/json' -H "Authorization: Bearer $LT" -d "$INIT" "$URL")" 406 'Accept without event-stream: 406'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -H "Origin: http://127.0.0.1:$port" -d "$INIT" "$URL")" 200 'initialize with a matching Origin: 200'
like "$(cat "$TMP/hdr")" 'Content-Type: application/json' 'answered as JSON'
like "$(cat "$TMP/body")" '^\{"jsonrpc":"2.0","id":"i","result":\{.*"name":"fake-http"' 'initialize answer'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$URL")" 202 'notification: 202'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -d '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"json","arguments":{}}}' "$URL")" 200 'call: 200'
like "$(cat "$TMP/body")" '"id":5,"result":\{"content":\[\{"type":"text","text":"json ok"' 'call answered'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -d '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"secret","arguments":{}}}' "$URL")" 200 'refused call: 200 with an error'
like "$(cat "$TMP/body")" '"id":6,"error":\{"code":-32602' 'refused over HTTP'
is "$(st -H "$J" -H "$A" -H "Authorization: Bearer $LT" -d 'not json' "$URL")" 200 'malformed body answered'
like "$(cat "$TMP/body")" '"code":-32700' 'malformed body: parse error'
# the agent's credential is not forwarded: the upstream sees only its own token
like "$(grep '"json' "$TMP/urec" | head -1)" "\"authorization\":\"Bearer $UT\"" 'upstream gets the upstream token'
unlike "$(cat "$TMP/urec")" "$LT" 'the agent-side token never reaches the upstream'
unlike "$(cat "$TMP/body" "$TMP/hdr" "$TMP/err2")" "$UT|$LT" 'no token in answers or log'
kill $PX; wait $PX

# 3. a real SDK client over the HTTP endpoint, server-everything behind
NM=$("$CORRAL_TOP/mk/npm" mcp @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@0.15.0 2>/dev/null)
SE=$NM/@modelcontextprotocol/server-everything/dist/index.js
: > "$TMP/url"
"$P" --listen-http 0 --listen-token-file "$TMP/lt" -a echo -a get-sum -a trigger-long-running-operation \
	-a trigger-sampling-request -- "$(command -v node)" "$SE" stdio > "$TMP/url" 2>"$TMP/err3" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
run node "$CORRAL_TOP/tests/helpers/mcp-proxy-sdk-client.mjs" "$NM" --http "$(head -1 "$TMP/url")" "$TMP/lt"
like "$out" '"tools":\["echo","get-sum","trigger-long-running-operation","trigger-sampling-request"\]' 'sdk over HTTP: filtered tools'
like "$out" '"sum":"The sum of 2 and 3 is 5."' 'sdk over HTTP: call'
like "$out" '"refused":-32602' 'sdk over HTTP: refusal'
like "$out" '"progress":\[1,' 'sdk over HTTP: progress as SSE events'
like "$out" '"sampling":true' 'sdk over HTTP: server request on the stream, answer on a new POST'
like "$out" '"cancel":"aborted","after":"Echo: still"' 'sdk over HTTP: cancellation, still up'
kill $PX; wait $PX

# 4. usage
run "$P" --listen-http 0 -- "$FAKE" "$REC"
is "$rc" 2 '--listen-http without a token: refused'
like "$err" 'needs --listen-token-file or --listen-token-fd' 'no token: message'
chmod 0640 "$TMP/lt"
run "$P" --listen-http 0 --listen-token-file "$TMP/lt" -- "$FAKE" "$REC"
is "$rc" 2 'listen token readable by the group: refused'
done_testing
