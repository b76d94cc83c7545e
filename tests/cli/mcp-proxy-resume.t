#!/bin/sh
# mcp-proxy --url resumes an event stream that ends without its answer (SSE
# reconnection, as the conformance scenario sse-retry asks): after the
# stream's retry: delay, a GET with Last-Event-ID set to the stream's last
# event id, whose events are that request's. The recording fake shows the
# GET; a stream without an event id is not resumed (the caller gets an
# error, as before).
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
node "$FAKEH" "$TMP/port" "$TMP/rec" & pids="$pids $!"
port=$(waitfile "$TMP/port")
printf 'send %s\nwait "i"\nsend %s\nwait 5\nsend %s\nwait 6\n' "$INIT" \
	'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"resume","arguments":{}}}' \
	'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"resume","arguments":{}}}' > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a resume --url "http://127.0.0.1:$port/mcp"
like "$out" '"id":5,"result":\{"content":\[\{"type":"text","text":"resumed ok"\}\]\}' 'the answer comes on the resumed stream'
like "$out" '"id":6,"result":\{"content":\[\{"type":"text","text":"resumed ok"\}\]\}' 'and again for the next call'
is "$(grep -c '"method":"GET".*"lastEventId":"ev-1"' "$TMP/rec")" 2 'one GET with Last-Event-ID: ev-1 per ended stream'
like "$(grep '"lastEventId":"ev-1"' "$TMP/rec" | head -1)" '"session":"sess-1","version":"2025-11-25"' 'in the session, with its protocol version'
# control: a stream that ends without any event id is not resumed
printf 'send %s\nwait "i"\nsend %s\nwait 7\n' "$INIT" \
	'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slowend","arguments":{}}}' > "$TMP/s"
: > "$TMP/rec"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a slowend --url "http://127.0.0.1:$port/mcp"
like "$out" '"id":7,"error":\{"code":-32000,"message":"upstream ended the stream without an answer"' 'control: no event id, no resumption: an error'
is "$(grep -c '"lastEventId":"' "$TMP/rec")" 0 'control: no GET with Last-Event-ID'
done_testing
