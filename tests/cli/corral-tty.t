#!/bin/sh
# corral run on a real terminal: the agent's process group holds it, ^C
# reaches the agent's foreground job, ^Z stops the agent and corral as a job.
# The agent never holds the user's terminal: with stdin, stdout and stderr
# all elsewhere, /dev/tty is a pty of corral's own (nothing relayed), and
# with no terminal at all it is none (a session of its own); the fake
# "[sudo] password" prompt never reaches the user, as root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_TOP/tests/helpers/corral-pty.py
mkdir -p "$TMP/home" "$TMP/ws"
chmod 0700 "$TMP/home"
run timeout 120 python3 "$P" int "$CORRAL_BIN/corral" "$TMP/home" "$TMP/ws"
like "$out" "marker-42" "an interactive shell runs under corral on a pty"
like "$out" "alive-2" "^C interrupts the shell's foreground job, not the shell"
like "$out" "status 5$" "the shell's exit status comes back"
run timeout 120 python3 "$P" stop "$CORRAL_BIN/corral" "$TMP/home" "$TMP/ws"
like "$out" "corral stopped: True" "^Z stops the agent, and corral with it"
like "$out" "resumed-go" "SIGCONT resumes the agent, which reads the terminal again"
like "$out" "status 4$" "its status comes back"
# in a git workspace the chain is held at its gate while git-stage create
# says where the agent works: that line ends at the margin (the terminal's
# output is made raw only at the go byte, keeper --gate), and the agent runs
G=$TMP/gws
mkdir -p "$G"
(cd "$G" && echo a > a && git init -q && git add -A && git -c user.name=t -c user.email=t@x commit -qm init)
run sh -c "cd '$G' && timeout 120 script -qec \"env -i HOME='$TMP/home' PATH=/usr/bin:/bin '$CORRAL_BIN/corral' run -- sh -c 'echo agent-line'\" /dev/null </dev/null"
CR=$(printf '\r')
like "$out" "corral: git: worktree: [^$CR]*$CR\$" "git workspace on a terminal: git-stage create's line, said while the chain is held, ends with a carriage return (not a raw newline)"
like "$out" "^agent-line$CR\$" "... and the agent runs after it"
Q=$CORRAL_TOP/tests/helpers/tty-prompt.py
for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	H=$TMP/$who/home W=$TMP/$who/ws
	mkdir -p "$H" "$W"
	chmod 0700 "$H"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$TMP/$who"
	run timeout 120 $AS /usr/bin/python3 "$Q" control "$CORRAL_BIN/corral" "$H" "$W"
	like "$out" "password for user: hunter2" "$who: control: the agent's own pty shows its prompt on the user's terminal"
	like "$out" "agent: read b'hunter2.n'" "$who: control: and reads what the user types there"
	run timeout 120 $AS /usr/bin/python3 "$Q" redirected "$CORRAL_BIN/corral" "$H" "$W"
	unlike "$out" "password" "$who: all three fds redirected: the prompt never shows on the user's terminal"
	unlike "$out" "agent: read b'hunter2" "$who: all three fds redirected: the agent never reads what the user types"
	like "$out" "agent: no answer" "$who: all three fds redirected: /dev/tty opened, a terminal of its own, silent"
	run sh -c "cd '$W' && $AS setsid -w env -i HOME='$H' PATH=/usr/bin:/bin '$CORRAL_BIN/corral' run -- python3 -c 'import os; os.open(\"/dev/tty\", os.O_RDWR)' </dev/null"
	is "$rc:$(printf '%s' "$err" | tail -n 1)" "1:OSError: [Errno 6] No such device or address: '/dev/tty'" "$who: no terminal at all: /dev/tty opens nothing (a session of its own)"
done
done_testing
