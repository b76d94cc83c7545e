#!/bin/sh
# mcp-proxy: the stdio upstream. Filtered environment, own process group, no
# orphans; a broken upstream (fails to start, crashes mid-call, hangs, answers
# garbage) never takes the session down; progress and cancellation.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
REC=$TMP/record
ALL="-a echo -a crash -a hang -a garbage -a progress -a env -a grandchild -a slow -a big"
call() { echo "send {\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":{}}}"; }
gone() {	# wait (bounded) until no process has pid $1
	i=0; while [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	! [ -d "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# 1. environment: PATH and the names asked for, nothing else
{ echo "send $INIT"; echo 'wait "i"'; call 1 env; echo 'wait 1'; } > "$TMP/s"
run env CORRAL_T_KEEP=yes CORRAL_T_SECRET=hunter2 DRIVE_ENV="CORRAL_T_KEEP CORRAL_T_SECRET" \
	python3 "$DRIVE" "$TMP/s" -- "$P" -e CORRAL_T_KEEP -a env -- "$FAKE" "$REC"
like "$out" '"text":"PATH,CORRAL_T_KEEP,"' 'upstream environment is PATH plus --env names only'
unlike "$out" 'SECRET' 'unlisted variable not passed'

# 2. process group: a grandchild dies with the proxy (SIGTERM), so does the upstream
{ echo "send $INIT"; echo 'wait "i"'; call 2 grandchild; echo 'wait 2'; echo 'signal SIGTERM'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" $ALL -- "$FAKE" "$REC"
pids=$(printf '%s\n' "$out" | sed -n 's/.*"text":"\([0-9]*\) \([0-9]*\)".*/\1 \2/p')
up=${pids% *} gc=${pids#* }
like "$pids" '^[0-9]+ [0-9]+$' 'upstream reported its pid and its child'
like "$out" 'EXIT 0' 'SIGTERM: proxy exits 0'
gone "$up"; status_ok $? "upstream $up gone after SIGTERM"
gone "$gc"; status_ok $? "upstream's own child $gc gone too (process group)"

# 3. SIGKILL of the proxy: the kernel kills the upstream (parent-death signal)
{ echo "send $INIT"; echo 'wait "i"'; call 3 grandchild; echo 'wait 3'; echo 'signal SIGKILL'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" $ALL -- "$FAKE" "$REC"
pids=$(printf '%s\n' "$out" | sed -n 's/.*"text":"\([0-9]*\) \([0-9]*\)".*/\1 \2/p')
up=${pids% *} gc=${pids#* }
gone "$up"; status_ok $? "SIGKILL: upstream $up gone"
[ -n "$gc" ] && kill "$gc" 2>/dev/null

# 4. fails to start: zero tools, errors, retries with backoff, session up
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":10,"method":"tools/list"}
wait 10
send {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{}}}
wait 11
send {"jsonrpc":"2.0","id":12,"method":"ping"}
wait 12
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo --audit "$TMP/audit" -- "$TMP/no-such-server"
like "$out" '"id":"i","result":\{"protocolVersion":"2025-11-25","capabilities":\{"tools":\{"listChanged":true\}\},"serverInfo":\{"name":"mcp-proxy"' 'no upstream: initialize still answered'
like "$out" '"id":10,"result":\{"tools":\[\]\}' 'no upstream: zero tools'
like "$out" '"id":11,"error":\{"code":-32000,"message":"upstream unavailable"\}' 'no upstream: call gets -32000'
like "$out" '"id":12,"result":\{\}' 'no upstream: ping answered'
like "$out" 'EXIT 0' 'no upstream: clean exit'
like "$err" 'mcp-proxy: warning: upstream exited with status 127 \([^)]*/no-such-server: command not found\); retrying in 250 ms' 'failed start logged with its status, the command and the delay'
like "$(cat "$TMP/audit")" '"tool":"echo","outcome":"unavailable"' 'audit: unavailable'

# 5. exits at once, repeatedly: the delay doubles
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":1,"method":"tools/list"}
wait 1
EOS
cat "$TMP/s" "$TMP/s" "$TMP/s" "$TMP/s" > "$TMP/s4"
# several round trips give the proxy time to fail a few times; the delays are the point
run python3 "$DRIVE" "$TMP/s4" -- "$P" -- "$FAKE" "$REC" exit
like "$err" 'upstream exited with status 3; retrying in 250 ms' 'exit status 3 logged'

# 6. crashes mid-call, hangs, garbage: errors within the bound, restarts, session up
: > "$REC"
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
$(call 20 crash)
wait 20
waitmethod notifications/tools/list_changed
$(call 21 echo)
wait 21
$(call 22 hang)
wait 22
waitmethod notifications/tools/list_changed
$(call 23 echo)
wait 23
$(call 24 garbage)
wait 24
waitmethod notifications/tools/list_changed
$(call 25 big)
wait 25
send {"jsonrpc":"2.0","id":26,"method":"tools/list","params":{"cursor":"page3"}}
wait 26
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -t 1 -m 1048576 $ALL --audit "$TMP/audit6" -- "$FAKE" "$REC"
like "$out" '"id":20,"error":\{"code":-32000,"message":"upstream unavailable"\}' 'crash mid-call: in-flight call gets an error'
like "$err" 'upstream exited with status 4; retrying in 250 ms' 'crash logged'
like "$out" '"id":21,"result":\{"content":\[\{"type":"text","text":"ok"' 'after the crash: restarted and working'
is "$(grep -c '"method":"initialize"' "$REC")" 4 'handshake repeated after every restart (crash, hang, garbage; not the over-size answer)'
like "$out" '"id":22,"error":\{"code":-32001,"message":"upstream timed out"\}' 'hang: timeout error'
like "$err" 'upstream did not answer in time \(hung\); retrying in' 'hang: restart logged'
like "$out" '"id":23,"result":\{"content"' 'after the hang: working'
like "$out" '"id":24,"error":\{"code":-32001' 'garbage: call answered with an error'
like "$err" 'upstream sent a malformed message \(dropped\)' 'garbage logged'
like "$out" '"id":25,"error":\{"code":-32603,"message":"upstream answer over the size limit' 'over-size answer: an error at once, not a timeout'
like "$err" 'upstream answered a request with a message over the size limit; the caller is told' 'over-size answer logged'
is "$(printf '%s\n' "$err" | grep -c 'retrying in')" 3 'no restart for an over-size answer (three: crash, hang, garbage)'
like "$out" '"id":26,"result":\{"tools":\[' 'listing after all of it'
like "$(printf '%s\n' "$out" | tail -1)" '^EXIT 0$' 'session survived'
like "$(cat "$TMP/audit6")" '"tool":"crash","outcome":"unavailable"' 'audit has the crash'
is "$(grep -c '"outcome":"timeout"' "$TMP/audit6")" 2 'audit: two timeouts (hang, garbage)'
like "$(cat "$TMP/audit6")" '"tool":"big","outcome":"error"' 'audit: the over-size answer is an error'

# 7. an upstream that only ever answers garbage: zero tools, session up
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":30,"method":"tools/list"}
wait 30
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -t 1 -a echo -- "$FAKE" "$REC" garbage
like "$out" '"id":"i","result":\{"protocolVersion"' 'garbage upstream: initialize answered'
like "$out" '"id":30,"result":\{"tools":\[\]\}' 'garbage upstream: zero tools'

# 8. progress and cancellation
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"tok-1"}}}
wait 40
send {"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"slow","arguments":{}}}
send {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"user"}}
send {"jsonrpc":"2.0","id":42,"method":"ping"}
wait 42
EOS
: > "$REC"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a progress -a slow --audit "$TMP/audit8" -- "$FAKE" "$REC"
like "$out" '"method":"notifications/progress","params":\{"progressToken":"tok-1","progress":1' 'progress forwarded with the client token'
slow=$(sed -n 's/.*"id":\([0-9]*\),"method":"tools\/call","params":{"name":"slow".*/\1/p' "$REC")
like "$(grep cancelled "$REC")" "\"requestId\":$slow," 'cancellation forwarded with the upstream id'
unlike "$out" '"id":41' 'no answer for the cancelled call'
like "$out" 'EXIT 0' 'exits promptly: the cancelled call is not waited for'
like "$(cat "$TMP/audit8")" '"tool":"slow","outcome":"cancelled"' 'audit: cancelled'
done_testing
