#!/bin/sh
# probe: tier full proven on this machine (Landlock ABI 7), as root and as
# nobody; the verbose report; the fixtures are gone afterwards.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/probe
CHECKS="fs:fs privs:fs fds:fs proc-environ:fs tcp:fs+net signal:full abstract-unix:full unix-socket:full tiocsti:full udp:full"
mkdir "$TMP/root" "$TMP/nobody"
chown nobody "$TMP/nobody"

for who in root nobody; do
	if [ $who = root ]; then as=""; else as=as_nobody; fi
	run $as env TMPDIR="$TMP/$who" "$P"
	is "$rc" 0 "$who: exit 0"
	is "$out" "platform=linux tier=full" "$who: exactly platform=linux tier=full"
	is "$err" "" "$who: nothing on stderr"
	is "$(ls -A "$TMP/$who")" "" "$who: fixtures removed"

	run $as env TMPDIR="$TMP/$who" "$P" --verbose
	is "$rc" 0 "$who: --verbose exit 0"
	first=$(printf '%s\n' "$out" | sed -n 1p)
	is "$first" "platform=linux tier=full" "$who: verbose starts with the tier line"
	is "$(printf '%s\n' "$out" | sed -n 2,4p)" "kernel: $(uname -r)
landlock abi: 7
required: fs (met)" "$who: kernel release, ABI, requirement"
	for ct in $CHECKS; do
		c=${ct%%:*}
		is "$(printf '%s\n' "$out" | grep "^check $c: ")" "check $c: proven [tier ${ct#*:}]" "$who: check $c proven at tier ${ct#*:}"
		ev=$(printf '%s\n' "$out" | sed -n "/^check $c: /{n;n;p;}")
		like "$ev" "^  evidence: [^ ].+" "$who: check $c has evidence"
	done
	is "$(printf '%s\n' "$out" | grep -c '^check ')" 24 "$who: 24 checks"
	unlike "$out" "unproven|WRONG" "$who: nothing unproven"
	is "$(printf '%s\n' "$out" | tail -n 1)" \
	    "note: this detail stays on this machine: report only platform and tier upstream" \
	    "$who: says the detail stays here"
	like "$out" "evidence: read unread sibling B/f: EACCES; read granted A/f: ok" "$who: fs evidence is the errno"
	like "$out" "read /proc/PARENT/environ: EACCES" "$who: parent's environ denied"
	like "$out" "kill\\(parent, 0\\): EPERM" "$who: signal to the parent denied"
	like "$out" "ioctl\\(TIOCSTI\\): EPERM" "$who: TIOCSTI denied"
	is "$(ls -A "$TMP/$who")" "" "$who: fixtures removed after --verbose"
	run $as env TMPDIR="$TMP/$who" "$P" --require full
	is "$rc:$out:$err" "0:platform=linux tier=full:" "$who: --require full met"
done

# An ordinary user keeps a full bounding set it cannot empty: still proven.
run setpriv --reuid=nobody --regid=nogroup --clear-groups -- env TMPDIR="$TMP/nobody" "$P" -v
is "$rc" 0 "nobody with a full bounding set: exit 0"
like "$out" "cap_setpcap_before=0; no_new_privs=1; cap_effective=0; cap_permitted=0; cap_inheritable=0; cap_ambient_count=0; cap_bounding_count=[1-9]" \
    "... bounding set recorded, capabilities empty"

# The egress child's broker (lib/sandbox.h: serial, unnamed): its child is
# one process making one call at a time, so the broker serves it from its
# own thread and starts none, and it names no child in an audit record
# (that is for corral's confine). Control: confine's broker, around a
# program connecting to its own listener, starts its serving thread and a
# second one before that connect, and names its child.
C=$CORRAL_BIN/confine
run strace -f -qq -e trace=clone,clone3,socket,fcntl,pidfd_open -o "$TMP/st-probe" env $untraced TMPDIR="$TMP/root" "$P"
is "$rc:$out" "0:platform=linux tier=full" "under strace: still proven"
is "$(grep -c 'CLONE_THREAD' "$TMP/st-probe")" 0 "probe's broker starts no thread"
is "$(grep -c 'NETLINK_AUDIT' "$TMP/st-probe")" 0 "... and names no child to audit"
# openat, not musl's open, which adds an F_SETFD for O_CLOEXEC (the
# broker's resolv.conf and /dev/null, the children's reads); the fds
# check's own F_GETFDs show that fcntl is traced
is "$(grep -c 'F_SETFD' "$TMP/st-probe")" 0 "no F_SETFD after an open, in any of probe's processes"
is "$(grep -c 'F_GETFD' "$TMP/st-probe")" 2 "... the fds check's two F_GETFDs are seen"
# the pidfd the broker takes the listener by names the child's thread and
# serves its calls after (the first child's process_madvise attempts open
# two of their own)
is "$(grep -c 'pidfd_open(' "$TMP/st-probe")" 3 "probe's broker opens one pidfd for the listener and the calls"
run strace -f -qq -e trace=clone,clone3,socket,fcntl -o "$TMP/st-confine" "$C" \
    -x /usr -x /lib -o -x /lib64 -x /bin -r /etc -r /proc --dev --filter-ip -- /usr/bin/python3 -c '
import socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen()
socket.create_connection(l.getsockname()).close()
print("connected")'
is "$rc:$out" "0:connected" "control: confine --filter-ip, a connect to its own listener"
is "$(grep -c 'CLONE_THREAD' "$TMP/st-confine")" 2 "... its broker starts a second thread before it"
is "$(grep -c 'NETLINK_AUDIT' "$TMP/st-confine")" 1 "... and names its child to audit"
is "$(grep -c 'F_SETFD' "$TMP/st-confine")" 0 "... confine and its broker make no F_SETFD after an open"

# The egress child, the proof's long pole (its broker's child makes one
# brokered call after another), is the first child probe makes, the other
# after it. Control: the first is the egress child, the one that makes a
# process (its broker's child); the second makes none (its userns attempt
# is refused).
for who in root nobody; do
	if [ $who = root ]; then as=""; else as=as_nobody; fi
	mkdir "$TMP/order-$who"
	[ $who = root ] || chown nobody "$TMP/order-$who"
	run $as strace -ff -qq -e trace=execve,clone,fork -o "$TMP/order-$who/t" env $untraced TMPDIR="$TMP/$who" "$P"
	is "$rc:$out" "0:platform=linux tier=full" "$who: under strace -ff: still proven"
	made() {	# the pids a traced process made, in order
		grep -E '^(clone|fork)\(' "$1" | sed -nE 's/.* = ([0-9]+)$/\1/p'
	}
	parent=$(grep -l "^execve(\"$P\"" "$TMP/order-$who"/t.*)
	kids=$(made "$parent" | tr '\n' ' ')
	first=${kids%% *} rest=${kids#* }
	second=${rest%% *}
	is "$(printf '%s\n' $kids | wc -l)" 2 "$who: probe makes two children"
	is "$(made "$TMP/order-$who/t.$first" | wc -l)" 1 "$who: the first made is the egress child: it makes its broker's child"
	is "$(made "$TMP/order-$who/t.$second" | wc -l)" 0 "$who: control: the second makes none"
done

# the fixtures cannot be made: a system error, 2
run as_nobody env TMPDIR="$TMP/root" "$P"
is "$rc" 2 "unwritable TMPDIR: exit 2"
like "$err" "^probe: fatal: unable to set up the temporary directory: Permission denied$" "... says what and why"
is "$out" "" "... and prints no tier"
done_testing
