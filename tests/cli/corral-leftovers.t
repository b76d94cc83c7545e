#!/bin/sh
# corral run leaves nothing behind: a detached grandchild, a double fork, a
# process that ignores SIGTERM, and what runs when corral itself is killed
# with SIGKILL all end with the attempt (the keeper's sweep, and the
# attempt's cgroup where one can be made). Each with a control that shows
# the same process outliving its parent without corral. As root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
NS=$T/helpers/nonamespace
tag=$$

# alive PATTERN: is a process whose command line holds PATTERN running?
alive() { pgrep -f -- "$1" >/dev/null; }
# gone PATTERN: wait (bounded) until no such process is left; 0 when none is
gone() {
	i=0
	while alive "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	! alive "$1"
}
# seen PATTERN: wait (bounded) until such a process runs; 0 when it does
seen() {
	i=0
	while ! alive "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	alive "$1"
}
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

suite() {
	who=$1 wn=$2
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	cr() { (cd "$B/ws" && $AS $E timeout 120 "$C" run -- "$@"); }

	# the detached grandchild (setsid twice)
	m="sleep 4101.$tag$wn"
	$AS sh -c "setsid sh -c 'setsid $m & wait' &" </dev/null >/dev/null 2>&1
	status_ok "$(seen "$m"; echo $?)" "$who: control: without corral the setsid grandchild lives on"
	pkill -f -- "$m"
	m="sleep 4102.$tag$wn"
	run cr sh -c "setsid sh -c 'setsid $m & wait' & echo started"
	is "$rc:$out" "0:started" "$who: corral run returns when the command exits, the detached grandchild notwithstanding"
	status_ok "$(gone "$m"; echo $?)" "$who: ... and the detached grandchild has ended"

	# the double fork: the grandchild's parent exits at once
	m="sleep 4103.$tag$wn"
	$AS sh -c "(sh -c '$m &' &)" </dev/null >/dev/null 2>&1
	status_ok "$(seen "$m"; echo $?)" "$who: control: without corral the double-forked process lives on"
	pkill -f -- "$m"
	m="sleep 4104.$tag$wn"
	run cr sh -c "(sh -c '$m >/dev/null 2>&1 &' &); echo forked"
	is "$rc:$out" "0:forked" "$who: the double fork: corral run returns"
	status_ok "$(gone "$m"; echo $?)" "$who: ... and the double-forked process has ended"

	# a process that ignores SIGTERM, SIGINT and SIGHUP
	m="sleep 4105.$tag$wn"
	$AS sh -c "trap '' TERM INT HUP; exec $m" </dev/null >/dev/null 2>&1 &
	i=0; while ! alive "$m" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	pkill -TERM -f -- "$m"; pkill -INT -f -- "$m"; pkill -HUP -f -- "$m"; sleep 0.2
	status_ok "$(alive "$m"; echo $?)" "$who: control: it survives SIGTERM, SIGINT and SIGHUP"
	pkill -KILL -f -- "$m"
	m="sleep 4106.$tag$wn"
	run cr sh -c "setsid sh -c \"trap '' TERM INT HUP; exec $m\" >/dev/null 2>&1 & echo left"
	is "$rc:$out" "0:left" "$who: a SIGTERM-ignoring process: corral run returns"
	status_ok "$(gone "$m"; echo $?)" "$who: ... and it has ended"

	# corral killed with SIGKILL: the keeper ends the attempt
	m="sleep 4107.$tag$wn"
	rm -f "$B/ws/ready"
	(cd "$B/ws" && exec $AS $E "$C" run -- sh -c "setsid sh -c '$m' >/dev/null 2>&1 & touch ready; exec sleep 4108.$tag$wn") &
	cpid=$!
	wait_for "$B/ws/ready"
	status_ok "$(seen "$m"; echo $?)" "$who: control: the detached process runs while corral does"
	kill -KILL $cpid
	wait $cpid 2>/dev/null
	status_ok "$(gone "$m"; echo $?)" "$who: corral killed by SIGKILL: the detached process does not outlive it"
	status_ok "$(gone "sleep 4108.$tag$wn"; echo $?)" "$who: ... nor the agent"
	# the next run removes the dead corral's cgroups before anything else
	run cr true
	is "$rc" 0 "$who: the next run runs"
	if [ "$who" = root ]; then
		# named after their maker, keeper (corral's child), and locked
		# by it while it runs: none of a process that is gone is left
		# (one whose pid is no one's here but is locked: a keeper in a
		# pid namespace of its own, another test's)
		n=0
		for d in $(find /sys/fs/cgroup/unified /sys/fs/cgroup/pids -maxdepth 1 -name 'corral-[0-9]*-[0-9]*' 2>/dev/null); do
			p=${d##*/corral-}
			[ -d "/proc/${p%%-*}" ] || ! flock -n "$d" true || n=$((n + 1))
		done
		is "$n" 0 "$who: ... and no cgroup of a keeper that is gone is left"
	fi
}

# The agent cannot move itself out of the attempt's cgroup: Landlock grants
# no write under /sys/fs/cgroup (as root, where the cgroup is made).
cgroup_out() {
	B=$TMP/cg
	mkdir -p "$B/home" "$B/ws"
	cd "$B/ws"
	run env -i PATH=/usr/bin:/bin HOME=$B/home timeout 60 "$C" run -- sh -c 'grep "^0::" /proc/self/cgroup'
	like "$out" '^0::.*/corral-[0-9]+-[0-9]+-[0-9]+$' "root: the agent runs in the attempt's own cgroup v2"
	mkdir /sys/fs/cgroup/unified/corral-test-$tag
	run sh -c "echo \$\$ > /sys/fs/cgroup/unified/corral-test-$tag/cgroup.procs && grep '^0::' /proc/self/cgroup"
	is "$rc:$out" "0:0::/corral-test-$tag" "root: control: outside corral a process moves itself to another cgroup"
	run env -i PATH=/usr/bin:/bin HOME=$B/home timeout 60 "$C" run -- sh -c "echo \$\$ > /sys/fs/cgroup/unified/corral-test-$tag/cgroup.procs; echo \$\$ > /sys/fs/cgroup/unified/cgroup.procs; echo \$\$ > /sys/fs/cgroup/pids/cgroup.procs; grep '^0::' /proc/self/cgroup"
	like "$err" "corral-test-$tag/cgroup.procs: Permission denied" "root: the agent cannot move itself to another cgroup (Landlock: EACCES)"
	like "$err" "unified/cgroup.procs: Permission denied" "root: ... nor to the root cgroup"
	like "$err" "pids/cgroup.procs: Permission denied" "root: ... nor out of its cgroup v1 pids"
	like "$out" '^0::.*/corral-[0-9]+-[0-9]+-[0-9]+$' "root: ... and stays in the attempt's cgroup"
	rmdir /sys/fs/cgroup/unified/corral-test-$tag
	# where clone3 is refused (ENOSYS: old kernels, seccomp filters such as
	# tests/helpers/nonamespace's) the chain is forked and moved in through
	# cgroup.procs: still in the attempt's cgroup, and its leftovers end
	m="sleep 4109.$tag"
	run env -i PATH=/usr/bin:/bin HOME=$B/home timeout 60 "$NS" "$C" run -- sh -c "setsid sh -c 'setsid $m & wait' >/dev/null 2>&1 & grep '^0::' /proc/self/cgroup"
	like "$rc:$out" '^0:0::.*/corral-[0-9]+-[0-9]+-[0-9]+$' "root: clone3 refused (ENOSYS): the agent still runs in the attempt's own cgroup v2"
	status_ok "$(gone "$m"; echo $?)" "root: ... and its detached grandchild has ended"
	py='import ctypes; c = ctypes.CDLL(None, use_errno=True); print(ctypes.get_errno() if c.syscall(435, 0, 0) < 0 else 0)'
	run "$NS" python3 -c "$py"
	is "$out" 38 "root: control: under the helper clone3 fails with ENOSYS"
	run python3 -c "$py"
	is "$out" 22 "root: control: without it, clone3 exists (EINVAL for no arguments)"
	cd /
}

suite root 1
suite nobody 2
if [ -d /sys/fs/cgroup/unified ] && is_root; then cgroup_out; else diag "no cgroup v2 at /sys/fs/cgroup/unified here, or not root: the cgroup escape is not tested"; fi
done_testing
