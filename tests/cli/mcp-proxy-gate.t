#!/bin/sh
# mcp-proxy: what passes beyond tools/call. Notifications only from a known
# list (a tools/call without an id never reaches the upstream); method names
# compared after unescaping; nesting bounded (64) in linear time; duplicate
# keys refused at any depth; resources, prompts, completions and tasks held
# to their allowlists. The upstream is the recording fake: its record proves
# what did and did not reach it. Each refusal has a control that passes.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
REC=$TMP/record
nest() {	# $1 levels of {"a": ... } around 1
	python3 -c "import sys; d=int(sys.argv[1]); print('{\"a\":' * d + '1' + '}' * d)" "$1"
}
resp() { grep "^< .*\"id\":$1[,}]" "$TMP/out" | head -1; }

# 1. notifications
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","method":"tools/call","params":{"name":"secret","arguments":{"n":"note-secret"}}}
send {"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"n":"note-echo"}}}
send {"jsonrpc":"2.0","method":"tools\/call","params":{"name":"secret","arguments":{"n":"note-escaped"}}}
send {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"file:///etc/passwd"}}
send {"jsonrpc":"2.0","method":"notifications/whatever","params":{"n":"note-unknown"}}
send {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}
send {"jsonrpc":"2.0","method":"notifications\/progress","params":{"progressToken":"pt-control","progress":1}}
send {"jsonrpc":"2.0","id":1,"method":"ping"}
wait 1
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo --audit "$TMP/audit" -- "$FAKE" "$REC"
unlike "$(cat "$REC")" 'note-secret|note-echo|note-escaped|etc/passwd|note-unknown' 'no tools/call, resources/read or unknown notification reached the upstream'
like "$(cat "$REC")" 'notifications/roots/list_changed' 'control: a known notification is forwarded'
like "$(cat "$REC")" 'pt-control' 'control: an escaped known notification is forwarded'
like "$(cat "$TMP/audit")" '"method":"tools/call","tool":"secret","outcome":"dropped"' 'audit: the tools/call notification, with its tool'
like "$(cat "$TMP/audit")" '"method":"tools/call","tool":"echo","outcome":"dropped"' 'audit: even for an allowed tool (no id, no answer, no audit of an outcome)'
like "$(cat "$TMP/audit")" '"method":"notifications/whatever","outcome":"dropped"' 'audit: the unknown notification'
is "$(grep -c dropped "$TMP/audit")" 5 'audit: five dropped'

# 2. methods: escapes, NUL, unknown methods
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":1,"method":"tools\/secret","params":{"name":"echo"}}
send {"jsonrpc":"2.0","id":2,"method":"tools\/call","params":{"name":"secret","arguments":{}}}
send {"jsonrpc":"2.0","id":3,"method":"tools\/call","params":{"name":"echo","arguments":{"w":"escaped-ok"}}}
send {"jsonrpc":"2.0","id":4,"method":"tools/call\u0000x","params":{"name":"echo","arguments":{"w":"nul"}}}
send {"jsonrpc":"2.0","id":5,"method":"admin/run","params":{"w":"unknown-method"}}
send {"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info"}}
wait 6
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -- "$FAKE" "$REC.2"
printf '%s\n' "$out" > "$TMP/out"
like "$(resp 1)" '"code":-32601' 'an escaped tools/ method is a tools/ method: not found'
like "$(resp 2)" '"code":-32602' 'an escaped tools/call of a refused tool: -32602'
like "$(resp 3)" '"text":"ok"' 'control: an escaped tools/call of an allowed tool works'
like "$(resp 4)" '"code":-32601' 'a method with a NUL is no method'
like "$(resp 5)" '"code":-32601' 'an unknown method: not found'
like "$(resp 6)" '"result":\{\}' 'control: logging/setLevel passes'
unlike "$(cat "$REC.2")" 'tools\\\\/secret|"secret"|nul|unknown-method' 'none of the refused reached the upstream'
like "$(cat "$REC.2")" 'escaped-ok' 'control: the allowed call did'

# 3. nesting and duplicate keys
deep=$(nest 40000) ok64=$(nest 62) deep65=$(nest 63)
{
	echo "send $INIT"; echo 'wait "i"'
	echo "send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"deep\":$deep}}}"
	echo 'wait null'
	echo "send {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":$ok64,\"w\":\"depth-64\"}}"
	echo 'wait 2'
	echo "send {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":$deep65}}"
	echo 'send {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"path":"/ok","path":"/etc/shadow"}}}'
	echo 'send {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"o":{"k":1,"\u006b":2}}}}'
	echo 'send {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"o":{"k":1},"p":{"k":2},"w":"same-key-two-objects"}}}'
	echo 'wait 6'
} > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo --audit "$TMP/audit3" -- "$FAKE" "$REC.3"
printf '%s\n' "$out" > "$TMP/out"
like "$(grep -- '-32600' "$TMP/out" | head -1)" '"id":null,"error":\{"code":-32600,"message":"Invalid Request"' '40000 deep: -32600 (the id is never looked for)'
like "$(resp 2)" '"text":"ok"' 'control: 64 deep (62 in arguments) passes'
is "$(grep -c '"id":null,"error":{"code":-32600' "$TMP/out")" 2 '65 deep (63 in arguments): -32600 too'
unlike "$(resp 3)" 'result' 'and no result for it'
like "$(resp 4)" '"code":-32600,"message":"Invalid Request: duplicate member"' 'a duplicate key in arguments: -32600'
like "$(resp 5)" '"code":-32600' 'a duplicate key nested deeper, one escaped: -32600'
like "$(resp 6)" '"text":"ok"' 'control: the same key in two objects is no duplicate'
unlike "$(cat "$REC.3")" 'shadow|"deep"' 'neither the deep nor the duplicated message reached the upstream'
like "$(cat "$REC.3")" 'depth-64' 'control: the 64-deep message did'
like "$(cat "$TMP/audit3")" '"tool":"echo","outcome":"denied"' 'audit: the duplicate-key call denied'

