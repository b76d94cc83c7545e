#!/bin/sh
# mcp-proxy: a 2026-07-28 client (no initialize) whose first tools/list
# comes while the upstream is still starting (a fake that answers
# initialize after 1 s) is answered with the tools once the upstream is
# ready, on stdio and over HTTP; never an empty list from an upstream not
# yet initialized. One that never finishes its handshake: a clear error at
# the call's timeout, not zero tools.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
MV='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
LIST='{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{'$MV'}}'
CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{},'$MV'}}'

# 1. stdio: tools/list, then a call, both before the upstream is ready
printf 'send %s\nsend %s\nwait 1\nwait 2\n' "$LIST" "$CALL" > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -- "$FAKE" "$TMP/rec1" slowinit
like "$out" '"id":1,"result":\{"tools":\[\{"name":"echo"' 'stdio: the first tools/list gets the tools once the upstream is ready'
unlike "$out" '"tools":\[\]' 'stdio: never an empty list'
like "$out" '"id":2,"result":\{"content":\[\{"type":"text","text":"ok"' 'stdio: the held call is answered too'
is "$(grep -o '"method":"[a-z/]*"' "$TMP/rec1" | tr '\n' ' ')" '"method":"initialize" "method":"notifications/initialized" "method":"tools/list" "method":"tools/call" ' \
	'the upstream got the handshake, then the held requests in order, each once'

# 2. HTTP: the same client over the loopback endpoint
mp_listen_token
mp_http -a echo -- "$FAKE" "$TMP/rec2" slowinit
M='-H MCP-Protocol-Version:2026-07-28'
run curl -s -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
	-H "Authorization: Bearer $LT" $M -H 'Mcp-Method: tools/list' -d "$LIST" "$URL"
like "$out" '"id":1,"result":\{"tools":\[\{"name":"echo"' 'HTTP: the first tools/list gets the tools once the upstream is ready'
unlike "$out" '"tools":\[\]' 'HTTP: never an empty list'
kill $PX; wait $PX

# 3. an upstream that never answers initialize: an error at the timeout
printf 'send %s\nwait 1\n' "$LIST" > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -t 1s -a echo -- "$FAKE" "$TMP/rec3" noinit
like "$out" '"id":1,"error":\{"code":-32001,"message":"upstream not ready: its handshake did not finish within the timeout"\}' \
	'never ready: the held tools/list gets a clear error'
unlike "$out" '"tools":\[\]' 'never ready: not an empty list'
unlike "$(cat "$TMP/rec3")" 'tools/list' 'and it never reached the upstream'
done_testing
