#!/bin/sh
# confine with a broker (--filter-ip, --unix): confine's pid stays outside
# the boundary as the program's parent, so the broker is an ANCESTOR of
# every sandboxed process, as Yama's ptrace_scope 1 requires of whoever
# reads a caller's memory and takes its sockets. Found by walking
# /proc/PID/stat's ppid links from the program, a grandchild and an
# orphan (which comes back to the broker, a subreaper); the program holds
# no broker descriptor. Statuses pass through, signals sent to confine
# reach the program once, the terminal's are not doubled, a stop is seen
# by confine's parent, and the program dies with confine. Without a
# broker confine execs in place. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
H=$CORRAL_TOP/tests/helpers/confine-tree.py
PTY=$CORRAL_TOP/tests/helpers/confine-pty.py
PY=/usr/bin/python3
G="-x /usr -x /lib -o -x /lib64 -x /bin -r /etc -r /proc --dev -x $CORRAL_TOP/tests/helpers"

waitfile() {	# waitfile FILE PID: until FILE exists, while PID lives
	while [ ! -e "$1" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
}
ppid() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f2; }
state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
ancestors() {	# the pids above PID, nearest first
	a=$1
	while a=$(ppid "$a") && [ -n "$a" ] && [ "$a" -gt 0 ]; do echo "$a"; done
}
listens() {	# yes when PID holds a seccomp listener (the broker's descriptor)
	if ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'seccomp notify'; then echo yes; else echo no; fi
}
broker_of() {	# the nearest ancestor of PID holding a seccomp listener
	for a in $(ancestors "$1"); do
		[ "$(listens "$a")" = yes ] && { echo "$a"; return; }
	done
	echo none
}
field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }

suite() {	# suite WHO AS
	who=$1 AS=$2
	D=$TMP/$who
	mkdir -p "$D"
	[ "$who" = nobody ] && chown nobody:nogroup "$D"
	W="$G -W $D"

	# the tree: the program, a grandchild, an orphan
	$AS "$C" --filter-ip $W -- "$PY" "$H" tree "$D" >"$D/log" 2>&1 &
	cp=$!
	waitfile "$D/prog" $cp && waitfile "$D/gc" $cp && waitfile "$D/orph" $cp
	status_ok $? "$who: the program, its child and an orphan started"
	prog=$(cat "$D/prog") gc=$(cat "$D/gc") orph=$(cat "$D/orph")
	is "$(listens "$cp")" yes "$who: confine's pid holds the seccomp listener: it is the broker"
	is "$(field "$cp" Seccomp):$(field "$cp" NoNewPrivs)" "0:1" \
	    "$who: ... outside every seccomp filter, no_new_privs"
	if [ "$who" = root ]; then caps=0000000000080000; else caps=0000000000000000; fi
	is "$(field "$cp" CapEff)" "$caps" "$who: ... holding CAP_SYS_PTRACE at most"
	is "$(ppid "$prog")" "$cp" "$who: the program's parent is confine's pid"
	for x in prog gc orph; do
		eval p=\$$x
		is "$(broker_of "$p")" "$cp" "$who: $x: the broker is its ancestor (/proc ppid links)"
		is "$(listens "$p"):$(field "$p" Seccomp)" "no:2" \
		    "$who: $x: filtered, holds no broker descriptor"
	done
	is "$(ppid "$orph")" "$cp" "$who: the orphan came back to the broker (a subreaper), not to init"
	# control: the old layout (a broker forked off by confine, which then
	# became the program) has no listener above the program
	unlike " $(ancestors "$cp" | tr '\n' ' ') " " $prog " "$who: control: the broker is not the program's descendant"
	is "$(broker_of $$)" none "$who: control: nothing above this test holds a listener"
	: >"$D/stop"
	wait $cp
	is "$?:$(cat "$D/prog.done"):$(cat "$D/gc.done"):$(cat "$D/orph.done")" "0:ok:ok:ok" \
	    "$who: each one's brokered connect to its own listener works, exit 0"

	# without a broker confine execs in place (control)
	$AS "$C" $W -- sh -c 'echo "$$"; grep Seccomp: /proc/self/status | sed "s/.*://"' >"$D/tree" 2>&1 &
	cp=$!; wait $cp
	is "$(tr -d ' \t' <"$D/tree" | tr '\n' :)" "$cp:2:" "$who: without a broker: the same pid, filtered"

	# statuses pass through
	run $AS "$C" --filter-ip $W -- sh -c 'exit 3'
	is "$rc" 3 "$who: exit 3 passes through"
	run $AS "$C" --filter-ip $W -- sh -c 'kill -9 $$'
	is "$rc" 137 "$who: killed by SIGKILL: 137"
	run $AS "$C" --filter-ip $W -- sh -c 'kill -TERM $$'
	is "$rc" 143 "$who: killed by SIGTERM: 143"
	run $AS "$C" --filter-ip $W -- /nonexistent
	is "$rc:$err" "127:confine: fatal: unable to run /nonexistent: No such file or directory" \
	    "$who: not found: 127, confine's message"
	run $AS "$C" --filter-ip $W -- /etc/passwd
	is "$rc" 126 "$who: not executable: 126"
	run $AS "$C" --unix "$D/nosock" $W -- true
	is "$rc" 125 "$who: --unix on a missing socket: 125, confine's own"
	run $AS "$C" --filter-ip $W -- true
	is "$rc:$out:$err" "0::" "$who: success: 0, nothing said (control)"

	# a SIGTERM to confine's pid (corral forwards to it) reaches the program once
	rm -f "$D/ready"
	$AS "$C" --filter-ip $W -- "$PY" "$H" term "$D" >"$D/log" 2>&1 &
	cp=$!
	waitfile "$D/ready" $cp
	kill -TERM $cp
	wait $cp
	is "$?:$(cat "$D/log")" "7:term:forwarded again:False" \
	    "$who: SIGTERM to confine's pid: passed on once, the program's status returned"

	# on a terminal: ^C's SIGINT reaches the program from the kernel and
	# is not passed on again; one sent to confine is (control)
	run $AS "$PY" "$PTY" ready "$(printf '\003')" -- "$C" --no-scope --filter-ip $W -- "$PY" "$H" sig
	like "$out" "int:kernel term:forwarded int-again:False int2:forwarded" \
	    "$who: the terminal's ^C is not doubled; kill() to confine is passed on"

	# a stop: confine stops too (its parent sees a stopped job), SIGCONT goes on
	$AS "$C" --filter-ip $W -- sh -c 'kill -STOP $$; exit 4' &
	cp=$!
	n=0
	while [ "$(state $cp)" != T ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	is "$(state $cp)" T "$who: the program stopped itself: confine's pid is stopped too"
	kill -CONT $cp
	wait $cp
	is "$?" 4 "$who: ... SIGCONT to confine: the program goes on, its status returned"

	# PDEATHSIG: confine killed, the program dies too
	rm -f "$D/prog"
	$AS "$C" --filter-ip $W -- sh -c "echo \$\$ >$D/prog.t; mv $D/prog.t $D/prog; exec sleep 3600" &
	cp=$!
	waitfile "$D/prog" $cp
	pp=$(cat "$D/prog")
	is "$(state "$pp" | tr -d RSD)" "" "$who: the program runs while confine does (control)"
	kill -KILL $cp
	wait $cp 2>/dev/null
	n=0
	while [ -n "$(state "$pp" | tr -d Z)" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
	is "$(state "$pp" | tr -d Z)" "" "$who: confine killed: the program is killed with it"
}

suite root ""
# setpriv itself, not the as_nobody function: $! must be confine's pid
suite nobody "setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
done_testing
