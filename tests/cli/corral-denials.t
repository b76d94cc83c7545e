#!/bin/sh
# When the boundary stops a program, the run says so (root, kernel audit
# on), and only then; as nobody, or with audit off, nothing extra.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
AS=$T/helpers/audit-set
H=$TMP/home W=$TMP/ws
mkdir -p "$H/.ssh" "$W"
echo "PRIVATE-KEY-MATERIAL" > "$H/.ssh/id_ed25519"
chmod 0755 "$H" "$W" "$TMP"
R() { (cd "$W" && env -i HOME="$H" PATH=/usr/bin:/bin XDG_STATE_HOME="$TMP/st" "$C" run "$@"); }
audit_log() { cat "$TMP"/st/corral/audit/*.jsonl 2>/dev/null; }

is_root || { diag "not root: the audit half needs CAP_AUDIT_READ and AUDIT_SET"; }
if is_root; then
	before=$("$AS" 1) || { status_ok 1 "audit-set 1 (kernel audit on for this test)"; done_testing; exit; }
	trap '"$AS" "$before" >/dev/null; rm -rf "$TMP"' EXIT
	status_ok 0 "kernel audit on for this test (it was $before)"

	run R -- sh -c "cat '$H/.ssh/id_ed25519' 2>/dev/null; exit 1"
	is "$rc" 1 "root: the status of CMD passes through"
	like "$err" "^corral: the boundary refused 1 access to programs this run started, shortly before it ended \\(status 1\\):" "root: a denial before a failure is said"
	like "$err" "corral:   read $H/.ssh/id_ed25519 \\(cat, pid [0-9]+\\)" "root: the path and the access are named"
	like "$err" "corral: hint: grant it with the policy line corral why PATH prints" "root: the ways forward"
	unlike "$out$err" "PRIVATE-KEY-MATERIAL" "root: nothing of the file is shown"
	like "$(audit_log)" "\"step\":\"denied\",\"blockers\":\"fs.read_file\",\"object\":\"$H/.ssh/id_ed25519\",\"pid\":[0-9]+,\"exe\":\"/usr/bin/cat\"" "root: the audit log holds the record"
	unlike "$(audit_log)" "PRIVATE-KEY-MATERIAL" "root: the audit log holds no contents"

	rm -rf "$TMP/st"
	run R -- sh -c 'exit 3'
	is "$rc:$err" "3:" "root: exit 3 with no denial: nothing extra"

	run R -- sh -c "sh -c 'sh -c \"cat $H/.ssh/id_ed25519\"' 2>/dev/null; exit 2"
	is "$rc" 2 "root: grandchild run: status passes through"
	like "$err" "corral:   read $H/.ssh/id_ed25519 \\(cat, pid [0-9]+\\)" "root: a grandchild's denial is named"

	run R -- sh -c "cat '$H/.ssh/id_ed25519' 2>/dev/null; exit 0"
	is "$rc:$err" "0:" "root: a denial but status 0: nothing extra"
	like "$(audit_log)" "\"object\":\"$H/.ssh/id_ed25519\"" "root: still in the audit log"

	run R -- sh -c "cat /etc/hostname >/dev/null; exit 1"
	is "$rc:$err" "1:" "root: a failure without a denial (control): nothing extra"

	# whether audit is on is asked (AUDIT_GET, whose send waits for a
	# kernel thread) from a thread of corral's, never on the way to the
	# chain's go byte, and started before it (as corral waits for
	# create), so that the answer is in by the agent's end, which
	# waited for it when the question came from the go byte on; and
	# still read: the denial above was collected. (Not in the san build: its steps, traced with -f,
	# cannot run their leak check, and corral gives them only its own
	# environment, never $untraced.)
	if [ "${CORRAL_MODE:-musl}" = san ]; then
		skip "san build: its steps cannot be traced with -f"
		skip "san build: its steps cannot be traced with -f"
		skip "san build: its steps cannot be traced with -f"
	elif command -v strace >/dev/null; then
		run sh -c "cd '$W' && exec strace -f -e trace=sendto,write,clone,clone3,execve -o '$TMP/ask' env -i HOME='$H' PATH=/usr/bin:/bin XDG_STATE_HOME='$TMP/st' '$C' run -- true"
		is "$rc" 0 "root: a run under strace"
		ask=$(sed 's/^[0-9]* *//' "$TMP/ask")
		# (the first "g" is the chain's: runfiles watch's comes after
		# the agent, and under load the thread's send may too)
		first() { printf '%s\n' "$ask" | grep -nE "$1" | head -n1 | cut -d: -f1; }
		go=$(first '^write\([0-9]+, "g", 1[) ]') asks=$(first '^clone\(.*CLONE_THREAD')
		is "$([ -n "$go" ] && [ -n "$asks" ] && [ "$asks" -lt "$go" ] && echo before)" before \
			"root: AUDIT_GET's thread starts before the chain's go byte"
		asker=$(grep -E '^[0-9]+ +sendto\(.*nlmsg_type=0x3e8' "$TMP/ask" | head -n1 | awk '{ print $1 }')
		# (a clone's "= TID" may come on a resumed line of its own)
		main=$(head -n1 "$TMP/ask" | awk '{ print $1 }')
		thr=$(grep -c 'CLONE_THREAD' "$TMP/ask")
		execs=$(grep -cE "^$asker +execve" "$TMP/ask")
		is "$([ "$asker" != "$main" ] && echo other):$([ "$thr" -gt 0 ] && echo thread):$execs" "other:thread:0" \
			"root: ... by a thread of corral's (not corral's main thread, no exec)"
	else
		skip "no strace"
		skip "no strace"
		skip "no strace"
	fi

	# as nobody: audit cannot be read; the run prints nothing extra
	mkdir -p "$TMP/stn"; chown -R nobody "$H" "$W" "$TMP/stn"
	run sh -c "cd '$W' && exec setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all env -i HOME='$H' PATH=/usr/bin:/bin XDG_STATE_HOME='$TMP/stn' '$C' run -- sh -c \"cat /root/.bashrc 2>/dev/null; exit 1\""
	is "$rc:$err" "1:" "nobody: a denial and a failure: nothing extra (audit unreadable)"
	run as_nobody env -i HOME="$H" PATH=/usr/bin:/bin "$C" doctor
	like "$out" "denials +reading audit records needs root or CAP_AUDIT_READ" "nobody: doctor names the limitation"

	# root in a pid namespace of its own (a container): audit's multicast
	# can be read, but AUDIT_GET is refused (EPERM), and that refusal is
	# the answer: corral polled again for a status that never comes, 200
	# ms of every such run (a tracer's stops cut that wait short: count
	# the polls, not the time)
	chown -R root "$H" "$W"
	if command -v strace >/dev/null && unshare -pf --mount-proc true 2>/dev/null; then
		run sh -c "cd '$W' && exec unshare -pf --mount-proc strace -e trace=poll -o '$TMP/poll' env -i $untraced HOME='$H' PATH=/usr/bin:/bin XDG_STATE_HOME='$TMP/st' '$C' run -- true"
		is "$rc" 0 "root, own pid namespace: a run under strace"
		like "$(cat "$TMP/poll")" "poll\\(\\[\\{fd=[0-9]+, events=POLLIN\\}\\], 1, 200\\) += 1" "root, own pid namespace: corral had audit's answer (a refusal)"
		is "$(grep -c ', 1, 200)' "$TMP/poll")" 1 "root, own pid namespace: ... and did not wait on for more"
	else
		skip "no strace or no pid namespace"
		skip "no strace or no pid namespace"
		skip "no strace or no pid namespace"
	fi

	# audit off: nothing recorded, doctor says how to turn it on
	"$AS" 0 >/dev/null
	chown -R root "$H" "$W"
	run R -- sh -c "cat '$H/.ssh/id_ed25519' 2>/dev/null; exit 1"
	is "$rc:$err" "1:" "root, audit off: nothing extra"
	# the answer (off) is read: no wait for a marker that never comes
	# (polls of 20 ms, up to 2 s); count the polls, not the time
	if command -v strace >/dev/null; then
		run sh -c "cd '$W' && exec strace -e trace=poll -o '$TMP/offpoll' env -i $untraced HOME='$H' PATH=/usr/bin:/bin XDG_STATE_HOME='$TMP/st' '$C' run -- sh -c 'exit 1'"
		is "$rc" 1 "root, audit off: a run under strace"
		like "$(cat "$TMP/offpoll")" "poll\\(\\[\\{fd=[0-9]+, events=POLLIN\\}\\], 1, 200\\) += 1" "root, audit off: corral had audit's answer"
		is "$(grep -c ', 1, 20)' "$TMP/offpoll")" 0 "root, audit off: and waited for no marker"
	else
		skip "no strace"
		skip "no strace"
		skip "no strace"
	fi
	run sh -c "cd '$W' && env -i HOME='$H' PATH=/usr/bin:/bin '$C' doctor"
	like "$out" "denials +kernel audit is off \\(Landlock denials are not recorded, network refusals still are; auditctl -e 1 turns it on\\)" "root, audit off: doctor says so"
else
	run as_nobody env -i HOME="$H" PATH=/usr/bin:/bin "$C" doctor
	like "$out" "denials +reading audit records needs root" "doctor names the limitation"
fi
done_testing
