#!/bin/sh
# probe: a vector closed by a seccomp filter above the caller (a container
# runtime's profile: podman's refuses migrate_pages and move_pages to
# everyone, Docker's unshare) is closed, not unproven, and corral runs; a
# filter that refuses only the control, and lets the attack through, leaves
# it unproven. Root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/probe
H=$T/helpers
mkdir "$TMP/w"
chmod 0777 "$TMP/w"
export TMPDIR="$TMP/w"
for who in root nobody; do
	if [ $who = root ]; then as=""; else as=as_nobody; fi
	# control run: no filter above, both proven by the kernel's own answers
	run $as "$P" -r full -v
	is "$rc" 0 "$who: no filter above: full"
	like "$out" "check migrate-pages: proven \\[" "$who: no filter above: migrate-pages proven"
	unlike "$out" "closed from above" "$who: no filter above: nothing closed from above"

	run $as "$H/abovefilter" all "$P" -r full -v
	is "$rc:$err" "0:" "$who: both refused above: full, exit 0"
	like "$out" "^platform=linux tier=full" "$who: ... tier full"
	for c in migrate-pages move-pages; do
		like "$out" "check $c: closed \\[tier full\\]" "$who: $c closed from above"
	done
	like "$out" "evidence: closed from above: the caller's seccomp filter \\(Seccomp: 2, Seccomp_filters: [1-9][0-9]*\\) refuses them outside the boundary too: migrate_pages\\(parent, node 0 to none\\): EPERM; migrate_pages\\(0, node 0 to none\\): EPERM; inside: " \
	    "$who: ... the evidence: the caller's seccomp mode, the attack and the control outside"
	is "$(printf '%s\n' "$out" | grep -c ': closed \[tier')" 2 "$who: ... those two alone"
	run $as "$H/abovefilter" all "$P" -j
	like "$out" '"name":"move-pages","tier":"full","result":"closed"' "$who: json result closed"

	# only the control refused: the attack on the parent gets through above
	run $as "$H/abovefilter" control "$P" -r full -v
	is "$rc" 1 "$who: only the control refused above: exit 1"
	like "$out" "^platform=linux tier=fs\\+net" "$who: ... tier fs+net"
	for c in migrate-pages move-pages; do
		like "$out" "check $c: unproven \\[tier full\\]" "$who: $c unproven"
	done
	unlike "$out" ": closed \\[" "$who: ... nothing closed"
	like "$err" "^probe: fatal: tier fs\\+net is below the required full: check migrate-pages: migrate_pages\\(parent, node 0 to none\\): EPERM; migrate_pages\\(0, node 0 to none\\): EPERM \\(want anything but EPERM\\); not closed from above: outside the boundary migrate_pages\\(parent, node 0 to none\\): EINVAL \\(want EPERM, as the control\\)$" \
	    "$who: ... the reason: outside the boundary the attack went through"
	run $as "$H/abovefilter" control "$P" -r full -q
	is "$rc:$out" "1:" "$who: -q: still exit 1"

	# Docker's profile: unshare refused whatever the flags (userns's control)
	run $as "$H/abovefilter" docker "$P" -r full -v
	is "$rc:$err" "0:" "$who: Docker-like filter above: full, exit 0"
	like "$out" "check userns: closed \\[tier fs\\]" "$who: ... userns closed from above"
	like "$out" "evidence: closed from above: the caller's seccomp filter \\(Seccomp: 2, Seccomp_filters: [1-9][0-9]*\\) refuses them outside the boundary too: clone\\(CLONE_NEWUSER\\): EPERM; unshare\\(0\\): EPERM; unshare\\(CLONE_NEWUSER\\): EPERM; inside: " \
	    "$who: ... the attacks and the control refused outside too"
	is "$(printf '%s\n' "$out" | grep -c ': closed \[tier')" 1 "$who: ... userns alone"
	mkdir -p "$TMP/$who/ws" "$TMP/$who/home"
	[ $who = nobody ] && chown -R nobody "$TMP/$who"
	run $as sh -c "cd '$TMP/$who/ws' && exec env -i HOME='$TMP/$who/home' PATH=/usr/bin:/bin '$H/abovefilter' docker '$CORRAL_BIN/corral' run -- sh -c 'echo inside'"
	is "$rc:$out" "0:inside" "$who: Docker-like filter above: corral run works"
	is "$(ls -A "$TMP/w")" "" "$who: fixtures removed"
done
done_testing
