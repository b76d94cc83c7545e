#!/bin/sh
# mcp-proxy: connections without a token cannot lock out clients that have
# one. At most 48 connections without a checked head are kept (the oldest
# gives way to a new one), and a head must be whole within 5 s of its first
# byte even when bytes keep trickling in (--listen-idle here is 60 s).
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/mcp-proxy
FAKE=$T/helpers/mcp-proxy-fake
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
waitfor() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; }
umask 077
printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt"
LT=$(cat "$TMP/lt")
"$P" --listen-http 0 --listen-token-file "$TMP/lt" --listen-idle 60s -a echo -- "$FAKE" "$TMP/rec" \
	> "$TMP/url" 2>"$TMP/err" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
URL=$(head -1 "$TMP/url")
port=${URL#http://127.0.0.1:}; port=${port%/mcp}

cat > "$TMP/attack.py" <<'EOS'
import socket, sys, time, select
port, token = int(sys.argv[1]), sys.argv[2]
def conn():
    s = socket.create_connection(('127.0.0.1', port)); s.settimeout(20); return s
body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
req = (b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n'
       b'Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n'
       b'Content-Length: %d\r\n\r\n' % (port, token.encode(), len(body))) + body
def served():
    s = conn(); s.sendall(req); ans = b''
    try:
        while b'"id":1' not in ans:
            d = s.recv(4096)
            if not d: break
            ans += d
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return b'"result"' in ans
# control: served with nothing in the way
print('control', served())
# 64 connections that send a request line and stop, then 64 more (reconnecting)
att = []
for _ in range(128):
    s = conn(); s.sendall(b'POST /mcp HTTP/1.1\r\n'); att.append(s)
print('served-under-attack', served())
# the attackers lost their slots: closed by the proxy (or reset)
def closed(s):
    try:
        while True:
            if not s.recv(4096): return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
print('evicted', sum(closed(s) for s in att[:64]))
# a head trickling in, a byte every 0.3 s: closed by the head deadline, not
# the 60 s idle limit
t = conn(); t.settimeout(0.3)
head = b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Pad: ' % port + b'a' * 200
gone = False
for i in range(len(head)):
    try:
        t.sendall(head[i:i + 1])
        r, _, _ = select.select([t], [], [], 0.3)
        if r and not t.recv(4096):
            gone = True; break
    except (BrokenPipeError, ConnectionResetError):
        gone = True; break
print('trickle-closed', gone, 'after-bytes', i)
print('served-after', served())
EOS
run python3 "$TMP/attack.py" "$port" "$LT"
like "$out" 'control True' 'control: a client with the token is served'
like "$out" 'served-under-attack True' 'served while 128 tokenless connections hold or fight for slots'
like "$out" 'evicted 64' 'the oldest tokenless connections gave their slots away'
like "$out" 'trickle-closed True' 'a head trickling in is closed by the head deadline'
like "$out" 'served-after True' 'and clients are served after'
kill $PX; wait $PX
is "$?" 0 'proxy exits 0'
done_testing
