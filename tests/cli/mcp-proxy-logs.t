#!/bin/sh
# mcp-proxy: the log names the server (--name), the command that could not
# be executed, and reports a stream of garbage ten times, not per line;
# initialize drops the upstream's instructions (they name hidden tools);
# an HTTP client that hangs up has its call cancelled upstream at once.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"

# 1. names
printf 'send %s\nwait "i"\nsend {"jsonrpc":"2.0","id":1,"method":"tools/list"}\nwait 1\n' "$INIT" > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" --name fs -a echo -- "$TMP/no-such-server"
like "$err" '^mcp-proxy\[fs\]: warning: upstream exited with status 127 \(.*/no-such-server: command not found\); retrying' 'the server and the missing command are named'
printf '#!/bin/sh\n' > "$TMP/noexec"; chmod 0644 "$TMP/noexec"
run python3 "$DRIVE" "$TMP/s" -- "$P" --name gh -a echo -- "$TMP/noexec"
like "$err" '^mcp-proxy\[gh\]: warning: upstream exited with status 126 \(.*/noexec: not executable\)' 'not executable: said so'
run "$P" --name 'a b' -a echo -- "$FAKE" "$TMP/rec"
is "$rc:$err" "2:mcp-proxy: usage: invalid --name (1-64 of A-Z a-z 0-9 - _ .)" 'a bad --name refused'

# 2. garbage: ten warnings, then silence; the session works
printf 'send %s\nwait "i"\nsend {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}\nwait 1\n' "$INIT" > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" --name spew -a echo -- "$FAKE" "$TMP/rec2" spew
is "$(printf '%s\n' "$err" | grep -c 'malformed message')" 10 'fifty garbage lines: ten warnings'
like "$err" 'malformed message \(dropped\); further ones are dropped silently' 'the tenth says the rest are dropped silently'
like "$out" '"id":1,"result":\{"content"' 'and the session works'

# 3. initialize without the upstream's instructions
printf 'send %s\nwait "i"\n' "$INIT" > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$FAKE" "$TMP/rec3"
like "$out" '"instructions":"use the hidden-admin tool' 'control: the upstream does send instructions'
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -- "$FAKE" "$TMP/rec3"
like "$out" '"id":"i","result":\{"protocolVersion":"2025-11-25","capabilities":\{"tools":\{"listChanged":true\}\},"serverInfo":\{"name":"fake","version":"1"\}\}' 'initialize through the proxy: the rest kept'
unlike "$out" 'instructions|hidden-admin' 'and no instructions'

# 4. an HTTP client that hangs up: its call is cancelled upstream at once
umask 077
printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt"
"$P" --listen-http 0 --listen-token-file "$TMP/lt" -a slow --audit "$TMP/audit" -- "$FAKE" "$TMP/rec4" \
	> "$TMP/url" 2>"$TMP/err" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
port=$(sed 's|http://127.0.0.1:\([0-9]*\)/mcp|\1|' "$TMP/url")
cat > "$TMP/hup.py" <<'EOS'
import socket, sys
port, token = int(sys.argv[1]), open(sys.argv[2]).read().strip()
def post(body, close):
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall((b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n'
               b'Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n'
               b'Content-Length: %d\r\n\r\n' % (port, token.encode(), len(body))) + body)
    if close:
        s.close(); return b''
    s.settimeout(20); d = b''
    while b'"id"' not in d:
        c = s.recv(65536)
        if not c: break
        d += c
    s.close(); return d
post(b'{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}', False)
post(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}', True)
EOS
python3 "$TMP/hup.py" "$port" "$TMP/lt"
waitfor 'grep -q "notifications/cancelled" "$TMP/rec4"'
like "$(grep 'notifications/cancelled' "$TMP/rec4")" '"reason":"client disconnected"' 'the upstream is told the call is cancelled'
waitfor 'grep -q cancelled "$TMP/audit"'
like "$(cat "$TMP/audit")" '"tool":"slow","outcome":"cancelled"' 'audit: cancelled'
kill $PX; wait $PX
done_testing
