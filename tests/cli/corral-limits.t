#!/bin/sh
# The policy's "limits": a fork bomb bounded by "processes", an allocation
# bounded by "memory", "wall_seconds" ending the whole attempt with status
# 124, "open_files" and "file_size"; each with a control run without the
# limit. Small limits, every run under timeout(1), so the machine stays
# responsive. As root (cgroup v1 memory and pids here) and as nobody
# (rlimits); doctor and explain say which.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral

suite() {
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws"
	# as nobody the limit is RLIMIT_NPROC, which counts every process of
	# the user, the other tests' too (other suites run as nobody beside
	# this one): room for those, 48 more
	lim=16
	[ "$who" = nobody ] && lim=$(( $(ps -u nobody --no-headers | wc -l) + 48 ))
	echo '{"limits": {"processes": '$lim', "wall_seconds": 60}}' > "$B/procs.json"
	echo '{"limits": {"memory": "96M"}}' > "$B/mem.json"
	echo '{"limits": {"wall_seconds": 1}}' > "$B/wall.json"
	echo '{"limits": {"open_files": 64, "file_size": "4K"}}' > "$B/files.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	cr() { (cd "$B/ws" && $AS $E timeout 120 "$C" run "$@"); }
	# spawn N sleepers (those that can be), count the live ones, end
	bomb='import os, time
n = 0
for i in range(120):
    try:
        p = os.fork()
    except OSError:
        break
    if p == 0:
        time.sleep(300)
        os._exit(0)
    n += 1
print("forked=%d" % n)'

	run cr -- /usr/bin/python3 -c "$bomb"
	is "$rc:$out" "0:forked=120" "$who: control: without a limit 120 processes start (and end with the attempt)"
	run cr -p "$B/procs.json" -- /usr/bin/python3 -c "$bomb"
	n=${out#forked=}
	[ "$rc" = 0 ] && [ "$n" -lt "$lim" ] && [ "$n" -lt 120 ] 2>/dev/null
	status_ok $? "$who: with \"processes\": $lim the fork loop is bounded (forked=$n, rc=$rc)"
	[ "$rc" = 0 ] || diag "stderr: $err"
	# a recursive fork bomb: ends on its own (forks fail), neither the
	# wall clock (124) nor timeout(1) (124) had to stop it
	run cr -p "$B/procs.json" -- sh -c 'f() { f & f & wait; }; f'
	[ "$rc" -ne 124 ]
	status_ok $? "$who: a recursive fork bomb under \"processes\" ends by itself (status $rc)"
	run cr -p "$B/procs.json" -- true
	is "$rc" 0 "$who: ... and nothing of it is left to hinder the next run"

	run cr -- /usr/bin/python3 -c 'b = bytearray(300 << 20); print("allocated")'
	is "$rc:$out" "0:allocated" "$who: control: without a limit 300 MiB are allocated"
	# (the san build under RLIMIT_AS: the chain itself cannot start, so
	# a failure would prove nothing; tap.sh says why)
	if san_rlimit_as $AS; then
		skip "$who: with \"memory\": \"96M\" the 300 MiB allocation fails: san build, the memory bound is RLIMIT_AS here: ASan's shadow exceeds any bound"
	else
	run cr -p "$B/mem.json" -- /usr/bin/python3 -c 'b = bytearray(300 << 20); print("allocated")'
	[ "$rc" -ne 0 ] && [ "$out" != allocated ]
	status_ok $? "$who: with \"memory\": \"96M\" the 300 MiB allocation fails (status $rc)"
	fi

	run cr -- sh -c 'sleep 3; echo slept'
	is "$rc:$out" "0:slept" "$who: control: without a wall-clock limit the command finishes"
	run cr -p "$B/wall.json" -- sh -c 'setsid sleep 4201 & sleep 30; echo slept'
	is "$rc:$out" "124:" "$who: \"wall_seconds\": 1 ends the attempt with status 124"
	pgrep -f "sleep 4201" >/dev/null
	status_ok $((! $?)) "$who: ... and every process of it"

	run cr -p "$B/files.json" -- sh -c 'ulimit -n; ulimit -f'
	is "$rc:$(echo $out)" "0:64 8" "$who: \"open_files\" and \"file_size\" are the chain's rlimits (ulimit -f counts 512-byte blocks)"
	run cr -p "$B/files.json" -- sh -c 'head -c 8192 /dev/zero > big; echo $?; wc -c < big'
	like "$(echo $out)" "^[0-9]+ 4096$" "$who: ... a file stops at 4 KiB"

	run $AS $E "$C" doctor -p "$B/procs.json"
	if [ "$who" = root ]; then
		like "$out" "limit processes +$lim: cgroup v1 pids.max" "$who: doctor says processes go through the cgroup v1 pids controller"
	else
		like "$out" "limit processes +$lim: RLIMIT_NPROC" "$who: doctor says processes go through RLIMIT_NPROC"
	fi
	like "$out" "limit wall_seconds +60: the keeper's timer" "$who: ... and the wall clock through the keeper's timer"
	run $AS $E "$C" explain -p "$B/procs.json" -- true
	like "$out" "/keeper --processes $lim --wall-seconds 60 --pty " "$who: explain prints the limits as keeper's options, the step that applies them"
	like "$out" "/keeper --processes $lim --wall-seconds 60 --pty .*--gate 4 " "$who: ... and keeper holds confine's gate: the wall clock starts when the agent is released, not while the chain waits for the proof"
}

suite root
suite nobody

# a bad value in "limits": corral run refuses (125) with one fatal line and
# the hint, runs nothing and opens no attempt; policy check says the same (1)
B=$TMP/bad
mkdir -p "$B/home" "$B/ws"
badlim() {	# badlim JSON COL MESSAGE
	echo "{\"limits\": {$1}}" > "$B/p.json"
	run sh -c "cd $B/ws && env -i PATH=/usr/bin:/bin HOME=$B/home timeout 60 $C run -p $B/p.json -- echo ran"
	is "$rc:$out" "125:" "bad limit {$1}: corral run refuses (125), the command does not run"
	is "$err" "corral: fatal: policy $B/p.json:1:$2: $3
corral: hint: check it with: corral policy check $B/p.json" "... stderr: the one fatal line and its hint"
	run env -i PATH=/usr/bin:/bin HOME=$B/home "$C" policy check "$B/p.json"
	is "$rc:$err" "1:corral: fatal: policy $B/p.json:1:$2: $3" "... policy check: 1, the same line"
}
badlim '"memory": "12Q"' 23 '"limits.memory" must be a positive size such as 512M (K, M, G, T)'
badlim '"memory": "0"' 23 '"limits.memory" must be at least 1, not 0'
badlim '"memory": "18446744073709551616"' 23 '"limits.memory" is too large (at most 16 EiB)'
badlim '"processes": 0' 26 '"limits.processes" must be at least 1, not 0'
badlim '"processes": -1' 26 '"limits.processes" must be at least 1, not -1'
badlim '"processes": "8"' 26 '"limits.processes" must be a positive integer, not a string'
badlim '"processes": 1.5' 26 '"limits.processes" must be a positive integer, not 1.5'
badlim '"processes": 4194305' 26 '"limits.processes" must be at most 4194304 (the kernel'"'"'s largest number of processes), not 4194305'
badlim '"cpu_seconds": true' 28 '"limits.cpu_seconds" must be a positive integer, not a boolean'
badlim '"wall_seconds": 0' 29 '"limits.wall_seconds" must be at least 1, not 0'
badlim '"open_files": []' 27 '"limits.open_files" must be a positive integer, not an array'
badlim '"file_size": "99999999999T"' 26 '"limits.file_size" is too large (at most 16 EiB)'
badlim '"disk": 1' 13 'unknown key "disk" in "limits"'
is "$(ls "$B/home/.local/state/corral" 2>/dev/null | grep -c attempt)" 0 "no bad limit opened an attempt"
echo '{"limits": {"processes": 4194304, "memory": "1T"}}' > "$B/p.json"
run env -i PATH=/usr/bin:/bin HOME=$B/home "$C" policy check "$B/p.json"
is "$rc" 0 "control: the largest processes limit and a 1T memory limit are valid"

# root where no pids cgroup can be made (cgroupfs hidden in a private mount
# namespace): a process limit cannot bind root, so it is a refusal
if is_root && unshare -m true 2>/dev/null; then
	B=$TMP/root
	run unshare -m sh -c "mount -t tmpfs none /sys/fs/cgroup && cd $B/ws && env -i PATH=/usr/bin:/bin HOME=$B/home timeout 60 $C run -p $B/procs.json -- echo ran"
	is "$rc" 125 "root without a pids cgroup: a process limit is a refusal (125)"
	like "$err" 'corral: fatal: policy limit "processes" cannot be enforced on this machine' "... naming the limit"
	like "$err" 'corral: hint: ' "... with a hint"
	unlike "$out" ran "... and the command did not run"
	run unshare -m sh -c "mount -t tmpfs none /sys/fs/cgroup && cd $B/ws && env -i PATH=/usr/bin:/bin HOME=$B/home timeout 60 $C run -- echo ran"
	is "$rc:$out" "0:ran" "control: without the limit it runs there (the keeper's sweep only)"
else
	diag "not root or no mount namespace: the refusal without a pids cgroup is not tested"
fi
done_testing
