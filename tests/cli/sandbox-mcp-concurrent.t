#!/bin/sh
# sandbox-mcp --listen: one client's slow call holds up no other client's.
# Each tools/call runs in a worker process; a long call on one session
# (session_bash here) gives the store's lock up once it holds its session's.
# Attack: client A's session_bash waits on a file only the test writes, and
# A's session_fetch reads from a server (in a network namespace of the
# test's own) that sends its head and Content-Length, then a byte at a time
# until the test lets it go; while A's call is in flight, B's tools/list,
# session_bash and create_session are answered, A still unanswered and its
# stall still held. Control: the same sequence over stdio (one call at a
# time, as HTTP was) answers B only after A. A call on A's own session waits
# for A's (it reads what A wrote last); max_concurrent_calls refuses a call
# over it with a JSON-RPC error, and serves it once one has answered.
# Killing the server (SIGTERM, SIGKILL) leaves no worker, keeper or command.
# Every check is an order of events, never a time. Root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
SBX=$CORRAL_BIN/sandbox-mcp
DRV=$CORRAL_TOP/tests/helpers/sandbox-mcp-concurrent.py
pids=
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
waitfor() { i=0; while ! eval "$1" && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done; }
# gone PID...: none alive (a zombie is gone: under mk/suite the orphans of
# a killed server are suite-reap's to reap, at the test's end)
gone() { for p in "$@"; do case $(ps -o stat= -p "$p" 2>/dev/null) in ''|Z*) ;; *) return 1 ;; esac; done; }
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
STALL='echo $$ > pid; : > started; while [ ! -e go ]; do sleep 0.05; done; echo after > after.txt; echo done'
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"

for who in root nobody; do
D=$TMP/$who
mkdir -p "$D"
AS=
if [ "$who" = nobody ]; then
	chown nobody:nogroup "$D"
	AS=$NOBODY
fi
mem=
san_rlimit_as $AS && mem=', "max_memory_mb": 0'
echo "{\"max_concurrent_calls\": 2, \"bash_timeout_ms\": 600000$mem}" > "$D/cfg.json"
printf 'tok-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$D/lt"
chmod 0600 "$D/lt"
[ "$who" = nobody ] && chown nobody "$D/lt" "$D/cfg.json"
serve() {	# serve STORE: the server in the background ($X), its port ($P)
	rm -f "$D/url"
	(exec $AS "$SBX" --store "$1" --config "$D/cfg.json" --listen 127.0.0.1:0 --listen-token-file "$D/lt" > "$D/url" 2>>"$D/err") & X=$!
	pids="$pids $X"
	waitfor '[ -s "$D/url" ]'
	P=$(sed 's/.*:\([0-9]*\)\/mcp/\1/' "$D/url")
}

# 1. session_bash: B served while A's command runs; A's session waits; the bound
serve "$D/st"
python3 "$DRV" "$P" "$D/lt" "$D/st" bash > "$D/o" 2>&1
o() { sed -n "s/^$1 //p" "$D/o"; }
is "$(o a-started)" True "$who: A's session_bash is running"
is "$(o b-list)" True "$who: B's tools/list answered while A's call runs"
is "$(o b-bash)" hi "$who: B's session_bash (echo hi, its own session) answered while A's call runs"
is "$(o b-create)" True "$who: B's create_session answered while A's call runs"
is "$(o a-pending)" True "$who: ... and A was still unanswered then, its command still waiting"
is "$(o c-started)" True "$who: a second long call (C) runs beside A's"
like "$(o bound-refused)" '"code": -32003, "message": "sandbox-mcp: 2 tool calls are running, max_concurrent_calls: refused' \
	"$who: a third call over max_concurrent_calls (2): refused with a JSON-RPC error"