# 4. resources, prompts, completions, tasks
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":1,"method":"resources/list"}
send {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}
send {"jsonrpc":"2.0","id":3,"method":"prompts/list"}
send {"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet"}}
send {"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"task-1"}}
wait 5
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -- "$FAKE" "$REC.4"
printf '%s\n' "$out" > "$TMP/out"
like "$(resp 1)" '"result":\{"resources":\[\],"nextCursor":"r2"\}' 'no --allow-resource: resources/list empty, cursor kept'
like "$(resp 2)" '"code":-32602,"message":"Unknown resource' 'no --allow-resource: resources/read refused'
like "$(resp 3)" '"result":\{"prompts":\[\]\}' 'no --allow-prompt: prompts/list empty'
like "$(resp 4)" '"code":-32602,"message":"Unknown prompt' 'no --allow-prompt: prompts/get refused'
like "$(resp 5)" '"code":-32602,"message":"Unknown task' 'a task no allowed call created: refused'
unlike "$(cat "$REC.4")" 'passwd|greet|task-1' 'none of the refused reached the upstream'

cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":1,"method":"resources/list"}
send {"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}
send {"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///srv/docs/a.md"}}
send {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///srv/docs/../../etc/passwd"}}
send {"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///srv/docs/%2e%2e/%2E%2E/etc/passwd"}}
send {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"file:///srv/docs/..%2fetc"}}
send {"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///srv/docs-secret/x"}}
send {"jsonrpc":"2.0","id":8,"method":"resources/subscribe","params":{"uri":"file:///etc/passwd"}}
send {"jsonrpc":"2.0","id":9,"method":"prompts/list"}
send {"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"greet"}}
send {"jsonrpc":"2.0","id":11,"method":"prompts/get","params":{"name":"secret-prompt"}}
send {"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"a","value":"x"}}}
send {"jsonrpc":"2.0","id":13,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"secret-prompt"},"argument":{"name":"a","value":"x"}}}
send {"jsonrpc":"2.0","id":14,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"file:///etc/{x}"},"argument":{"name":"x","value":"p"}}}
send {"jsonrpc":"2.0","id":15,"method":"tasks/get","params":{"taskId":"task-1"}}
send {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"tasky","arguments":{}}}
wait 16
send {"jsonrpc":"2.0","id":17,"method":"tasks/get","params":{"taskId":"task-1"}}
send {"jsonrpc":"2.0","id":18,"method":"tasks/list"}
send {"jsonrpc":"2.0","id":19,"method":"tasks/result","params":{"taskId":"task-other"}}
wait 19
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -a tasky --allow-resource file:///srv/docs/ --allow-prompt greet -- "$FAKE" "$REC.5"
printf '%s\n' "$out" > "$TMP/out"
like "$(resp 1)" '"resources":\[\{"uri":"file:///srv/docs/a.md","name":"a"\}\],"nextCursor":"r2"' 'resources/list: only the allowed prefix'
like "$(resp 2)" '"resourceTemplates":\[\{"uriTemplate":"file:///srv/docs/\{p\}","name":"docs"\}\]' 'resources/templates/list: only the allowed prefix'
like "$(resp 3)" '"text":"contents of file:///srv/docs/a.md"' 'control: an allowed resource is read'
for i in 4 5 6 7 8; do
	like "$(resp $i)" '"code":-32602,"message":"Unknown resource' "resource escape $i refused"
done
like "$(resp 9)" '"prompts":\[\{"name":"greet"\}\]' 'prompts/list: only the allowed prompt'
like "$(resp 10)" '"text":"prompt text"' 'control: an allowed prompt'
like "$(resp 11)" '"code":-32602,"message":"Unknown prompt' 'another prompt refused'
like "$(resp 12)" '"values":\["done"\]' 'control: completion of an allowed prompt'
like "$(resp 13)" '"code":-32602,"message":"Unknown reference' 'completion of another prompt refused'
like "$(resp 14)" '"code":-32602,"message":"Unknown reference' 'completion of a resource outside the prefix refused'
like "$(resp 15)" '"code":-32602,"message":"Unknown task' 'a task before its call: refused'
like "$(resp 17)" '"status":"completed"' 'the task an allowed call created is reachable'
like "$(resp 18)" '"tasks":\[\{"taskId":"task-1","status":"working"\}\]' 'tasks/list: only the tasks of allowed calls'
like "$(resp 19)" '"code":-32602,"message":"Unknown task' 'another task refused'
unlike "$(cat "$REC.5")" 'etc|%2e|%2E|docs-secret|secret-prompt|task-other' 'no refused resource, prompt or task reached the upstream'
is "$(grep -c '"tasks/get"' "$REC.5")" 1 'tasks/get reached the upstream once: after the call'

# 5. option checks
run "$P" --allow-resource '' -- "$FAKE" "$REC"
is "$rc:$err" "2:mcp-proxy: usage: invalid URI prefix for --allow-resource (1-4096 visible ASCII characters): " 'empty --allow-resource refused'
run "$P" --allow-prompt 'a b' -- "$FAKE" "$REC"
is "$rc:$err" "2:mcp-proxy: usage: invalid prompt name for --allow-prompt (1-128 of A-Z a-z 0-9 _ - .)" 'bad --allow-prompt refused'
done_testing
