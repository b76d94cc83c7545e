#!/bin/sh
# mcp-proxy: one client's bad initialize answers that client only. A
# malformed one never reaches the upstream; one the upstream refuses, or
# that makes it exit, is answered with the refusal and the proxy makes the
# handshake again with its own params. Restarts back off exponentially
# (doubling to --backoff's cap), reset only by a completed handshake.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/mcp-proxy
FAKE=$T/helpers/mcp-proxy-fake
DRIVE=$CORRAL_TOP/tests/helpers/mcp-proxy-drive.py
REC=$TMP/record
init() { echo "send {\"jsonrpc\":\"2.0\",\"id\":\"$1\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":$2,\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"; echo "wait \"$1\""; }
resp() { grep "^< .*\"id\":$1[,}]" "$TMP/out" | head -1; }

# 1. malformed params: answered by the proxy, never kept, never sent
{ init bad 123
  echo 'send {"jsonrpc":"2.0","id":"bad2","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":[]}}'
  echo 'wait "bad2"'
  init good '"2025-11-25"'
  echo 'send {"jsonrpc":"2.0","id":1,"method":"tools/list"}'; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -- "$FAKE" "$REC"
printf '%s\n' "$out" > "$TMP/out"
like "$(resp '"bad"')" '"error":\{"code":-32602,"message":"Invalid params: initialize needs' 'protocolVersion 123: -32602 to that client'
like "$(resp '"bad2"')" '"error":\{"code":-32602' 'capabilities not an object: -32602'
like "$(resp '"good"')" '"serverInfo":\{"name":"fake"' 'control: the next initialize gets the real upstream'
like "$(resp 1)" '"name":"echo"' 'and tools'
unlike "$(cat "$REC")" '"protocolVersion":123|"capabilities":\[\]' 'the malformed params never reached the upstream'
unlike "$err" 'retrying' 'no restart'

# 2. params the upstream refuses: the refusal to that client, a fresh handshake for the rest
rm -f "$REC"
{ init bad '"bad-version"'; init good '"2025-11-25"'
  echo 'send {"jsonrpc":"2.0","id":1,"method":"tools/list"}'; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -- "$FAKE" "$REC"
printf '%s\n' "$out" > "$TMP/out"
like "$(resp '"bad"')" '"error":\{"code":-32602,"message":"Unsupported protocol version"' 'refused params: the upstream refusal, to that client'
like "$(resp '"good"')" '"serverInfo":\{"name":"fake"' 'the next client: the upstream as it is'
like "$(resp 1)" '"name":"echo"' 'and its tools (not zero)'
like "$(grep -c '"method":"initialize"' "$REC")" '^2$' 'two handshakes upstream: the refused one, then the proxy own'
like "$(sed -n 2p "$REC")" '"clientInfo":\{"name":"mcp-proxy"' 'the second with the proxy params'
like "$err" 'upstream refused a client.s initialize' 'logged'
unlike "$err" 'retrying' 'no restart for a refused handshake'

# 3. params that make the upstream exit: restarted once, with the proxy's params
rm -f "$REC"
{ init bad '"exit-please"'; echo 'waitmethod notifications/tools/list_changed'
  echo 'send {"jsonrpc":"2.0","id":1,"method":"tools/list"}'; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -- "$FAKE" "$REC"
printf '%s\n' "$out" > "$TMP/out"
like "$(resp 1)" '"name":"echo"' 'after the exit and one restart: tools again (not zero for good)'
is "$(grep -c 'exit-please' "$REC")" 1 'the fatal params were sent once, never repeated'
like "$err" 'exited with status 5; retrying in 250 ms' 'one restart'

# 4. an upstream that refuses every handshake: the delay doubles
(echo '{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'; sleep 4) |
	"$P" -a echo -- "$FAKE" "$REC" refuse >/dev/null 2>"$TMP/err4"
delays=$(sed -n 's/.*refused the initialize handshake; retrying in \([0-9]*\) ms.*/\1/p' "$TMP/err4" | tr '\n' ' ')
like "$delays" '^250 500 ' "restarts back off: 250, then 500 ms (saw: $delays)"
done_testing
