#!/bin/sh
# mcp-proxy: MCP revision 2026-07-28. Upstream: server/discover first, the
# MCP-Protocol-Version, Mcp-Method and Mcp-Name headers derived from the body
# the proxy checked, _meta on every request, no session; a fallback to
# initialize (2025-11-25) when discover is refused. Downstream: server/discover
# answered on stdio and HTTP; Mcp-Method/Mcp-Name headers that disagree with
# the body refused with 400 and HeaderMismatch (-32020), never forwarded.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
REC=$TMP/record
DISC='{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
umask 077

# 1. a 2026-07-28 upstream, a client that initializes (2025-11-25) on stdio
FAKE_MODE=modern node "$FAKEH" "$TMP/port" "$REC" & pids="$pids $!"
port=$(waitfile "$TMP/port")
URL=http://127.0.0.1:$port/mcp
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","method":"notifications/initialized"}
send {"jsonrpc":"2.0","id":1,"method":"tools/list"}
wait 1
send {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"json","arguments":{}}}
wait 2
send {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"secret","arguments":{}}}
wait 3
send {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///caf\u00e9 menu"}}
wait 4
send {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"=?base64?abc?="}}
wait 5
send $DISC
wait "d"
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --allow-resource 'file:///caf' --allow-resource '=?base64?' --audit "$TMP/audit" --url "$URL"
printf '%s\n' "$out" > "$TMP/out"
like "$err" 'upstream speaks 2026-07-28 \(server/discover\)' 'discover: logged'
unlike "$err" 'falling back' 'no fallback against a 2026-07-28 server'
like "$out" '"id":"i","result":\{"protocolVersion":"2025-11-25","capabilities":\{"tools":\{"listChanged":true\},"resources":\{\}\},"serverInfo":\{"name":"fake-modern"' 'initialize answered from the discover result'
like "$out" '"id":1,"result":\{"resultType":"complete","tools":\[\{"name":"json"[^]]*\]' 'tools/list through 2026-07-28'
unlike "$(grep '"id":1,' "$TMP/out")" 'secret' 'tools/list still filtered'
like "$out" '"id":2,"result":\{"resultType":"complete","content":\[\{"type":"text","text":"modern json"' 'tools/call through 2026-07-28'
like "$out" '"id":3,"error":\{"code":-32602' 'refused tool: -32602'
like "$out" '"id":4,"result":.*"text":"read file:///café menu"' 'resources/read with a non-ASCII URI (base64 Mcp-Name accepted upstream)'
like "$out" '"id":5,"result":.*"text":"read =\?base64\?abc\?="' 'a URI that looks like the sentinel is encoded too'
like "$out" '"id":"d","result":\{"supportedVersions":\["2026-07-28","2025-11-25"\],"capabilities":\{"tools":\{"listChanged":true\},"resources":\{\}\},"_meta":\{"io.modelcontextprotocol/serverInfo":\{"name":"mcp-proxy"' 'server/discover answered on stdio'
unlike "$(grep '"id":"d"' "$TMP/out")" 'secret|instructions' 'discover: the upstream instructions (free text) are not passed on'
# what the upstream saw
is "$(head -1 "$REC" | grep -o 'method\\":\\"[a-z/]*')" 'method\":\"server/discover' 'the first POST is server/discover'
like "$(head -1 "$REC")" '"version":"2026-07-28","accept":"application/json, text/event-stream","mcpMethod":"server/discover","mcpName":null' 'discover: version and Mcp-Method headers'
is "$(grep -c 'initialize' "$REC")" 0 'no initialize sent to a 2026-07-28 server'
is "$(grep -c '"session":null' "$REC")" "$(grep -c '"method":"POST"' "$REC")" 'no Mcp-Session-Id on any POST'
is "$(grep -c 'notifications/initialized' "$REC")" 0 'no notifications posted (2026-07-28 defines none over HTTP)'
is "$(grep -c '"version":"2026-07-28"' "$REC")" "$(grep -c '"method":"POST"' "$REC")" 'MCP-Protocol-Version on every POST'
is "$(grep -c 'io.modelcontextprotocol/protocolVersion\\":\\"2026-07-28' "$REC")" "$(grep -c '"method":"POST"' "$REC")" '_meta protocol version in every body'
like "$(grep 'tools/list' "$REC")" '"mcpMethod":"tools/list","mcpName":null' 'tools/list: Mcp-Method, no Mcp-Name'
like "$(grep 'tools/call' "$REC")" '"mcpMethod":"tools/call","mcpName":"json"' 'tools/call: Mcp-Name is the tool'
like "$(grep 'caf' "$REC")" '"mcpName":"=\?base64\?ZmlsZTovLy9jYWbDqSBtZW51\?="' 'non-ASCII URI: base64 sentinel'
like "$(grep 'abc' "$REC")" '"mcpName":"=\?base64\?PT9iYXNlNjQ/YWJjPz0=\?="' 'sentinel-looking URI: encoded'
unlike "$(cat "$REC")" 'secret' 'the refused tool never reached the upstream'
like "$(cat "$TMP/audit")" '"tool":"secret","outcome":"denied"' 'audit: denied'

