#!/bin/sh
# A pty the agent makes itself: /dev/ptmx opens a new pair, but its other
# side lives in /dev/pts beside every terminal of the user, which the agent
# is not granted (Landlock is allow-only and cannot grant "the nodes this
# process will create"). So glibc's openpty (script(1), Python's pty) and
# even TIOCGPTPEER (the kernel opens /dev/pts/N, and Landlock checks that
# open) are refused with EACCES inside corral run; outside, each works (the
# controls). Another terminal of the user stays unreachable inside,
# reachable outside. As root and nobody. corral(1) and confine(1) say so.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
PO=$CORRAL_TOP/tests/helpers/pty-open.py

suite() {
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws"
	cp "$PO" "$B/ws/po.py"	# in the workspace: the checkout is not granted
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	cr() { (cd "$B/ws" && $AS $E timeout 60 "$C" run -- "$@"); }
	out() { (cd "$B/ws" && $AS $E timeout 60 "$@"); }

	run out script -qc 'echo in-script' /dev/null
	like "$rc:$out" '^0:in-script' "$who: control: outside corral script(1) makes a pty"
	run cr script -qc 'echo in-script' /dev/null
	is "$rc:$out:$err" "1::script: failed to create pseudo-terminal: Permission denied" "$who: inside, script(1) is refused (EACCES on /dev/pts/N)"

	run out /usr/bin/python3 po.py openpty
	is "$out" "ok x" "$who: control: outside corral os.openpty() works"
	run cr /usr/bin/python3 po.py openpty
	is "$rc:$out" "0:EACCES" "$who: inside, os.openpty() is refused with EACCES"
	run out /usr/bin/python3 po.py peer
	is "$out" "ok x" "$who: control: outside corral TIOCGPTPEER gives the new pair's slave"
	run cr /usr/bin/python3 po.py peer
	is "$rc:$out" "0:EACCES" "$who: inside, TIOCGPTPEER is refused too (the kernel opens /dev/pts/N under Landlock)"

	# another terminal of the user: a pty opened outside, held open meanwhile
	$AS /usr/bin/python3 -c 'import os, sys, time
m, s = os.openpty(); print(os.ttyname(s), flush=True); sys.stdout.close(); time.sleep(60)' > "$B/other" &
	hold=$!
	i=0; while [ ! -s "$B/other" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	other=$(cat "$B/other")
	like "$other" '^/dev/pts/[0-9]+$' "$who: another terminal of the user: $other"
	run out /usr/bin/python3 po.py open "$other"
	is "$out" "ok opened" "$who: control: outside corral it opens"
	run cr /usr/bin/python3 po.py open "$other"
	is "$rc:$out" "0:EACCES" "$who: inside, it is unreachable (EACCES)"
	kill $hold 2>/dev/null; wait $hold 2>/dev/null
}

suite root
suite nobody
done_testing
