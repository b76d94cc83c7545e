#!/bin/sh
# keeper: the program's status (128+N, 124 on the wall clock), every process
# of the attempt ended (setsid, double fork, a SIGTERM-ignoring daemon, and
# when keeper's parent is killed), the limits (cgroup as root, rlimits as
# nobody), a cgroup given, --pid-fd, --chdir, --gate, its refusals. Each with a
# control. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
K=$CORRAL_BIN/keeper
tag=$$

alive() { pgrep -f -- "$1" >/dev/null; }
gone() {
	i=0
	while alive "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	! alive "$1"
}
seen() {
	i=0
	while ! alive "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	alive "$1"
}

# wait (bounded) for line $2 in file $1
wait_line() {
	i=0
	while ! grep -qx "$2" "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
# keeper (pid $1) in poll(2): "none" with no timeout (-1), "timed" with one
poll_tmo() {
	i=0
	while [ $i -lt 300 ]; do
		sc=$(cat /proc/$1/syscall 2>/dev/null)
		case "$sc" in
		"7 "*)
			set -- $sc
			# poll's timeout is an int: -1 whatever the register's
			# upper half (musl sign-extends it, glibc does not)
			case "$4" in 0xffffffff|0xffffffffffffffff) echo none ;; *) echo timed ;; esac
			return ;;
		esac
		sleep 0.1
		i=$((i + 1))
	done
	echo "not in poll"
}