is "$(o bound-list)" True "$who: tools/list (no tool call) is answered at the bound"
is "$(o c-done)" done "$who: C answers once let go"
is "$(o bound-after)" 2 "$who: control: with one answered, the same call is served"
is "$(o a-done)" done "$who: A answers once let go"
is "$(o e-after-a)" after "$who: a call on A's session waited for A's: it read what A wrote last"
is "$(o a-current)" True "$who: each client kept its own current session"
kill $X; wait $X 2>/dev/null

# control: over stdio, calls run one at a time: B's call waits for A's
S1=$D/st-stdio
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_session","arguments":{}}}\n{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"session_bash","arguments":{"command":"%s"}}}\n{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_session","arguments":{}}}\n' \
	"$INIT" "$STALL" > "$D/in"
[ "$who" = nobody ] && chown nobody "$D/in"
(exec $AS "$SBX" --store "$S1" --config "$D/cfg.json" < "$D/in" > "$D/so" 2>>"$D/err") & Y=$!
pids="$pids $Y"
waitfor '[ -e "$S1"/sessions/*/workspace/started ]'
is "$(jq -r .id < "$D/so" | tr '\n' ' ')" "1 2 " "$who: control: over stdio, B's call (id 4) is not answered while A's (id 3) runs"
for w in "$S1"/sessions/*/workspace; do touch "$w/go"; done
wait $Y
is "$(jq -r .id < "$D/so" | tr '\n' ' ')" "1 2 3 4 " "$who: control: ... only after A's"

# 2. killing the server ends every call it runs: worker, keeper, command
for sig in TERM KILL; do
	serve "$D/st-$sig"
	python3 "$DRV" "$P" "$D/lt" "$D/st-$sig" hold > "$D/h" 2>&1
	cmd=$(sed -n 's/^pid //p' "$D/h")
	wks=$(ps -o pid= --ppid $X | tr -d ' ')
	kps=
	for w in $wks; do kps="$kps $(ps -o pid= --ppid "$w" | tr -d ' ')"; done
	like "$cmd:$(echo $wks | wc -w):$(echo $kps | wc -w)" '^[0-9]+:1:[1-9]' "$who SIG$sig: a call in flight: its command, its worker and its keeper"
	kill -$sig $X; wait $X 2>/dev/null
	waitfor "gone $cmd $wks $kps"
	gone $cmd $wks $kps; status_ok $? "$who SIG$sig: the server gone, no worker, keeper or command is left"
done
done

# 3. session_fetch from a server that trickles (root: a network namespace
# of the test's own, where 198.51.100.1 on its loopback is "public")
if ! is_root; then
	skip 'the fetch part needs unshare -n (run the suite as root)'
	done_testing; exit
fi
cat > "$TMP/stall.py" <<'PY'
import os, socket, sys, time
d = os.environ['STALL_DIR']
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('198.51.100.1', 8080)); s.listen(8)
open(d + '/stall-ready', 'w').close()
while True:
    c, _ = s.accept()
    c.recv(65536)
    open(d + '/stall-seen', 'w').close()
    try:
        # a length it never sends: then a byte at a time, under curl's stall bound
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n')
        for _ in range(999):
            if os.path.exists(d + '/let-go'):
                break
            c.sendall(b'x'); time.sleep(0.5)
    except OSError:
        pass
    c.close()
    open(d + '/stall-closed', 'w').close()
PY
cat > "$TMP/hosts" <<'H'
127.0.0.1 localhost
198.51.100.1 www.good.test
H
cat > "$TMP/ns.sh" <<'NS'
mount --bind "$TMP/hosts" /etc/hosts
ip link set lo up
ip addr add 198.51.100.1/32 dev lo
export STALL_DIR=$TMP/stall
mkdir -p "$STALL_DIR"; chmod 0777 "$STALL_DIR"
python3 "$TMP/stall.py" & 
i=0; while [ ! -e "$STALL_DIR/stall-ready" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
for who in root nobody; do
	D=$TMP/f-$who; mkdir -p "$D"; AS=
	[ $who = nobody ] && { chown nobody:nogroup "$D"; AS=$NOBODY; }
	mem=; [ $who = nobody ] && mem=$NS_MEM
	echo "{\"domain_allowlist\": [\"www.good.test\"], \"fetch_timeout_ms\": 600000$mem}" > "$D/cfg.json"
	printf 'tok-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$D/lt"; chmod 0600 "$D/lt"
	[ $who = nobody ] && chown nobody "$D/lt" "$D/cfg.json"
	rm -f "$STALL_DIR"/stall-seen "$STALL_DIR"/let-go "$STALL_DIR"/stall-closed
	(exec $AS "$SBX" --store "$D/st" --config "$D/cfg.json" --listen 127.0.0.1:0 --listen-token-file "$D/lt" > "$D/url" 2>"$D/err") & X=$!
	i=0; while [ ! -s "$D/url" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	P=$(sed 's/.*:\([0-9]*\)\/mcp/\1/' "$D/url")
	CFG=$D/cfg.json python3 "$DRV" "$P" "$D/lt" "$D/st" fetch http://www.good.test:8080/stall | sed "s/^/$who /"
	echo '{"domain_allowlist": ["www.good.test"], "fetch_timeout_ms": 600000}' > "$D/cfg.json"
	kill $X; wait $X
	# control: over stdio, one call at a time
	rm -f "$STALL_DIR"/stall-seen "$STALL_DIR"/let-go "$STALL_DIR"/stall-closed
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_session","arguments":{}}}\n{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"session_fetch","arguments":{"url":"http://www.good.test:8080/stall"}}}\n{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_session","arguments":{}}}\n' \
		"$INIT" > "$D/in"
	$AS "$SBX" --store "$D/st2" --config "$D/cfg.json" < "$D/in" > "$D/so" 2>>"$D/err" & Y=$!
	i=0; while [ ! -e "$STALL_DIR/stall-seen" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
	echo "$who stdio-while $(jq -r .id < "$D/so" | tr '\n' ' ')"
	touch "$STALL_DIR/let-go"
	wait $Y
	echo "$who stdio-after $(jq -r .id < "$D/so" | tr '\n' ' ')"
done
NS
# as above, the san build where a memory bound is RLIMIT_AS for nobody
# (tap.sh's san_rlimit_as, a function the namespace's shell does not have)
NS_MEM=
# shellcheck disable=SC2086
san_rlimit_as $NOBODY && NS_MEM=', "max_memory_mb": 0'
export TMP SBX DRV INIT NOBODY NS_MEM
unshare -n -m -p -f --kill-child --mount-proc sh -c '. "$TMP/ns.sh"' > "$TMP/ns.out" 2>"$TMP/ns.err"
for who in root nobody; do
	f() { sed -n "s/^$who $1 //p" "$TMP/ns.out"; }
	is "$(f a-fetching)" True "$who fetch: A's session_fetch is reading from the trickling server"
	is "$(f b-list)" True "$who fetch: B's tools/list answered while A's fetch runs"
	is "$(f b-bash)" hi "$who fetch: B's session_bash answered while A's fetch runs"
	is "$(f b-create)" True "$who fetch: B's create_session answered while A's fetch runs"
	is "$(f a-pending)" True "$who fetch: ... and A was still unanswered, the server still holding its connection"
	is "$(f reap-idle)" True "$who fetch: control: the idle reaper (timeout 1 s) closed B's idle session meanwhile"
	is "$(f reap-kept)" True "$who fetch: ... and not A's, whose fetch is in flight"
	like "$(f a-done)" 'www\.good\.test' "$who fetch: A answers once the server lets go"
	is "$(f stdio-while)" "1 2 " "$who fetch: control: over stdio, B's call (id 4) is not answered while A's fetch (id 3) runs"
	is "$(f stdio-after)" "1 2 3 4 " "$who fetch: control: ... only after it"
done
[ -s "$TMP/ns.err" ] && diag "$(head -5 "$TMP/ns.err")"
done_testing
