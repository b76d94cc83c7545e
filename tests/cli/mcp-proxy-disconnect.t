#!/bin/sh
# mcp-proxy: a client that goes away has its calls cancelled upstream
# (notifications/cancelled) and its slot freed at once, over a unix socket
# (a client that only shuts down its writing still gets its answers: the
# control) and over stdio (nobody reads standard output any more). The
# recording fakes show what reached the upstream.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"

cat > "$TMP/unix.py" <<'EOS'
import json, socket, sys, time
path = sys.argv[1]
INIT = b'{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
def conn():
    s = socket.socket(socket.AF_UNIX); s.settimeout(20); s.connect(path); return s
def until(s, want):
    d = b''
    try:
        while want not in d:
            c = s.recv(65536)
            if not c: break
            d += c
    except (socket.timeout, ConnectionResetError):
        pass
    return d
def served(s):
    try:
        s.sendall(b'{"jsonrpc":"2.0","id":"p","method":"ping"}\n')
    except (BrokenPipeError, ConnectionResetError):
        return False
    return b'"result"' in until(s, b'"id":"p"')
mode = sys.argv[2]
if mode == 'halfclose':
    # a call held for the handshake (the upstream answers initialize after
    # 1 s), then no more writing: the answer still comes
    s = conn(); s.sendall(INIT + b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}\n')
    s.shutdown(socket.SHUT_WR)
    print('halfclose-answered', b'"id":1,"result"' in until(s, b'"id":1,'))
    sys.exit(0)
# every slot but one held by idle clients, the last by a client with a call
# in flight that then disconnects
idle = [conn() for _ in range(63)]
print('idle-served', served(idle[0]))
c = conn(); c.sendall(INIT); until(c, b'"id":"i"')
c.sendall(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}\n')
while b'"name":"slow"' not in open(sys.argv[3], 'rb').read():
    time.sleep(0.05)
x = conn()
print('full-refused', not served(x))	# control: no slot left while the call is in flight
x.close()
c.close()
while b'notifications/cancelled' not in open(sys.argv[3], 'rb').read():
    time.sleep(0.05)
y = conn()
print('after-served', served(y))
EOS

# 1. unix socket
"$P" --listen-unix "$TMP/sock" -a slow -a echo --audit "$TMP/audit" -- "$FAKE" "$TMP/rec1" 2>"$TMP/err1" & PX=$!
pids="$pids $PX"
waitfor '[ -S "$TMP/sock" ]'
run timeout 60 python3 "$TMP/unix.py" "$TMP/sock" full "$TMP/rec1"
like "$out" 'idle-served True' 'unix: 63 idle clients, served'
like "$out" 'full-refused True' 'control: with every slot held, a new client is refused'
like "$(grep 'notifications/cancelled' "$TMP/rec1")" '"params":\{"requestId":[0-9]+,"reason":"client disconnected"\}' \
	'unix: the client that went away has its call cancelled upstream'
like "$out" 'after-served True' 'unix: its slot is free at once (the upstream never answered)'
waitfor 'grep -q cancelled "$TMP/audit"'
like "$(cat "$TMP/audit")" '"tool":"slow","outcome":"cancelled"' 'unix: audit: cancelled'
kill $PX; wait $PX
"$P" --listen-unix "$TMP/sock2" -a echo -- "$FAKE" "$TMP/rec2" slowinit 2>"$TMP/err2" & PX=$!
pids="$pids $PX"
waitfor '[ -S "$TMP/sock2" ]'
run timeout 60 python3 "$TMP/unix.py" "$TMP/sock2" halfclose
like "$out" 'halfclose-answered True' 'control: a unix client that only shut down its writing gets its answer'
unlike "$(cat "$TMP/rec2")" 'notifications/cancelled' 'control: and nothing is cancelled'
kill $PX; wait $PX

# 2. stdio: the client closes both pipes while its call is in flight
node "$FAKEH" "$TMP/hport" "$TMP/hrec" & pids="$pids $!"
hport=$(waitfile "$TMP/hport")
cat > "$TMP/stdio.py" <<'EOS'
import subprocess, sys, time
p = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={'PATH': '/usr/bin:/bin'})
p.stdin.write(b'{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'); p.stdin.flush()
p.stdout.readline()
p.stdin.write(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}\n'); p.stdin.flush()
while b'"name\\":\\"slow' not in open(sys.argv[1], 'rb').read():
    time.sleep(0.05)
p.stdin.close(); p.stdout.close()
print('exit', p.wait(timeout=int(sys.argv[2])))
EOS
run python3 "$TMP/stdio.py" "$TMP/hrec" 50 "$P" -a slow --url "http://127.0.0.1:$hport/mcp"
like "$out" 'exit 0' 'stdio: the proxy ends when its client is gone (before the 60 s timeout)'
like "$(grep 'notifications/cancelled' "$TMP/hrec")" 'requestId.*client disconnected' \
	'stdio: the call is cancelled on the HTTP upstream before the proxy ends'
done_testing
