#!/bin/sh
# probe: fail closed. Landlock failing (nolandlock: the syscalls answer
# ENOSYS) is unproven, exit 1, the check named; a kernel that looks older
# (fakeabi N) proves a lower tier; --require; no flag turns a failure into a pass.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/probe
H=$T/helpers
mkdir "$TMP/w"
chmod 0777 "$TMP/w"
export TMPDIR="$TMP/w"
NOLL="probe: fatal: containment unproven: check fs: sandbox not applied: ENOSYS: Landlock is not available (filesystem rules need Landlock ABI 1; this kernel has ABI 0)
probe: hint: the kernel must enforce Landlock: CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot list; probe --verbose shows every check"

for who in root nobody; do
	if [ $who = root ]; then as=""; else as=as_nobody; fi
	run $as "$H/nolandlock" "$P"
	is "$rc" 1 "$who: no Landlock: exit 1"
	is "$out" "platform=linux tier=none" "$who: no Landlock: tier none"
	is "$err" "$NOLL" "$who: no Landlock: the fs check named, the reason, a hint"
	is "$(ls -A "$TMP/w")" "" "$who: fixtures removed"

	# no flag makes it pass
	for flags in "-q" "-v" "-j" "-r fs" "-q -r fs" "--require fs+net" "-r full"; do
		run $as "$H/nolandlock" "$P" $flags
		is "$rc" 1 "$who: no Landlock with $flags: still exit 1"
	done
	run $as "$H/nolandlock" "$P" -q
	is "$out:$err" ":$NOLL" "$who: -q: nothing on stdout, the reason on stderr"
	run $as "$H/nolandlock" "$P" -v
	is "$(printf '%s\n' "$out" | grep -c ': unproven \[tier')" 24 "$who: no Landlock: all 24 checks unproven"
	like "$out" "^landlock abi: none$" "$who: verbose shows no ABI"
	like "$out" "check fs: unproven" "$who: verbose: fs unproven"

	run $as "$H/fakeabi" 0 "$P"
	is "$rc:$out" "1:platform=linux tier=none" "$who: ABI 0 (Landlock absent): unproven"

	# ABI 3: no TCP port rules, no scoping
	run $as "$H/fakeabi" 3 "$P"
	is "$rc:$out:$err" "0:platform=linux tier=fs:" "$who: ABI 3: tier fs, exit 0 (fs required by default)"
	run $as "$H/fakeabi" 3 "$P" -v
	like "$out" "check fs: proven" "$who: ABI 3: fs proven"
	like "$out" "check tcp: unproven" "$who: ABI 3: tcp unproven"
	like "$out" "evidence: sandbox not applied: EOPNOTSUPP: TCP port rules \\(--connect\\) need Landlock ABI 4; this kernel has ABI 3" "$who: ABI 3: tcp evidence"
	like "$out" "check signal: unproven" "$who: ABI 3: signal unproven"
	like "$out" "check unix-socket: proven" "$who: ABI 3: seccomp checks still proven"
	like "$out" "^landlock abi: 3$" "$who: ABI 3 reported"
	run $as "$H/fakeabi" 3 "$P" --require fs+net
	is "$rc:$out" "1:platform=linux tier=fs" "$who: ABI 3, --require fs+net: exit 1"
	is "$err" "probe: fatal: tier fs is below the required fs+net: check tcp: sandbox not applied: EOPNOTSUPP: TCP port rules (--connect) need Landlock ABI 4; this kernel has ABI 3
probe: hint: TCP port rules need Landlock ABI 4 (Linux 6.7 or later); probe --verbose shows every check" \
	    "$who: ABI 3, --require fs+net: tcp named, with a hint"
	run $as "$H/fakeabi" 3 "$P" --require full
	is "$rc" 1 "$who: ABI 3, --require full: exit 1"
	like "$err" "^probe: fatal: tier fs is below the required full: check tcp: " "$who: ... the lowest failing check named first"
	run $as "$H/fakeabi" 3 "$P" --require fs
	is "$rc:$err" "0:" "$who: ABI 3, --require fs: met"

	# ABI 5: TCP ports, no scoping
	run $as "$H/fakeabi" 5 "$P"
	is "$rc:$out" "0:platform=linux tier=fs+net" "$who: ABI 5: tier fs+net"
	run $as "$H/fakeabi" 5 "$P" -r full
	is "$rc" 1 "$who: ABI 5, --require full: exit 1"
	like "$err" "^probe: fatal: tier fs\\+net is below the required full: check signal: sandbox not applied: EOPNOTSUPP: .*need Landlock ABI 6; this kernel has ABI 5$" "$who: ... signal named"
	like "$err" "^probe: hint: signal scoping needs Landlock ABI 6" "$who: ... with a hint"
	run $as "$H/fakeabi" 5 "$P" -r fs+net
	is "$rc" 0 "$who: ABI 5, --require fs+net: met"

	# Under fakeabi's own seccomp listener the broker cannot get one (the
	# kernel allows one per filter chain): egress stays unproven, so full
	# is not reached; every other check of full is.
	run $as "$H/fakeabi" 6 "$P" -r full -v
	is "$rc" 1 "$who: ABI 6 under another seccomp listener: full not reached"
	is "$(printf '%s\n' "$out" | grep ': unproven \[tier' | cut -d: -f1)" "check egress" \
	    "$who: ... egress alone unproven (the broker's listener)"
	is "$(ls -A "$TMP/w")" "" "$who: fixtures removed after every run"
done
done_testing
