#!/bin/sh
# mcp-proxy: bad input from the agent gets the right JSON-RPC error, nothing
# of it reaches the upstream (the record proves it), and the session stays up.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
REC=$TMP/record

cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"
send not json at all
sendpy b'[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}]\n'
sendpy b'{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo"}}\n'
sendpy b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo",\n"arguments":{}}}\n'
sendpy b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"a":"\xff\xfe"}}}\n'
sendpy b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo\x00","arguments":{}}}\n'
sendpy b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"a":"' + b'x' * 20000000 + b'"}}}\n'
sendpy b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":"\xed\xa0\x80"}}}\n'
sendpy b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"a":"\\\\ud800"}}}\n'
send {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{}}} trailing
send {"jsonrpc":"1.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{}}}
send {"jsonrpc":"2.0","id":11,"method":"tools/call","params":"echo"}
send 42
send {"jsonrpc":"2.0","id":true,"method":"ping"}
sendpy b'\r\n\n'
send {"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{}}}
wait 99
rss
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -m 65536 -a echo -- "$FAKE" "$REC"
printf '%s\n' "$out" > "$TMP/out"
errs() { grep -c "\"error\":{\"code\":$1" "$TMP/out"; }
is "$(errs -32700)" 10 'parse errors: truncated, garbage, both halves of a split line, invalid UTF-8, NUL, surrogates (raw and escaped), trailing garbage, bare number'
is "$(grep -c '"id":null,"error":{"code":-32700' "$TMP/out")" 10 'parse errors carry id null'
like "$(grep '"code":-32600' "$TMP/out" | head -1)" '"id":null' 'batch: invalid request, id null'
is "$(errs -32600)" 6 'invalid requests: batch, id null, over-size, version, params string, id true'
like "$out" '"id":10,"error":\{"code":-32600' 'wrong version answered with its id'
like "$out" '"message":"message too large"' 'over-size line: message too large'
like "$(grep '"id":99' "$TMP/out")" '"text":"ok"' 'session still up after all of it'
is "$(grep -c '"tools/call"' "$REC")" 1 'only the one good call reached the upstream'
hwm=$(sed -n 's/^HWM //p' "$TMP/out")
status_ok "$([ "${hwm:-999999}" -lt 8192 ] && echo 0 || echo 1)" "memory bounded: 20 MB line read with peak RSS ${hwm} kB (< 8 MiB)"
like "$(tail -1 "$TMP/out")" '^EXIT 0$' 'exit 0'
is "$err" "" 'nothing on stderr for agent mistakes'
done_testing