suite() {
	who=$1 wn=$2
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/d"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	k() { $AS timeout 60 "$K" "$@"; }

	run k -- sh -c 'echo out; echo err >&2; exit 7'
	is "$rc:$out:$err" "7:out:err" "$who: the program's status and output pass through"
	run k -- sh -c 'kill -TERM $$'
	is "$rc" 143 "$who: killed by SIGTERM: 128+15"
	run k -- /nonexistent/prog
	is "$rc" 127 "$who: not found: 127"
	like "$err" "^keeper: fatal: unable to run /nonexistent/prog" "$who: ... said so"
	run k -- "$B/d"
	is "$rc" 126 "$who: not executable: 126"

	# leftovers: each with a control that outlives its parent without keeper
	m="sleep 4301.$tag$wn"
	$AS sh -c "setsid sh -c 'setsid $m & wait' &" </dev/null >/dev/null 2>&1
	status_ok "$(seen "$m"; echo $?)" "$who: control: without keeper the setsid grandchild lives on"
	pkill -f -- "$m"
	m="sleep 4302.$tag$wn"
	run k -- sh -c "setsid sh -c 'setsid $m & wait' >/dev/null 2>&1 & (sh -c 'sleep 4303.$tag$wn &' &); echo started"
	is "$rc:$out" "0:started" "$who: keeper returns when the program exits"
	status_ok "$(gone "$m"; echo $?)" "$who: ... the detached grandchild has ended"
	status_ok "$(gone "sleep 4303.$tag$wn"; echo $?)" "$who: ... and the double-forked one"
	m="sleep 4304.$tag$wn"
	run k -- sh -c "setsid sh -c \"trap '' TERM INT HUP; exec $m\" >/dev/null 2>&1 & echo left"
	is "$rc:$out" "0:left" "$who: a SIGTERM-ignoring daemon left behind"
	status_ok "$(gone "$m"; echo $?)" "$who: ... has ended"

	# the wall clock: 124, the whole tree
	run k --wall-seconds 0.5 -- sh -c "setsid sleep 4305.$tag$wn & sleep 30; echo slept"
	is "$rc:$out" "124:" "$who: --wall-seconds 0.5: status 124, the program did not finish"
	status_ok "$(gone "sleep 4305.$tag$wn"; echo $?)" "$who: ... and its detached child ended"
	run k --wall-seconds 30 -- sh -c 'sleep 0.2; echo slept'
	is "$rc:$out" "0:slept" "$who: control: within the wall clock it finishes"

	# signals go to the program
	rm -f "$B/ready"
	(exec $AS "$K" -- sh -c "trap 'echo got-term; exit 9' TERM; touch $B/ready; while :; do sleep 0.1; done" > "$B/sig.out") &
	kp=$!
	i=0; while [ ! -e "$B/ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -TERM $kp
	wait $kp
	is "$?:$(cat "$B/sig.out")" "9:got-term" "$who: SIGTERM to keeper reaches the program"

	# keeper's parent killed: the attempt ends with it
	m="sleep 4306.$tag$wn"
	rm -f "$B/ready"
	$AS sh -c "\"$K\" -- sh -c 'setsid $m >/dev/null 2>&1 & touch $B/ready; exec sleep 4307.$tag$wn'; echo never" </dev/null >/dev/null 2>&1 &
	sp=$!
	i=0; while [ ! -e "$B/ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	status_ok "$(seen "$m"; echo $?)" "$who: control: the detached process runs while keeper does"
	kill -KILL $sp
	wait $sp 2>/dev/null
	status_ok "$(gone "$m"; echo $?)" "$who: keeper's parent killed by SIGKILL: the detached process ends"
	status_ok "$(gone "sleep 4307.$tag$wn"; echo $?)" "$who: ... and the program"

	# limits
	bomb='import os, time
n = 0
for i in range(60):
    try:
        p = os.fork()
    except OSError:
        break
    if p == 0:
        time.sleep(300)
        os._exit(0)
    n += 1
print("forked=%d" % n)'
	lim=16
	[ "$who" = nobody ] && lim=$(( $(ps -u nobody --no-headers | wc -l) + 24 ))
	run k -- python3 -c "$bomb"
	is "$rc:$out" "0:forked=60" "$who: control: without --processes 60 processes start"
	run k --processes $lim -- python3 -c "$bomb"
	n=${out#forked=}
	[ "$rc" = 0 ] && [ "$n" -lt "$lim" ] 2>/dev/null
	status_ok $? "$who: --processes $lim bounds the fork loop (forked=$n, rc=$rc)"
	# a recursive fork bomb, bounded: keeper returns and none of it is
	# left, also when keeper's parent is killed while it runs
	bomb=": bomb$tag$wn; f() { f | f & }; f; sleep 2; echo bombed"
	run k --processes $lim --wall-seconds 20 -- sh -c "$bomb"
	# (dash gives up at a refused fork: as nobody, whose other processes
	# count too, it may end there rather than print)
	like "$out$err" "bombed|fork" "$who: control: the fork bomb ran under --processes $lim"
	status_ok "$(gone "bomb$tag$wn"; echo $?)" "$who: a fork bomb under --processes $lim: keeper returned (status $rc), none of it left"
	rm -f "$B/ready"
	$AS sh -c "\"$K\" --processes $lim -- sh -c ': bomb2$tag$wn; touch $B/ready; f() { f | f & }; f; sleep 100'; echo never" </dev/null >/dev/null 2>&1 &
	sp=$!
	i=0; while [ ! -e "$B/ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL $sp 2>/dev/null	# (gone already when dash gave up at a refused fork)
	wait $sp 2>/dev/null
	status_ok "$(gone "bomb2$tag$wn"; echo $?)" "$who: keeper's parent killed during a fork bomb: none of it left"
	run k -- python3 -c 'b = bytearray(200 << 20); print("allocated")'
	is "$rc:$out" "0:allocated" "$who: control: without --memory 200 MiB are allocated"
	run k --memory 64M -- python3 -c 'b = bytearray(200 << 20); print("allocated")'
	[ "$rc" -ne 0 ] && [ "$out" != allocated ]
	status_ok $? "$who: --memory 64M: the 200 MiB allocation fails (status $rc)"
	run k --open-files 64 --file-size 4K --cpu-seconds 30 -- sh -c 'ulimit -n; ulimit -f; ulimit -t'
	is "$rc:$(echo $out)" "0:64 8 30" "$who: --open-files, --file-size and --cpu-seconds are the program's rlimits"
	if [ "$who" = root ]; then
		run k -- sh -c 'grep "^0::" /proc/self/cgroup'
		like "$out" '^0::.*/corral-[0-9]+-[0-9]+-[0-9]+$' "$who: the program runs in a cgroup v2 of its own"
		cg=${out#0::}
		left=$(find /sys/fs/cgroup -maxdepth 3 -type d -path "*$cg" 2>/dev/null)
		is "$left" "" "$who: ... removed after"
	fi

	# --pid-fd and --chdir
	run sh -c "$AS \"$K\" --pid-fd 5 -- sh -c 'echo \$\$; ls -l /proc/self/fd/ | grep -c \" 5 ->\"' 5>\"$B/pid\""
	is "$out" "$(cat "$B/pid")
0" "$who: --pid-fd writes the program's pid, and the program does not hold the descriptor"
	run k --chdir "$B/d" -- pwd
	is "$rc:$out" "0:$B/d" "$who: --chdir: the program starts there"
	ln -sfn "$B/d" "$B/link"
	run k --chdir "$B/link" -- pwd
	is "$rc" 125 "$who: --chdir through a symbolic link: refused (125)"
	like "$err" "keeper: fatal: unable to enter $B/link" "$who: ... said so"

	# --gate: keeper holds the program's gate (confine --gate) and the
	# wall clock starts when it passes the go byte on, not while the
	# program is held there. An order of events: keeper's poll(2) has no
	# timeout while the program is held (it said so, then waits on its
	# gate), a timeout once the program has its go byte (it said so);
	# control: without --gate (the program reads the caller's pipe
	# itself) the clock runs from the start, held or not.
	for mode in gate nogate; do
		rm -f "$B/gate" "$B/wg.out"
		mkfifo "$B/gate"
		opt=""
		[ $mode = gate ] && opt="--gate 3"
		(exec $AS "$K" --wall-seconds 600 $opt -- sh -c "echo held; head -c1 <&3 >/dev/null; echo ran; exec sleep 4307.$tag$wn" 3<"$B/gate" > "$B/wg.out") &
		kp=$!
		exec 7>"$B/gate"
		held=$(wait_line "$B/wg.out" held; poll_tmo $kp)
		printf g >&7
		ran=$(wait_line "$B/wg.out" ran; poll_tmo $kp)
		exec 7>&-
		kill -TERM $kp
		wait $kp
		wrc=$?
		if [ $mode = gate ]; then
			is "$held" "none" "$who: --gate: while the program is held at its gate, keeper waits with no wall clock"
			is "$ran" "timed" "$who: ... once the go byte is in (the program ran), the clock runs"
		else
			is "$held:$ran" "timed:timed" "$who: control: without --gate the clock runs while the program is held"
		fi
		is "$wrc:$(cat "$B/wg.out" | tr '\n' ' ')" "143:held ran " "$who: ... ($mode) the program ran after its gate, SIGTERM ended it"
	done
	# 'r' before the go byte (confine's: the paths it opens exist now)
	# is passed on and starts nothing: once the program has it keeper
	# still waits with no clock, and the go byte after it, on the same
	# gate, starts the clock
	rm -f "$B/gate" "$B/wg.out"
	mkfifo "$B/gate"
	(exec $AS "$K" --wall-seconds 600 --gate 3 -- sh -c "echo held; echo \$(head -c1 <&3); head -c1 <&3 >/dev/null; echo ran; exec sleep 4307.$tag$wn" 3<"$B/gate" > "$B/wg.out") &
	kp=$!
	exec 7>"$B/gate"
	wait_line "$B/wg.out" held
	printf r >&7
	ready=$(wait_line "$B/wg.out" r; poll_tmo $kp)
	# in a subshell: a keeper that closed its gate on 'r' would have it
	# end by SIGPIPE, not this test
	(printf g >&7) 2>/dev/null
	ran=$(wait_line "$B/wg.out" ran; poll_tmo $kp)
	exec 7>&-
	kill -TERM $kp
	wait $kp
	wrc=$?
	is "$ready:$ran" "none:timed" "$who: --gate: 'r' passed on starts no clock, the go byte after it does"
	is "$wrc:$(cat "$B/wg.out" | tr '\n' ' ')" "143:held r ran " "$who: ... the program read 'r', then the go byte, on its gate"
	rm -f "$B/gate"
	run sh -c "printf g | $AS \"$K\" --gate 3 -- sh -c 'head -c1 <&3; [ \$(readlink /proc/\$\$/fd/3) != \$(readlink /proc/\$\$/fd/0) ] && echo \" another pipe\"' 3<&0"
	is "$rc:$out" "0:g another pipe" "$who: --gate: the program gets the go byte on its FD, keeper's pipe, not the caller's (its stdin here)"
	run sh -c ": | $AS \"$K\" --gate 3 -- sh -c 'echo \$(head -c1 <&3 | wc -c)' 3<&0"
	is "$rc:$out" "0:0" "$who: --gate: the caller closes it without a byte: the program reads EOF"
	# a program that no longer reads its gate (it closed it, or ended
	# with the byte on the way): keeper's go byte goes nowhere, and
	# keeper goes on to the program's status, not killed by SIGPIPE
	# (141: its terminal left raw, the program killed with it). An order
	# of events: the byte is written once the program has closed its
	# gate, the program ends once keeper has closed its own (it passed
	# the byte on); control: a program that reads it.
	for mode in closed read; do
		rm -f "$B/gate" "$B/wg.out" "$B/after"
		mkfifo "$B/gate"
		shut="exec 3<&-"
		[ $mode = read ] && shut="head -c1 <&3 >/dev/null"
		(exec $AS "$K" --gate 3 -- sh -c "echo held; $shut; echo shut; while [ ! -e '$B/after' ]; do sleep 0.05; done; echo ran; exit 7" 3<"$B/gate" > "$B/wg.out") &
		kp=$!
		exec 7>"$B/gate"
		wait_line "$B/wg.out" held
		[ $mode = closed ] && wait_line "$B/wg.out" shut
		printf g >&7
		i=0
		while ls -l /proc/$kp/fd 2>/dev/null | grep -q " -> $B/gate\$" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		: > "$B/after"
		exec 7>&-
		wait $kp
		wrc=$?
		is "$wrc:$(cat "$B/wg.out" | tr '\n' ' ')" "7:held shut ran " "$who: --gate, a program that ${mode} its gate: the go byte passed on or dropped, the program's status, keeper not ended by SIGPIPE"
	done
	rm -f "$B/gate" "$B/after"
	run sh -c "$AS \"$K\" --wall-seconds 1 --gate 3 -- echo ran 3<\"$B/d\""
	is "$rc:$out" "125:" "$who: --gate on a directory, not a pipe's read end: refused (125), nothing run"
	like "$err" "keeper: fatal: --gate 3: not the read end of a pipe" "$who: ... said so"
}

suite root 1
suite nobody 2

# --pty --gate: while the program is held the user's terminal takes keys
# raw but still processes what is written to it (a line said meanwhile, by
# corral or git-stage create, starts at the margin), its output goes raw as
# the go byte is passed on, and all is restored at the end; control:
# without --gate it is raw from the start. In a terminal of script(1)'s.
cat > "$TMP/tty.sh" <<'EOF'
K=$1 D=$2
mode() { stty -a | tr ' ' '\n' | grep -Ex -- '-?(icanon|opost)' | tr '\n' ','; }
rm -f "$D/tf" "$D/ran"
mkfifo "$D/tf"
opt=
[ "$3" = gate ] && opt="--gate 3"
"$K" --pty $opt -- sh -c "head -c1 <&3 >/dev/null; : > '$D/ran'; exec sleep 30" 3<"$D/tf" </dev/tty &
kp=$!
exec 7>"$D/tf"
i=0
while [ -z "$(pgrep -P $kp)" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
echo "held=$(mode)"
printf g >&7
exec 7>&-
i=0
while [ ! -e "$D/ran" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
echo "ran=$(mode)"
kill -TERM $kp
wait $kp
echo "after=$(mode)"
EOF
# a terminal of script(1)'s (bsdutils, as corral-tty.t and confine-ctty.t use it)
for m in gate nogate; do
	# (what script's input, at its end, may echo first is cut off)
	out=$(timeout 60 script -qec "sh '$TMP/tty.sh' '$K' '$TMP' $m" /dev/null </dev/null | tr -d '\r' | tr '\n' ' ' |
	    sed 's/^.*held=/held=/')
	if [ $m = gate ]; then
		is "$out" "held=opost,-icanon, ran=-opost,-icanon, after=opost,icanon, " "--pty --gate: held, the terminal's keys raw, its output processed; raw once the program runs; restored"
	else
		is "$out" "held=-opost,-icanon, ran=-opost,-icanon, after=opost,icanon, " "control: --pty without --gate: raw from the start; restored"
	fi
done

# --pty --gate, a program that closed its gate before the go byte came:
# keeper passes it nowhere and goes on (not ended by SIGPIPE, which left
# the user's terminal raw and keeper's status 141); the terminal restored,
# the program's status. Control: a program that reads it.
cat > "$TMP/ttyshut.sh" <<'EOF'
K=$1 D=$2
mode() { stty -a | tr ' ' '\n' | grep -Ex -- '-?(icanon|opost)' | tr '\n' ','; }
rm -f "$D/tf" "$D/shut" "$D/after"
mkfifo "$D/tf"
shut="exec 3<&-"
[ "$3" = read ] && shut="head -c1 <&3 >/dev/null"
"$K" --pty --gate 3 -- sh -c "$shut; : > '$D/shut'; while [ ! -e '$D/after' ]; do sleep 0.05; done; exit 7" 3<"$D/tf" </dev/tty &
kp=$!
exec 7>"$D/tf"
i=0
while [ -z "$(pgrep -P $kp)" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
i=0
while [ "$3" != read ] && [ ! -e "$D/shut" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
printf g >&7
i=0
while ls -l /proc/$kp/fd 2>/dev/null | grep -q " -> $D/tf\$" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
: > "$D/after"
exec 7>&-
wait $kp
echo "rc=$? after=$(mode)"
EOF
for m in closed read; do
	out=$(timeout 60 script -qec "sh '$TMP/ttyshut.sh' '$K' '$TMP' $m" /dev/null </dev/null | tr -d '\r' | grep -o 'rc=.*')
	is "$out" "rc=7 after=opost,icanon," "--pty --gate, a program that ${m} its gate: its status, the terminal restored (not left raw by a SIGPIPE)"
done

# refusals: one fatal line, 125, nothing run
for a in "--memory 0" "--memory 12Q" "--processes 0" "--processes 4194305" "--wall-seconds 0" \
    "--wall-seconds 1.2345" "--wall-seconds -1" "--open-files x" "--allow-osc 70000" "--pid-fd 1" \
    "--chdir rel" "--cgroup rel"; do
	run "$K" $a -- echo ran
	is "$rc:$out" "125:" "keeper $a: refused (125), nothing run"
	like "$err" "^keeper: fatal: ${a%% *} " "keeper $a: one fatal line naming the option"
done
run "$K" --bogus
is "$rc" 125 "an unknown option: 125"
run "$K"
is "$rc" 125 "no program: 125"

# a cgroup given: the program is born there, it is emptied, not removed
if is_root && [ -w /sys/fs/cgroup/unified/cgroup.procs ]; then
	G=/sys/fs/cgroup/unified/keeper-test-$tag
	mkdir "$G"
	run "$K" --cgroup "$G" -- sh -c "setsid sleep 4308.$tag & grep '^0::' /proc/self/cgroup"
	is "$rc:$out" "0:0::/keeper-test-$tag" "--cgroup DIR: the program runs in the cgroup given"
	is "$(cat "$G/cgroup.procs")" "" "... everything in it has ended"
	status_ok "$([ -d "$G" ]; echo $?)" "... and it is still there"
	run "$K" --cgroup "$G" --memory 64M -- echo ran
	is "$rc:$out" "125:" "--cgroup without a memory controller, --memory: refused"
	like "$err" 'keeper: fatal: limit "memory": the cgroup given has no memory controller' "... said so"
	rmdir "$G"
	run "$K" --cgroup "$G" -- echo ran
	is "$rc:$out" "125:" "--cgroup that is not there: refused"
	like "$err" "keeper: fatal: unable to take the cgroup $G" "... said so"
else
	diag "not root or no cgroup v2 at /sys/fs/cgroup/unified: --cgroup is not tested"
fi
done_testing
