#!/bin/sh
# mcp-proxy: the HTTP endpoint closes a connection that has not sent a whole
# request within --listen-idle of opening or of its last answer, so idle
# keep-alive connections (or a head trickling in) cannot hold all 64 slots.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/mcp-proxy
FAKE=$T/helpers/mcp-proxy-fake
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
waitfor() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; }
umask 077
printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt"
LT=$(cat "$TMP/lt")

run "$P" --listen-idle 1s -a echo -- "$FAKE" "$TMP/rec"
is "$rc" 2 '--listen-idle without --listen-http: usage error'
like "$err" '^mcp-proxy: usage: --listen-idle needs --listen-http' '  said so'
run "$P" --listen-http 0 --listen-token-file "$TMP/lt" --listen-idle 0 -a echo -- "$FAKE" "$TMP/rec"
is "$rc" 2 '--listen-idle 0: usage error'

"$P" --listen-http 0 --listen-token-file "$TMP/lt" --listen-idle 1s -a echo -- "$FAKE" "$TMP/rec" \
	> "$TMP/url" 2>"$TMP/err" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
URL=$(head -1 "$TMP/url")
port=${URL#http://127.0.0.1:}; port=${port%/mcp}

# Fill every slot with connections that never send a whole request: idle
# ones, one with half a head, one kept alive after an answer. Each must be
# closed by the proxy (EOF); then a new client is served again.
cat > "$TMP/fill.py" <<'EOS'
import socket, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
def conn():
    s = socket.create_connection(('127.0.0.1', port)); s.settimeout(20); return s
body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
req = (b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n'
       b'Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n'
       b'Content-Length: %d\r\n\r\n' % (port, token.encode(), len(body))) + body
ka = conn(); ka.sendall(req)
ans = b''
while b'"id":1' not in ans:
    d = ka.recv(4096)
    if not d: break
    ans += d
print('keepalive-answer', b'keep-alive' in ans and b'"result"' in ans)
half = conn(); half.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n')
idle = [conn() for _ in range(62)]
def closed(s):
    try:
        while True:
            d = s.recv(4096)
            if not d: return True
    except (socket.timeout, ConnectionResetError):
        return False
print('keepalive-closed', closed(ka))
print('half-closed', closed(half))
print('idle-closed', sum(closed(s) for s in idle))
s = conn(); s.sendall(req)
ans = b''
while b'"id":1' not in ans:
    d = s.recv(4096)
    if not d: break
    ans += d
print('served-after', b'"result"' in ans)
EOS
run python3 "$TMP/fill.py" "$port" "$LT"
like "$out" 'keepalive-answer True' 'a keep-alive answer'
like "$out" 'keepalive-closed True' 'idle keep-alive connection closed by the proxy'
like "$out" 'half-closed True' 'a head that never completes: closed'
like "$out" 'idle-closed 62' 'every idle connection closed: the slots come back'
like "$out" 'served-after True' 'a new client is served after'
kill $PX; wait $PX
is "$?" 0 'proxy exits 0'
done_testing
