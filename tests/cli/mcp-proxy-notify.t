#!/bin/sh
# mcp-proxy: notifications from the upstream. notifications/resources/updated
# for a URI outside the resource allowlist is dropped and audited, never
# forwarded (an escaped method name too); resources/list_changed names no
# URI and passes (the listing it prompts is filtered). Log messages
# (notifications/message) reach HTTP clients on the event stream of their
# request in flight: from an HTTP upstream only the client whose request's
# stream carried them, from a stdio upstream every request then in flight.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
CALLU='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"updates","arguments":{}}}'
CALLL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log","arguments":{}}}'

# 1. resources/updated, stdio client
printf 'send %s\nwait "i"\nsend %s\nwait 1\n' "$INIT" "$CALLU" > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$FAKE" "$TMP/rec0"
like "$out" 'file:///etc/passwd' 'control: the upstream does send an update for file:///etc/passwd'
run python3 "$DRIVE" "$TMP/s" -- "$P" -a updates --allow-resource file:///srv/docs/ --audit "$TMP/audit1" -- "$FAKE" "$TMP/rec1"
like "$out" '"method":"notifications/resources/updated","params":\{"uri":"file:///srv/docs/a.md"\}' 'an allowed URI: forwarded'
unlike "$out" 'etc/passwd|etc/shadow|etc/group' 'outside the allowlist (also by dot segments, also escaped): never forwarded'
like "$out" '"method":"notifications/resources/list_changed"' 'resources/list_changed: forwarded'
like "$out" '"id":1,"result":\{"content":\[\{"type":"text","text":"updated"' 'the call is answered'
like "$(cat "$TMP/audit1")" '"method":"notifications/resources/updated","uri":"file:///etc/passwd","outcome":"dropped"' 'audit: the dropped update and its URI'
is "$(grep -c '"outcome":"dropped"' "$TMP/audit1")" 3 'audit: three updates dropped'
run python3 "$DRIVE" "$TMP/s" -- "$P" -a updates -- "$FAKE" "$TMP/rec1b"
unlike "$out" 'resources/updated' 'no --allow-resource: no update forwarded at all'

# 2. HTTP clients, a stdio upstream: updates filtered, logs on the call's stream
mp_listen_token
mp_http -a updates -a log -a slow --allow-resource file:///srv/docs/ -- "$FAKE" "$TMP/rec2"
cat > "$TMP/h.py" <<'EOS'
import sys
from mcphttp import Endpoint
ep = Endpoint(sys.argv[1], sys.argv[2])
INIT = b'{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
ep.post(INIT)
print('UPDATES', ep.post(sys.argv[3].encode(), b'"id":1,').decode())
# another client's call in flight: a stdio upstream does not say whose the
# log is, so it goes on every stream in flight
b = ep.conn(); b.sendall(ep.request(b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}'))
print('LOG', ep.post(sys.argv[4].encode(), b'"id":2,').decode())
b.settimeout(2)
print('OTHER', ep.answer(b, b'log line two').decode())
EOS
PYTHONPATH=$CORRAL_TOP/tests/lib run python3 "$TMP/h.py" "$port" "$LT" "$CALLU" "$CALLL"
upd=$(printf '%s\n' "$out" | sed -n '/^UPDATES/,/^LOG/p')
like "$upd" 'Content-Type: text/event-stream' 'HTTP: notifications first: the answer is an event stream'
like "$upd" 'data: \{"jsonrpc":"2.0","method":"notifications/resources/updated","params":\{"uri":"file:///srv/docs/a.md"\}\}' 'HTTP: the allowed update on the stream'
unlike "$upd" 'etc/passwd|etc/shadow|etc/group' 'HTTP: the others never'
log=$(printf '%s\n' "$out" | sed -n '/^LOG/,/^OTHER/p' | tr '\n' ' ')
like "$log" 'data: \{"jsonrpc":"2.0","method":"notifications/message","params":\{"level":"info","data":"log line one"\}\}' 'HTTP, stdio upstream: log message one on the stream of the call'
like "$log" 'log line two.*"id":2,"result"' 'HTTP, stdio upstream: both, before the answer'
like "$(printf '%s\n' "$out" | sed -n '/^OTHER/,$p')" 'log line one' 'HTTP, stdio upstream: also on the stream of the other request in flight'
kill $PX; wait $PX

# 3. HTTP clients, an HTTP upstream: the log goes only to the client whose
# request's stream carried it
node "$FAKEH" "$TMP/hport" "$TMP/hrec" & pids="$pids $!"
hport=$(waitfile "$TMP/hport")
mp_http -a log -a slow --url "http://127.0.0.1:$hport/mcp"
PYTHONPATH=$CORRAL_TOP/tests/lib run python3 "$TMP/h.py" "$port" "$LT" '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$CALLL"
log=$(printf '%s\n' "$out" | sed -n '/^LOG/,/^OTHER/p' | tr '\n' ' ')
like "$log" 'data: \{"jsonrpc":"2.0","method":"notifications/message","params":\{"level":"info","data":"log line one"\}\}' 'HTTP, HTTP upstream: the log on the stream of the call that caused it'
like "$log" 'log line two.*"id":2,"result":\{"content":\[\{"type":"text","text":"logged"' 'HTTP, HTTP upstream: both, then the answer'
unlike "$(printf '%s\n' "$out" | sed -n '/^OTHER/,$p')" 'log line' 'HTTP, HTTP upstream: not on the stream of another client'
kill $PX; wait $PX
done_testing
