#!/bin/sh
# A pty the agent makes itself is its own: /dev/ptmx opens a new pair, and
# confine's broker (--own-pty, which corral passes with the devices) opens
# the slave of a master the caller holds, through TIOCGPTPEER (glibc's
# openpty and forkpty: script(1), Python's pty, node-pty) and by its
# /dev/pts/N name (musl's openpty, Go), and the child's TIOCSCTTY works on
# it. Another terminal of the user stays unreachable, by its name, while
# holding a master of the agent's own, and through a descriptor that is no
# master; outside corral each opens (the controls). Without the broker
# (confine without --own-pty) each of the agent's own is refused, as before.
# As root and nobody, and without namespaces (tests/helpers/nonamespace).
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
CF=$CORRAL_BIN/confine
PO=$CORRAL_TOP/tests/helpers/pty-open.py
PM=$T/helpers/pty-musl
NS=$T/helpers/nonamespace
NM=$("$CORRAL_TOP/mk/npm" node-pty @lydell/node-pty@1.1.0) ||
	{ echo "Bail out! mk/npm node-pty @lydell/node-pty@1.1.0 failed"; exit 1; }
# one line: the pty's CRs gone, its number as N
flat() { printf '%s' "$1" | tr -d '\r' | sed 's#/dev/pts/[0-9]*#/dev/pts/N#' | tr '\n' ' '; }

suite() {
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws/node_modules/@lydell"
	# in the workspace: the checkout is not granted
	cp "$PO" "$B/ws/po.py"
	cp "$PM" "$B/ws/pty-musl"
	cp "$CORRAL_TOP/tests/helpers/pty-node.cjs" "$B/ws/"
	cp -r "$NM/@lydell/node-pty" "$NM/@lydell/node-pty-linux-x64" "$B/ws/node_modules/@lydell/"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	cr() { (cd "$B/ws" && $AS $E timeout 60 "$C" run -- "$@"); }
	out() { (cd "$B/ws" && $AS $E timeout 60 "$@"); }
	# confine alone, with and without the broker
	cf() { (cd "$B/ws" && $AS $E timeout 60 "$CF" -x /usr -x /lib -x /lib64 -x /bin -r /etc -r /proc -r "$B/ws" --dev "$@"); }

	run cr script -qc 'echo in-script; tty' /dev/null
	is "$rc:$(flat "$out")" "0:in-script /dev/pts/N" "$who: inside, script(1) makes a pty of its own and runs on it"
	run cr /usr/bin/python3 po.py openpty
	is "$rc:$out" "0:ok x" "$who: inside, os.openpty() (glibc: TIOCGPTPEER)"
	run cr /usr/bin/python3 po.py peer
	is "$rc:$out" "0:ok x" "$who: inside, TIOCGPTPEER on its own master"
	run cr /usr/bin/python3 po.py byname
	is "$rc:$out" "0:ok x" "$who: inside, its own slave by its /dev/pts/N name"
	run cr /usr/bin/python3 po.py forkpty
	is "$rc:$out" "0:ok pts tty" "$who: inside, pty.fork(): the child's controlling terminal (TIOCSCTTY), /dev/tty opens"
	run cr ./pty-musl openpty
	is "$rc:$out" "0:ok x" "$who: inside, musl's openpty (the slave by name)"
	run cr ./pty-musl forkpty
	is "$rc:$out" "0:ok pts tty" "$who: inside, musl's forkpty (TIOCSCTTY)"
	run cr node pty-node.cjs "$B/ws/node_modules"
	is "$rc:$(flat "$out")" "0:/dev/pts/N node-pty-ok" "$who: inside, node-pty (gemini's @lydell/node-pty) spawns a shell on its own pty"
	run cr /usr/bin/python3 po.py notmaster
	is "$rc:$out" "0:ENOTTY" "$who: inside, TIOCGPTPEER on a descriptor that is no master: ENOTTY"

	# without the broker (confine without --own-pty): refused, as before
	run cf --own-pty -- /usr/bin/python3 po.py byname
	is "$rc:$out" "0:ok x" "$who: confine --own-pty: its slave by name"
	run cf -- /usr/bin/python3 po.py byname
	is "$rc:$out" "0:EACCES" "$who: control: confine without --own-pty refuses it (EACCES)"
	run cf -- node pty-node.cjs "$B/ws/node_modules"
	is "$rc:$out" "0:spawn: forkpty(3) failed." "$who: control: node-pty without --own-pty: gemini's 'forkpty(3) failed.'"

	# another terminal of the user: a pty opened outside, held open meanwhile
	$AS /usr/bin/python3 -c 'import os, sys, time
m, s = os.openpty(); print(os.ttyname(s), flush=True); sys.stdout.close(); time.sleep(60)' > "$B/other" &
	hold=$!
	i=0; while [ ! -s "$B/other" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	other=$(cat "$B/other")
	like "$other" '^/dev/pts/[0-9]+$' "$who: another terminal of the user: $other"
	run out /usr/bin/python3 po.py open "$other"
	is "$out" "ok opened" "$who: control: outside corral it opens"
	run out /usr/bin/python3 po.py steal "$other"
	is "$out" "ok opened" "$who: control: outside corral it opens while holding a master"
	run cr /usr/bin/python3 po.py open "$other"
	is "$rc:$out" "0:EACCES" "$who: inside, it is unreachable (EACCES)"
	run cr /usr/bin/python3 po.py steal "$other"
	is "$rc:$out" "0:EACCES" "$who: inside, holding a master of its own does not reach it (EACCES)"
	run cf --own-pty -- /usr/bin/python3 po.py steal "$other"
	is "$rc:$out" "0:EACCES" "$who: confine --own-pty: nor there"
	kill $hold 2>/dev/null; wait $hold 2>/dev/null

	# no namespaces (Ubuntu 24.04, containers)
	run sh -c "cd '$B/ws' && $AS $NS $E timeout 60 '$C' run -- script -qc 'echo ns-script' /dev/null"
	is "$rc:$(flat "$out")" "0:ns-script" "$who: without namespaces, script(1) inside"
	run sh -c "cd '$B/ws' && $AS $NS $E timeout 60 '$C' run -- ./pty-musl forkpty"
	is "$rc:$out" "0:ok pts tty" "$who: without namespaces, musl's forkpty inside"
}

suite root
suite nobody
done_testing
