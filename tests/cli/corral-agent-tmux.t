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
#
# gemini-cli 0.61.0: its shell mode (! then a command) runs the command
# through node-pty (forkpty: the agent's own pty, confine --own-pty) and
# shows its output, as it does bare (the control, in the same kind of
# namespace and terminal). Then the tmux server is killed (by its own
# socket): under corral, no process of the attempt remains (corral ends the
# tree when its terminal hangs up: SIGHUP, then kill), each seen alive
# before (the control); bare gemini's survivors, if any, are said and
# ended by pid.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
nmx=$("$CORRAL_TOP/mk/npm" agent-codex @openai/codex@0.171.0) &&
nmg=$("$CORRAL_TOP/mk/npm" agent-gemini @google/gemini-cli@0.61.0)
status_ok $? "codex and gemini-cli fetched (once) from npm"
# gemini reads its auth choice from a system settings file only where no
# directory above it is writable by others (as corral-agent-e2e.t)
GS=$CORRAL_TOP/build/agent-settings/gemini.json
if is_root && [ -n "$(p=$CORRAL_TOP; while [ "$p" != / ]; do find "$p" -maxdepth 0 -perm -0002; p=${p%/*}; p=${p:-/}; done)" ]; then
	GSD=$(mktemp -d /run/corral-tmux.XXXXXX) && GS=$GSD/gemini.json
	trap 'rm -rf "$TMP" "$GSD"' EXIT
fi
mkdir -p "${GS%/*}" && chmod 0755 "${GS%/*}" &&
printf '{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}}\n' > "$GS.$$" &&
chmod 0644 "$GS.$$" && mv -f "$GS.$$" "$GS"
status_ok $? "gemini's system settings in $GS"
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
CTL=/.codex/app-server-control/app-server-control.sock
sha() { printf %s "$1" | sha256sum | cut -c1-64; }
desc() {	# every descendant of pid $1
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do echo "$c"; desc "$c"; done
}
live() {	# pid $1 runs (a zombie has ended)
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}
alive() { n=0; for p in $1; do live "$p" && n=$((n + 1)); done; echo $n; }
left() { for p in $1; do live "$p" && printf '%s:%s ' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"; done; }

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

# gemini WHO HOW: its shell mode in tmux, bare or under corral run
gemini() {
	who=$1 how=$2
	B=$TMP/gemini-$who-$how H=$B/home
	mkdir -p "$H" "$B/ws"
	(cd "$B/ws" && git init -q)
	printf '{"read": ["%s"], "env": {"set": {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "%s", "GEMINI_API_KEY": "sk-corral-not-a-key"}}}\n' "$GS" "$GS" > "$B/policy.json"
	if [ $who = root ]; then AS=""; else AS=$NOBODY; chown -R nobody:nogroup "$B"; fi
	S="$AS env -i PATH=/usr/bin:/bin HOME=$H SHELL=/bin/sh TERM=xterm tmux -S $B/sock -f /dev/null"
	E="env -i PATH=$nmg/.bin:/usr/bin:/bin HOME=$H TERM=tmux-256color"
	case $how in
	bare) R="$E GEMINI_CLI_SYSTEM_SETTINGS_PATH=$GS GEMINI_API_KEY=sk-corral-not-a-key gemini" ;;
	corral) R="$E $C run -p $B/policy.json -- gemini" ;;
	esac
	unshare -n sh -c "ip link set lo up && $S new-session -d -s t -x 120 -y 40 \"cd $B/ws; timeout --foreground 300 $R; echo agent-exit-\\\$?; sleep 600\""
	until_shown 'Type your message'; status_ok $? "$who/$how: gemini's prompt"
	$S send-keys -t t:0 '!'
	until_shown 'shell mode enabled'; status_ok $? "$who/$how: ! turns its shell mode on"
	$S send-keys -t t:0 -l 'echo hi-$((6*7))'
	until_shown 'echo hi-'
	sleep 0.5	# keys that come too fast after the text are a paste to gemini
	$S send-keys -t t:0 Enter
	until_shown '^. +hi-42'; status_ok $? "$who/$how: !echo hi-\$((6*7)) prints hi-42 (its shell ran the command on a pty of its own)"
	unlike "$(cat "$B/pane")" 'forkpty|failed|tmux 3|\[>|\[\?[0-9;]*c' "$who/$how: ... no pty failure, no terminal answer echoed"
	pids=$(desc "$($S display -p -t t:0 '#{pane_pid}')")
	n=$(alive "$pids")
	like "$n" '^[1-9]' "$who/$how: control: $n processes run under the pane before tmux is killed"
	$S kill-server
	i=0; while [ "$(alive "$pids")" != 0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	if [ $how = corral ]; then
		is "$(alive "$pids")" 0 "$who/$how: tmux killed: no process of the attempt remains $(left "$pids")"
	elif [ "$(alive "$pids")" != 0 ]; then
		diag "$who/$how: bare gemini outlived its terminal: $(left "$pids")(ended now)"
		kill -KILL $pids 2>/dev/null
	fi
}

suite root
suite nobody
for who in root nobody; do
	gemini $who bare
	gemini $who corral
done
done_testing
