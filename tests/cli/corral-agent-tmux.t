#!/bin/sh
# Real agents started interactively under corral run in tmux, as root and
# as nobody, each in a network namespace the test makes (loopback only).
#
# codex 0.171.0: its TUI starts its app server, which binds
# /tmp/codex-daemon-UID/HASH (HASH: the SHA-256 of the control path in its
# home, ~/.codex/app-server-control/app-server-control.sock, which it links
# there) after a lock on HASH.lock. corral has confine's broker make exactly
# that socket (--unix-bind) and grants the lock file alone: the first screen
# shows, the socket listens and is connected. The agent can make no other
# name there (the one the user's own codex would use, tried by a stand-in
# named codex; the same bind outside is the control), and nothing of it is
# left after the run.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
nmx=$("$CORRAL_TOP/mk/npm" agent-codex @openai/codex@0.171.0)
status_ok $? "codex fetched (once) from npm"
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
CTL=/.codex/app-server-control/app-server-control.sock
sha() { printf %s "$1" | sha256sum | cut -c1-64; }

# until PATTERN: wait (bounded) until window 0 shows PATTERN; 0 when it does
until_shown() {
	i=0
	while [ $i -lt 600 ]; do
		$S capture-pane -p -t t:0 >"$B/pane" 2>/dev/null
		grep -Eq -- "$1" "$B/pane" && return 0
		sleep 0.1; i=$((i + 1))
	done
	diag "window 0 never showed /$1/:"; sed 's/^/#   /' "$B/pane"
	return 1
}

# the stand-in: named codex, so corral gives it codex's socket; it binds
# that one, then the user's own codex's name, and touches the directory
cat > "$TMP/codex" <<'P'
#!/usr/bin/python3
import hashlib, os, socket, sys
d = "/tmp/codex-daemon-%d/" % os.getuid()
def name(home): return d + hashlib.sha256((home + "/.codex/app-server-control/app-server-control.sock").encode()).hexdigest()
def bind(p):
    s = socket.socket(socket.AF_UNIX)
    try: s.bind(p); s.listen(1); return s, "ok"
    except OSError as e: return None, os.strerror(e.errno)
def act(what, f):
    try: f(); return what + "=ok"
    except OSError as e: return what + "=" + os.strerror(e.errno)
print("sock=" + name(os.environ["HOME"]), file=sys.stderr)
own, r = bind(name(os.environ["HOME"])); print("own=" + r)
c = socket.socket(socket.AF_UNIX)
print(act("connect", lambda: c.connect(name(os.environ["HOME"]))))
_, r = bind(name(sys.argv[1])); print("user=" + r)
print(act("lock", lambda: open(name(os.environ["HOME"]) + ".lock", "r+").write("x")))
print(act("other", lambda: open(d + "planted", "w")))
print(act("unlink", lambda: os.unlink(name(os.environ["HOME"]) + ".lock")))
P
chmod 0755 "$TMP/codex"

suite() {
	who=$1
	B=$TMP/$who H=$B/home
	ST=$(mktemp -d /tmp/corral-t.XXXXXX)	# a state directory of a realistic length
	mkdir -p "$H" "$B/ws" "$B/bin"
	cp "$TMP/codex" "$B/bin/codex"
	if [ $who = root ]; then AS=""; else AS=$NOBODY; chown -R nobody:nogroup "$B" "$ST"; fi
	uid=$($AS id -u)
	D=/tmp/codex-daemon-$uid
	S="$AS env -i PATH=/usr/bin:/bin HOME=$H SHELL=/bin/sh TERM=xterm tmux -S $B/sock -f /dev/null"
	E="env -i PATH=$nmx/.bin:/usr/bin:/bin HOME=$H XDG_STATE_HOME=$ST TERM=xterm OPENAI_API_KEY=sk-corral-not-a-key"
	unshare -n sh -c "ip link set lo up && $S new-session -d -s t -x 120 -y 40 \"cd $B/ws; $E timeout --foreground 300 $C run -- codex; echo corral-exit-\\\$?; sleep 600\""
	until_shown 'Welcome to Codex|Sign in with'; status_ok $? "$who: codex's interactive start under corral run: its first screen"
	unlike "$(cat "$B/pane")" "did not become ready|Permission denied" "$who: ... no app server error"
	tree=$(ls -d "$ST"/corral/a??????????)
	ln=$(readlink "$tree/home$CTL")
	is "$ln" "$D/$(sha "$tree/home$CTL")" "$who: its control path links to /tmp/codex-daemon-$uid/SHA-256 of that path"
	status_ok "$([ -S "$ln" ] && [ "$(stat -c %u "$ln")" = "$uid" ]; echo $?)" "$who: ... a socket there, $who's"
	$S run-shell "ss -xa > $B/ss.txt"
	h=${ln##*/}
	like "$(grep -c "LISTEN .*$h" "$B/ss.txt")" '^[1-9]' "$who: the socket listens (in the test's network namespace)"
	like "$(grep -c "ESTAB .*$h" "$B/ss.txt")" '^[1-9]' "$who: ... and is connected"
	$S send-keys -t t:0 C-c
	sleep 1
	grep -q corral-exit "$B/pane" || $S send-keys -t t:0 C-c
	until_shown 'corral-exit-[0-9]'; status_ok $? "$who: codex ends at ^C, and corral with it"
	status_ok "$([ ! -e "$ln" ] && [ ! -e "$ln.lock" ]; echo $?)" "$who: the socket and its lock are gone after the run"
	$S kill-server

	# the stand-in under corral run, and the same binds outside (control)
	run unshare -n sh -c "ip link set lo up && cd $B/ws && $AS env -i PATH=$B/bin:/usr/bin:/bin HOME=$H XDG_STATE_HOME=$ST $C run --quiet -- codex $H"
	is "$rc:$out" "0:own=ok
connect=ok
user=Permission denied
lock=ok
other=Permission denied
unlink=Permission denied" "$who: inside, its own socket is made and connected, its lock written; the user's codex's name, another file, an unlink refused"
	sock=$(printf '%s\n' "$err" | sed -n 's/^sock=//p')
	status_ok "$([ -n "$sock" ] && [ ! -e "$sock" ] && [ ! -e "$sock.lock" ]; echo $?)" "$who: ... and its socket and lock are gone after the run"
	run $AS /usr/bin/python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1]); print('bound')" "$D/$(sha "$H$CTL")"
	is "$rc:$out" "0:bound" "$who: control: outside, the user's codex's name can be bound"
	rm -f "$D/$(sha "$H$CTL")"
	rm -rf "$ST"
}

suite root
suite nobody
done_testing
