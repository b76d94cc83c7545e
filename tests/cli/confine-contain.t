#!/bin/sh
# confine, issue 11: what Landlock's scoping leaves open, closed by seccomp.
#   - other processes of the same uid: prlimit, setpriority, sched_set*,
#     ioprio_set, migrate_pages, move_pages work on the caller only (pid 0),
#     process_madvise and setns not at all: EPERM;
#   - new user namespaces: unshare/clone with CLONE_NEWUSER EPERM, clone3
#     ENOSYS (libc falls back to clone), fork/posix_spawn/threads work;
#     --userns allows them;
#   - socket families, in every network mode: AF_VSOCK, AF_ALG and netlink
#     other than NETLINK_ROUTE are refused (EACCES).
# As root and as nobody; every refusal has a control run (the same call
# without confine, or on the caller itself) that succeeds. The target is a
# process outside the boundary, of the same uid.
. "$CORRAL_TOP/tests/lib/tap.sh"
H=$T/helpers
TRY=$H/contain-try
C=$CORRAL_BIN/confine
SYS="-x /usr -x /bin -x /lib -o -x /lib64 -r /etc -r /proc --dev -x $H"

suite() {	# suite WHO AS
	who=$1 AS=$2
	# a simple command, so that $! is the sleep itself (setpriv execs it)
	if [ -n "$AS" ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- sleep 1000 &
	else
		sleep 1000 &
	fi
	tgt=$!
	# until setpriv has become sleep (as WHO): a bound on waiting, not on speed
	i=0
	while [ "$(cat /proc/$tgt/comm 2>/dev/null)" != sleep ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	c() { $AS "$C" $SYS -- "$TRY" "$@"; }
	# a process outside; each call writes back the value it already has
	for op in prlimit setprio affinity setscheduler setparam setattr ioprio migrate move-pages; do
		run $AS "$TRY" $op $tgt
		is "$out" ok "$who: control: $op on an outside process works without confine"
		run c $op $tgt
		is "$out" EPERM "$who: $op on an outside process: EPERM"
		run c $op 0
		is "$out" ok "$who: $op on itself (pid 0) works"
	done
	# (on another process the kernel wants CAP_SYS_NICE, and the target's
	# addresses: the control is on itself)
	run $AS "$TRY" madvise 0
	is "$out" ok "$who: control: process_madvise through a pidfd of itself works without confine"
	run c madvise $tgt
	is "$out" EPERM "$who: process_madvise on an outside process: EPERM"
	run c madvise 0
	is "$out" EPERM "$who: process_madvise through a pidfd of itself: EPERM too (a filter cannot see whose)"
	# groups and users: ids with no process (the kernel itself says ESRCH)
	run $AS "$TRY" setprio-pgrp 2000000000
	is "$out" ESRCH "$who: control: setpriority(PRIO_PGRP) reaches the kernel without confine"
	run c setprio-pgrp 2000000000
	is "$out" EPERM "$who: setpriority(PRIO_PGRP): EPERM"
	run c setprio-pgrp 0
	is "$out" EPERM "$who: setpriority(PRIO_PGRP, own group): EPERM (it holds processes outside)"
	run c setprio-user 2000000000
	is "$out" EPERM "$who: setpriority(PRIO_USER): EPERM"
	# glibc's and musl's setrlimit, nice, ionice, taskset on themselves
	run $AS "$C" $SYS -- sh -c 'ulimit -n 64 && ulimit -n && nice -n 3 true && ionice -c 3 true && taskset -c 0 true && echo fine'
	is "$out" "64
fine" "$who: ulimit, nice, ionice, taskset on the caller still work"
	# the target survived it all, untouched
	status_ok "$(kill -0 $tgt; echo $?)" "$who: the outside process is alive"
	is "$(awk '/^Max open files/ {print $4}' /proc/$tgt/limits)" \
	    "$(awk '/^Max open files/ {print $4}' /proc/self/limits)" "$who: ... with its limit unchanged"

	# /proc of the outside process: names, command line, status and mounts
	# visible; environment, memory, maps and open files not
	for f in cmdline status mountinfo; do
		run c read /proc/$tgt/$f
		is "$out" ok "$who: /proc/PID/$f of an outside process reads (visible by design)"
	done
	for f in environ maps; do
		run $AS "$TRY" read /proc/$tgt/$f
		is "$out" ok "$who: control: /proc/PID/$f of the outside process reads without confine"
		run c read /proc/$tgt/$f
		is "$out" EACCES "$who: /proc/PID/$f of an outside process: EACCES"
	done
	run $AS "$TRY" read /proc/$tgt/mem
	is "$out" EIO "$who: control: /proc/PID/mem opens without confine (EIO: nothing mapped at 0)"
	run c read /proc/$tgt/mem
	is "$out" EACCES "$who: /proc/PID/mem of an outside process: EACCES"
	run $AS "$TRY" readlink /proc/$tgt/fd/0
	is "$out" ok "$who: control: /proc/PID/fd/0 of the outside process resolves without confine"
	run c readlink /proc/$tgt/fd/0
	is "$out" EACCES "$who: /proc/PID/fd/0 of an outside process: EACCES"

	# user namespaces
	run $AS "$TRY" unshare-user
	is "$out" ok "$who: control: unshare(CLONE_NEWUSER) works without confine"
	run c unshare-user
	is "$out" EPERM "$who: unshare(CLONE_NEWUSER): EPERM"
	run c clone-user
	is "$out" EPERM "$who: clone(CLONE_NEWUSER): EPERM"
	run $AS "$TRY" clone3
	is "$out" ok "$who: control: clone3 works without confine"
	run c clone3
	is "$out" ENOSYS "$who: clone3: ENOSYS"
	run c clone3-user
	is "$out" ENOSYS "$who: clone3(CLONE_NEWUSER): ENOSYS"
	run c setns-user $tgt
	is "$out" EPERM "$who: setns: EPERM"
	run c unshare-none
	is "$out" ok "$who: unshare(0) works"
	for op in fork thread "spawn /bin/true"; do
		run c $op
		is "$out" ok "$who: musl $op works"
	done
	run $AS "$C" $SYS -- /usr/bin/python3 -c 'import os, subprocess, threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
pid = os.posix_spawn("/bin/true", ["true"], {}); print(os.waitpid(pid, 0)[1], subprocess.run(["/bin/true"]).returncode)'
	is "$rc.$out" "0.0 0" "$who: glibc threads, posix_spawn and fork work (clone3 falls back)"
	run $AS "$C" $SYS -- unshare -U true
	is "$rc" 1 "$who: unshare(1) -U fails"
	run $AS "$C" $SYS --userns -- "$TRY" unshare-user
	is "$out" ok "$who: --userns: unshare(CLONE_NEWUSER) works"
	run $AS "$C" $SYS --userns -- "$TRY" clone3
	is "$out" ok "$who: --userns: clone3 works"
	run $AS "$C" $SYS --userns -- "$TRY" prlimit $tgt
	is "$out" EPERM "$who: --userns: other processes stay out of reach"

	# socket families (numbers: AF_VSOCK 40, AF_NETLINK 16, AF_ALG 38,
	# AF_INET 2; NETLINK_ROUTE 0, SOCK_DIAG 4, KOBJECT_UEVENT 15, GENERIC 16)
	for s in "40 1 0 AF_VSOCK" "16 3 4 NETLINK_SOCK_DIAG" "16 3 15 NETLINK_KOBJECT_UEVENT" "16 3 16 NETLINK_GENERIC"; do
		set -- $s
		run $AS "$TRY" socket $1 $2 $3
		is "$out" ok "$who: control: socket($4) works without confine"
		for mode in "" "--connect 1" "--no-network"; do
			run $AS "$C" $SYS $mode -- "$TRY" socket $1 $2 $3
			is "$out" EACCES "$who: ${mode:-open}: socket($4): EACCES"
		done
	done
	run $AS "$C" $SYS --connect 1 -- "$TRY" socket 38 5 0
	is "$out" EACCES "$who: ports: socket(AF_ALG): EACCES"
	for mode in "" "--connect 1"; do
		run $AS "$C" $SYS $mode -- "$TRY" socket 16 3 0
		is "$out" ok "$who: ${mode:-open}: socket(AF_NETLINK, NETLINK_ROUTE) works"
		run $AS "$C" $SYS $mode -- "$TRY" socket 2 1 0
		is "$out" ok "$who: ${mode:-open}: socket(AF_INET, SOCK_STREAM) works"
	done
	run $AS "$C" $SYS --no-network -- "$TRY" socket 16 3 0
	is "$out" EACCES "$who: no-network: socket(AF_NETLINK, NETLINK_ROUTE): EACCES"
	run $AS "$C" $SYS --connect 1 -- "$TRY" socket 2 1 262
	is "$out" EACCES "$who: ports: MPTCP: EACCES"
	kill $tgt
	wait $tgt 2>/dev/null
}

suite "$(id -un)" ""
if is_root; then
	suite nobody as_nobody
else
	diag "not root: the nobody run is not covered"
fi
done_testing
