#!/bin/sh
# mcp-proxy: the tool allowlist, tools/list filtering and pagination, name
# evasions, id rewriting, audit log. The upstream is a recording fixture:
# the record proves what reached it.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/mcp-proxy
FAKE=$T/helpers/mcp-proxy-fake
DRIVE=$CORRAL_TOP/tests/helpers/mcp-proxy-drive.py
REC=$TMP/record
INIT='{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'

cat > "$TMP/s" <<EOS
send $INIT
wait "init-1"
send {"jsonrpc":"2.0","method":"notifications/initialized"}
send {"jsonrpc":"2.0","id":10,"method":"tools/list"}
wait 10
send {"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":"page2"}}
wait 11
send {"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"cursor":"page3"}}
wait 12
send {"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo","arguments":{}}}
wait 20
send {"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"secret","arguments":{}}}
send {"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"Echo","arguments":{}}}
send {"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"echo ","arguments":{}}}
send {"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":" echo","arguments":{}}}
send {"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"echo\u0000","arguments":{}}}
send {"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"echo\u0000secret","arguments":{}}}
send {"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"\u0435cho","arguments":{}}}
send {"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":"ｅcho","arguments":{}}}
send {"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"echo","name":"secret","arguments":{}}}
send {"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"secret","name":"echo","arguments":{}}}
send {"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"echo","arguments":{}},"params":{"name":"secret"}}
send {"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":["echo"]}}
send {"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"arguments":{}}}
send {"jsonrpc":"2.0","id":34,"method":"tools/call"}
send {"jsonrpc":"2.0","id":35,"method":"tools/call","params":{"name":"ECHO"}}
send {"jsonrpc":"2.0","id":36,"method":"tools/call","params":{"name":"echo\t"}}
send {"jsonrpc":"2.0","id":37,"method":"tools/secret","params":{"name":"echo"}}
send {"jsonrpc":"2.0","id":38,"method":"tools/call","params":{"name":"\u0065cho","arguments":{}}}
wait 38
send {"jsonrpc":"2.0","id":"s\"q","method":"tools/call","params":{"name":"echo","arguments":{}}}
wait "s\"q"
send {"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"changed","arguments":{}}}
waitmethod notifications/tools/list_changed
wait 40
send {"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"ask","arguments":{}}}
answer roots/list {"roots":[]}
wait 41
EOS
# the server asks the client (roots/list); the client answers the id it saw
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -a changed -a ask --audit "$TMP/audit" -- "$FAKE" "$REC"
printf '%s\n' "$out" > "$TMP/out"
sid=$(grep '"roots/list"' "$TMP/out" | sed -n 's/.*"id":\([^,}]*\).*/\1/p' | head -1)
resp() { grep "^< .*\"id\":$1[,}]" "$TMP/out" | head -1; }

like "$(resp '"init-1"')" '"serverInfo":\{"name":"fake"' 'initialize answered with the client id'
like "$(resp 10)" '"tools":\[\{"name":"echo","inputSchema":\{"type":"object"\}\}\],"nextCursor":"page2"' 'page 1: only the exact name survives'
is "$(resp 10 | grep -o '"name"' | wc -l)" 1 'page 1: case, spaces, NUL, lookalike, duplicate name keys all filtered'
like "$(resp 11)" '"result":\{"tools":\[\],"nextCursor":"page3"\}' 'page 2: all filtered, cursor kept'
like "$(resp 12)" '"result":\{"tools":\[\{"name":"ask".*\{"name":"changed"[^]]*\]\}\}$' 'page 3: allowed tools, no cursor'
unlike "$(resp 12)" '"crash"|"hang"' 'page 3: others filtered'
like "$(resp 20)" '"result":\{"content"' 'allowed call answered'
for i in 21 22 23 24 25 26 27 28 29 30 32 33 34 35 36; do
	like "$(resp $i)" '"error":\{"code":-32602' "evasion $i refused with -32602"
done
like "$(resp 31)" '"error":\{"code":-32600' 'duplicate params: invalid request'
like "$(resp 37)" '"error":\{"code":-32601' 'unknown tools/ method refused'
like "$(resp 38)" '"text":"ok"' 'an escaped but exact name is the same name'
like "$(grep -F '"id":"s\"q"' "$TMP/out")" '"text":"ok"' 'string id with an escape restored'
# the record: only the allowed calls reached the upstream
calls=$(grep -c '"tools/call"' "$REC")
is "$calls" 5 'exactly the five allowed calls reached the upstream'
unlike "$(grep '"tools/call"' "$REC")" 'secret|Echo|ECHO|echo |u0000|u0435|ｅ|\\t|"name":\[' 'no refused name in the record'
unlike "$(cat "$REC")" 'tools/secret' 'unknown tools/ method never forwarded'
like "$(grep '"tools/call"' "$REC" | head -1)" '"id":[0-9]+,' 'upstream sees the proxy id'
unlike "$(grep '"tools/call"' "$REC")" '"id":(20|"s)' 'client ids never reach the upstream'
like "$(grep -c '"notifications/initialized"' "$REC")" '^1$' 'one initialized notification upstream'
like "$sid" '^[0-9]+$' 'server request forwarded with a rewritten id'
like "$(resp 41)" '"text":"answer for srv-1"' 'client answer reached the server under its own id'
# audit
like "$(grep '"outcome":"denied"' "$TMP/audit" | grep -vc '"method"')" '^15$' 'audit: every refused tool call recorded'
like "$(grep '"method":"tools/secret"' "$TMP/audit")" '"outcome":"denied"' 'audit: the unknown tools/ method recorded by its method'
like "$(sed -n 2p "$TMP/audit")" '^\{"time":[0-9]+\.[0-9]{3},"tool":"secret","outcome":"denied"\}$' 'audit line: time (seconds, as every audit log), tool, outcome'
like "$(grep '"tool":"echo"' "$TMP/audit" | head -1)" '"outcome":"ok"' 'audit: allowed call ok'
unlike "$(cat "$TMP/audit")" 'arguments|content|text' 'audit: no arguments or results'
is "$(stat -c %a "$TMP/audit")" 600 'audit log is 0600'
like "$(tail -1 "$TMP/out")" '^EXIT 0$' 'proxy exits 0 when the client closes'
done_testing
