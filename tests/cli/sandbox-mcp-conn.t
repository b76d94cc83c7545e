#!/bin/sh
# sandbox-mcp: the current session belongs to the connection (the stdio
# client, the HTTP client's MCP session), as in drun. Two clients on one
# store, interleaved: A creates a session, then B does, and A's next write
# lands in A's session, not in B's. Control: within one connection
# session_switch moves the current session, and the other client's session
# is reachable by session_id. A new connection starts with none. Sessions
# outlive the servers. SDK client over stdio and over HTTP; root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; wait $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
waitfor() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; }

for who in root nobody; do
D=$TMP/$who
mkdir -p "$D/home"
echo '{"max_sessions": 16}' > "$D/cfg.json"
AS=
if [ "$who" = nobody ]; then
	chown -R nobody:nogroup "$D"
	AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
fi
SDK_AS=$AS
cat > "$D/a" <<'JSON'
[{"call": "create_session", "args": {"label": "A"}},
 {"sleep": 2500},
 {"call": "session_write_files", "args": {"entries": [{"path": "who.txt", "content": "A"}]}},
 {"call": "get_session_state"}]
JSON
cat > "$D/b" <<'JSON'
[{"sleep": 1000},
 {"call": "create_session", "args": {"label": "B"}},
 {"sleep": 3000},
 {"call": "session_write_files", "args": {"entries": [{"path": "who.txt", "content": "B"}]}}]
JSON
for mode in stdio http; do
	ST=$D/store-$mode
	if [ $mode = stdio ]; then
		node "$CLIENT" "$NM" "$D/a" $AS "$SBX" --store "$ST" --config "$D/cfg.json" > "$D/oa" 2>&1 & pa=$!
		node "$CLIENT" "$NM" "$D/b" $AS "$SBX" --store "$ST" --config "$D/cfg.json" > "$D/ob" 2>&1 & pb=$!
	else
		printf 'tok-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$D/lt"
		chmod 0600 "$D/lt"
		[ "$who" = nobody ] && chown nobody "$D/lt"
		(exec $AS "$SBX" --store "$ST" --config "$D/cfg.json" --listen 127.0.0.1:0 --listen-token-file "$D/lt" > "$D/url" 2>"$D/err") & X=$!; pids="$pids $X"
		waitfor '[ -s "$D/url" ]'
		node "$CLIENT" "$NM" "$D/a" --http "$(head -1 "$D/url")" "$D/lt" > "$D/oa" 2>&1 & pa=$!
		node "$CLIENT" "$NM" "$D/b" --http "$(head -1 "$D/url")" "$D/lt" > "$D/ob" 2>&1 & pb=$!
	fi
	wait $pa; wait $pb
	sa=$(grep '"tool":"create_session"' "$D/oa" | jq -r .data.session_id)
	sb=$(grep '"tool":"create_session"' "$D/ob" | jq -r .data.session_id)
	is "$(cat "$ST/sessions/$sa/workspace/who.txt"):$(cat "$ST/sessions/$sb/workspace/who.txt")" "A:B" "$who $mode: each client's write lands in its own session"
	is "$(grep '"tool":"get_session_state"' "$D/oa" | jq -r '.data.session_id + ":" + (.data.current|tostring)')" "$sa:true" "$who $mode: A's current session is still A's"
	cat > "$D/c" <<JSON
[{"call": "get_session_state"},
 {"call": "session_list"},
 {"call": "session_read_file", "args": {"path": "who.txt", "session_id": "$sa"}},
 {"call": "session_switch", "args": {"session_id": "$sb"}},
 {"call": "session_read_file", "args": {"path": "who.txt"}}]
JSON
	if [ $mode = stdio ]; then
		node "$CLIENT" "$NM" "$D/c" $AS "$SBX" --store "$ST" --config "$D/cfg.json" > "$TMP/o" 2>&1
	else
		node "$CLIENT" "$NM" "$D/c" --http "$(head -1 "$D/url")" "$D/lt" > "$TMP/o" 2>&1
		kill $X; wait $X 2>/dev/null
	fi
	like "$(r get_session_state)" '"isError":true.*no current session on this connection' "$who $mode: a new connection has no current session"
	is "$(rj session_list 1 '[.sessions[] | select(.current)] | length'):$(rj session_list 1 '.sessions | length')" "0:2" "$who $mode: the sessions are all there, none current here"
	is "$(rj session_read_file 1 .content)" A "$who $mode: control: another connection's session by session_id"
	is "$(rj session_read_file 2 .content)" B "$who $mode: control: session_switch moves this connection's current session"
done
done
done_testing