# 2. a client that never initializes (2026-07-28): discover, then a call
: > "$REC"
cat > "$TMP/s" <<EOS
send $DISC
wait "d"
send {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"json","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
wait 7
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --url "$URL"
like "$out" '"id":"d","result":\{"supportedVersions":\["2026-07-28","2025-11-25"\],"capabilities":\{"tools":\{"listChanged":true\},"resources":\{\}\}' 'no initialize: discover answered once the upstream is known'
like "$out" '"id":7,"result":\{"resultType":"complete","content":\[\{"type":"text","text":"modern json"' 'no initialize: call works'
is "$(grep -c 'io.modelcontextprotocol/protocolVersion' "$(echo "$REC")")" 2 'the client _meta kept, not duplicated'
unlike "$(cat "$REC")" 'protocolVersion\\":\\"2026-07-28\\",\\"io.modelcontextprotocol/protocolVersion' 'no duplicate _meta key'

# 3. --protocol 2026-07-28 against a 2025-11-25 server: no fallback, session up
: > "$TMP/lrec"
node "$FAKEH" "$TMP/lport" "$TMP/lrec" & pids="$pids $!"
lport=$(waitfile "$TMP/lport")
{ echo "send $INIT"; echo 'wait "i"'; echo 'send {"jsonrpc":"2.0","id":1,"method":"tools/list"}'; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --protocol 2026-07-28 --url "http://127.0.0.1:$lport/mcp"
like "$err" 'upstream does not speak 2026-07-28 \(server/discover refused\); retrying' '--protocol 2026-07-28: refusal logged, retried'
like "$out" '"id":1,"result":\{"tools":\[\]\}' '--protocol 2026-07-28: zero tools, session up'
is "$(grep -c 'initialize' "$TMP/lrec")" 0 '--protocol 2026-07-28: never initialize'
# auto against the same server: discover refused (404), then initialize
: > "$TMP/lrec"
{ echo "send $INIT"; echo 'wait "i"'; echo 'send {"jsonrpc":"2.0","id":1,"method":"tools/list"}'; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --url "http://127.0.0.1:$lport/mcp"
like "$err" 'upstream answered HTTP 404 to server/discover; falling back to initialize \(2025-11-25\)' 'auto: fallback logged'
like "$out" '"id":1,"result":\{"tools":\[\{"name":"json"' 'auto: works after the fallback'
is "$(grep '"method":"POST"' "$TMP/lrec" | head -2 | grep -o 'method\\":\\"[a-z/]*' | tr '\n' ' ')" 'method\":\"server/discover method\":\"initialize ' 'auto: discover, then initialize'
like "$(grep 'tools/list' "$TMP/lrec")" '"session":"sess-[0-9]+","version":"2025-11-25","accept":"[^"]*","mcpMethod":null,"mcpName":null' 'after the fallback: a session, 2025-11-25, no 2026 headers'
# --protocol 2025-11-25: initialize only
: > "$TMP/lrec"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --protocol 2025-11-25 --url "http://127.0.0.1:$lport/mcp"
like "$out" '"id":1,"result":\{"tools":\[\{"name":"json"' '--protocol 2025-11-25: works'
is "$(grep -c 'server/discover' "$TMP/lrec")" 0 '--protocol 2025-11-25: no discover'
run "$P" --protocol 2027-01-01 --url "$URL"
is "$rc" 2 'unknown --protocol: usage error'
like "$err" '^mcp-proxy: usage: invalid --protocol \(auto, 2026-07-28 or 2025-11-25\): 2027-01-01' 'unknown --protocol: message'
run "$P" --protocol auto -- true
is "$rc" 2 '--protocol without --url: usage error'

# 4. the HTTP endpoint: headers must match the body; a mismatch never goes on
: > "$REC"
printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt"
LT=$(cat "$TMP/lt")
"$P" --listen-http 0 --listen-token-file "$TMP/lt" -a json -a other --audit "$TMP/audit4" --url "$URL" \
	> "$TMP/url" 2>"$TMP/err4" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
EP=$(head -1 "$TMP/url")
st() { curl -s -o "$TMP/body" -w '%{http_code}' -H 'Content-Type: application/json' \
	-H 'Accept: application/json, text/event-stream' -H "Authorization: Bearer $LT" "$@" "$EP"; }
M='-H MCP-Protocol-Version:2026-07-28'
MV='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALLJ='{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"json","arguments":{},'$MV'}}'
CALLO='{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"other","arguments":{},'$MV'}}'
CALLS='{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"secret","arguments":{},'$MV'}}'
CALL0='{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"json","arguments":{}}}'
is "$(st $M -H 'Mcp-Method: server/discover' -d "$DISC")" 200 'HTTP: server/discover 200'
like "$(cat "$TMP/body")" '"id":"d","result":\{"supportedVersions":\["2026-07-28","2025-11-25"\]' 'HTTP: server/discover answered'
is "$(st $M -H 'Mcp-Method: tools/call' -H 'Mcp-Name: json' -d "$CALLJ")" 200 'matching headers: 200'
like "$(cat "$TMP/body")" '"id":11,"result":.*"text":"modern json"' 'matching headers: answered'
is "$(st $M -H 'Mcp-Method: tools/call' -H 'Mcp-Name: =?base64?anNvbg==?=' -d "$CALLJ")" 200 'base64 Mcp-Name matching: 200'
is "$(st $M -H 'Mcp-Method: tools/call' -H 'Mcp-Name: json' -d "$CALLO")" 400 'Mcp-Name says json, body calls other: 400'
like "$(cat "$TMP/body")" '^\{"jsonrpc":"2.0","id":12,"error":\{"code":-32020,"message":"Header mismatch: the Mcp-Name header does not match the body"\}\}$' 'name mismatch: HeaderMismatch -32020'
is "$(st -H 'Mcp-Name: json' -d "$CALLS")" 400 'Mcp-Name json, body calls secret (no version header): 400'
like "$(cat "$TMP/body")" '"id":13,"error":\{"code":-32020' 'secret behind a json header: -32020'
is "$(st $M -H 'Mcp-Method: tools/list' -H 'Mcp-Name: json' -d "$CALLJ")" 400 'Mcp-Method tools/list, body tools/call: 400'
like "$(cat "$TMP/body")" 'the Mcp-Method header does not match the body' 'method mismatch: said so'
is "$(st $M -H 'Mcp-Method: TOOLS/CALL' -H 'Mcp-Name: json' -d "$CALLJ")" 400 'method case differs: 400 (values are case-sensitive)'
is "$(st $M -H 'Mcp-Method: tools/call' -H 'Mcp-Name: JSON' -d "$CALLJ")" 400 'name case differs: 400'
is "$(st $M -H 'Mcp-Method: tools/call' -H 'Mcp-Name: json' -H 'Mcp-Name: other' -d "$CALLO")" 400 'two Mcp-Name headers: 400'
is "$(st $M -H 'Mcp-Method: tools/call' -d "$CALLJ")" 400 '2026-07-28 request without Mcp-Name: 400'
like "$(cat "$TMP/body")" 'the Mcp-Name header is missing' 'missing Mcp-Name: said so'
is "$(st $M -H 'Mcp-Name: json' -d "$CALLJ")" 400 '2026-07-28 request without Mcp-Method: 400'
is "$(st $M -H 'Mcp-Method: tools/list' -H 'Mcp-Name: json' -d '{"jsonrpc":"2.0","id":14,"method":"tools/list","params":{'"$MV"'}}')" 400 'Mcp-Name on a method that names nothing: 400'
is "$(st $M -H 'Mcp-Method: tools/call' -H 'Mcp-Name: =?base64?!!!?=' -d "$CALLJ")" 400 'malformed base64 Mcp-Name: 400'
is "$(st $M -H 'Mcp-Method: tools/call' -H 'Mcp-Name: json' -d "$CALL0")" 400 'MCP-Protocol-Version 2026-07-28, no version in _meta: 400'
like "$(cat "$TMP/body")" '"id":15,"error":\{"code":-32020,"message":"Header mismatch: MCP-Protocol-Version 2026-07-28 without the version in _meta"' '  said so'
is "$(st -H 'MCP-Protocol-Version: 2025-11-25' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: json' -d "$CALLJ")" 400 'MCP-Protocol-Version differs from _meta: 400'
like "$(cat "$TMP/body")" 'MCP-Protocol-Version does not match the body' '  said so'
is "$(st -d "$CALL0")" 200 'no 2026 headers (a 2025-11-25 client): 200'
kill $PX; wait $PX
is "$(grep -c '"mcpMethod":"tools/call"' "$REC")" 3 'upstream got exactly the three calls whose headers matched'
unlike "$(grep 'tools/call' "$REC")" 'other|secret' 'no mismatched call forwarded'
like "$(cat "$TMP/audit4")" '"tool":"other","outcome":"denied"' 'audit: the mismatched call is recorded as denied'

# 5. server-everything (2025-11-25 only) over Streamable HTTP: auto falls back
NM=$("$CORRAL_TOP/mk/npm" mcp @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@0.15.0 2>/dev/null)
SE=$NM/@modelcontextprotocol/server-everything/dist/index.js
sport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env -i PATH="$PATH" PORT=$sport node "$SE" streamableHttp >"$TMP/se.log" 2>&1 & pids="$pids $!"
waitfor "grep -q 'listening on port' '$TMP/se.log'"
cat > "$TMP/s" <<EOS
send $DISC
wait "d"
send {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":20,"b":22}}}
wait 2
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a get-sum --url "http://127.0.0.1:$sport/mcp"
like "$err" 'upstream answered HTTP 4[0-9][0-9] to server/discover; falling back to initialize \(2025-11-25\)' 'server-everything: discover refused, fallback logged'
like "$out" '"id":"d","result":\{"supportedVersions":\["2026-07-28","2025-11-25"\],"capabilities":\{"tools":\{"listChanged":true\}' 'server-everything: discover answered from the initialize result'
like "$out" 'The sum of 20 and 22 is 42' 'server-everything: a 2026-07-28 client calls through the fallback'
done_testing
