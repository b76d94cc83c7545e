#!/bin/sh
# corral run in a real terminal (tmux): the agent gets a pty of its own;
# typing, tty, stty size, resize, ^C, ^Z and a full-screen curses program
# work through the relay; another terminal of the same user (a second tmux
# window, opened outside) is unreachable from inside, reachable outside
# (the control); the user's terminal modes come back. As root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
TUI=$CORRAL_TOP/tests/helpers/tui.py

# until PATTERN: wait (bounded) until window 0 shows PATTERN; 0 when it does
until_shown() {
	i=0
	while [ $i -lt 300 ]; do
		$S capture-pane -p -t t:0 >"$TMP/.pane" 2>/dev/null
		grep -Eq -- "$1" "$TMP/.pane" && return 0
		sleep 0.1; i=$((i + 1))
	done
	diag "window 0 never showed /$1/:"; sed 's/^/#   /' "$TMP/.pane"
	return 1
}
type_line() { $S send-keys -t t:0 -l -- "$1"; $S send-keys -t t:0 Enter; }

suite() {
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws"
	cp "$TUI" "$B/ws/tui.py"	# in the workspace: the checkout is not granted
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	S="$AS env -i PATH=/usr/bin:/bin HOME=$B/home SHELL=/bin/sh TERM=xterm tmux -S $B/sock -f /dev/null"
	$S new-session -d -s t -x 80 -y 24 "cd $B/ws; before=\$(stty -g); env -i PATH=/usr/bin:/bin HOME=$B/home TERM=xterm timeout --foreground 300 $C run -- bash --norc --noprofile -i; echo corral-exit-\$?; [ \"\$(stty -g)\" = \"\$before\" ] && echo modes-restored; sleep 600"
	$S new-window -d -t t:1 "sleep 600"
	other=$($S display -p -t t:1 '#{pane_tty}')
	mine=$($S display -p -t t:0 '#{pane_tty}')
	until_shown '[$#] ?$'; status_ok $? "$who: an interactive shell under corral run shows its prompt"

	run $AS sh -c "echo control-write > $other"
	is "$rc" 0 "$who: control: outside corral the other terminal ($other) is writable"
	type_line 'tty; stty size; echo answer-$((6*7))'
	until_shown '^answer-42'; status_ok $? "$who: typed input reaches the agent, its output comes back"
	agent_tty=$(grep '^/dev/pts/' "$TMP/.pane" | tail -1)
	like "$agent_tty" '^/dev/pts/[0-9]+$' "$who: tty names the agent's terminal"
	[ "$agent_tty" != "$mine" ] && [ "$agent_tty" != "$other" ]
	status_ok $? "$who: ... a fresh pts, neither the user's ($mine) nor the other one"
	grep -q '^24 80$' "$TMP/.pane"; status_ok $? "$who: stty size is the user's terminal's (24 80)"

	type_line "echo evil > $other || echo denied-\$((1+1)); cat $other </dev/null || echo denied-\$((2+1))"
	until_shown '^denied-3'; status_ok $? "$who: the other terminal can be neither written nor read"
	grep -q "$other: Permission denied" "$TMP/.pane"; status_ok $? "$who: ... Permission denied (Landlock)"
	grep -q '^denied-2' "$TMP/.pane"; status_ok $? "$who: ... writing to it failed"
	type_line 'echo own-$((2+2)) > $(tty) && echo own-ok; echo devtty-$((1+4)) > /dev/tty'
	until_shown '^devtty-5'; status_ok $? "$who: its own terminal is writable by name, and /dev/tty"

	$S resize-window -t t:0 -x 100 -y 30
	type_line 'stty size'
	until_shown '^30 100$'; status_ok $? "$who: a resize of the user's terminal reaches the agent's (SIGWINCH -> TIOCSWINSZ)"

	type_line 'sleep 600'
	sleep 0.5
	$S send-keys -t t:0 C-c
	type_line 'echo alive-$((1+1))'
	until_shown '^alive-2'; status_ok $? "$who: ^C interrupts the agent's foreground job, not the agent"
	type_line 'sleep 601'
	sleep 0.5
	$S send-keys -t t:0 C-z
	type_line 'jobs; echo jobs-$((3+3)); kill %1'
	until_shown '^jobs-6'; status_ok $? "$who: ^Z stops the agent's foreground job"
	grep -Eq 'Stopped +sleep 601' "$TMP/.pane"; status_ok $? "$who: ... the shell lists it as stopped"

	type_line "clear; /usr/bin/python3 tui.py"
	until_shown '^tui size 30x100'; status_ok $? "$who: a full-screen curses program starts at the terminal's size"
	$S send-keys -t t:0 x
	until_shown '^tui key x'; status_ok $? "$who: ... takes raw keys"
	$S send-keys -t t:0 C-c
	until_shown '^tui key ctrl-c'; status_ok $? "$who: ... ^C reaches it as a key in raw mode"
	$S resize-window -t t:0 -x 90 -y 20
	until_shown '^tui size 20x90'; status_ok $? "$who: ... follows a resize"
	sed -n 20p "$TMP/.pane" | grep -q '^tui bottom'; status_ok $? "$who: ... and draws on its last line"
	$S send-keys -t t:0 q
	type_line 'echo after-$((4+4))'
	until_shown '^after-8'; status_ok $? "$who: ... and gives the shell back"

	type_line 'exit 7'
	until_shown '^corral-exit-7'; status_ok $? "$who: the agent's status comes back through corral"
	until_shown '^modes-restored'; status_ok $? "$who: the user's terminal modes are restored"
	$S kill-server 2>/dev/null
}

suite root
suite nobody
done_testing
