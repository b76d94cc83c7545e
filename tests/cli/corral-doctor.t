#!/bin/sh
# corral doctor: probe's evidence plus what the default policy grants here.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
H=$TMP/home
mkdir -p "$H" "$TMP/ws"
chmod 0755 "$H" "$TMP/ws"

for who in root nobody; do
	if [ $who = root ]; then pre=""; else pre=as_nobody; fi
	cd "$TMP/ws"
	run $pre env -i HOME=$H PATH=/usr/bin:/bin "$C" doctor
	is "$rc" 0 "$who: doctor succeeds on this machine"
	like "$out" "^platform=linux tier=full$" "$who: probe's tier"
	like "$out" "^check fs: proven" "$who: probe's checks with their evidence"
	like "$out" "^  evidence: read unread sibling B/f: EACCES" "$who: the errno seen"
	like "$out" "required: full \\(met\\)" "$who: the tier the default policy needs"
	like "$out" "workspace \\(read-write\\) $TMP/ws$" "$who: the workspace"
	like "$out" "read \\+ execute +/usr /etc( |$)" "$who: system trees"
	like "$out" "unreachable +$H$" "$who: the real home unreachable"
	like "$out" "^  agent ptys +its own \\(openpty, forkpty, script\\): confine's broker opens the slave of a master it holds; no other terminal$" "$who: agent ptys"
	like "$out" "^  own sockets +a unix socket it binds in its write grants \\(confine's broker\\); none made outside$" "$who: own sockets"
	like "$out" "^  shared memory +the /dev/shm objects and semaphores it creates \\(confine's broker\\); not the user's others$" "$who: shared memory"
	like "$out" "corral run will start" "$who: verdict"

	run $pre env -i HOME=$H PATH=/usr/bin:/bin "$C" doctor --json
	is "$rc" 0 "$who: doctor --json succeeds"
	printf '%s' "$out" > "$TMP/d.json"
	run python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p, q = d["probe"], d["policy"]
assert p["platform"] == "linux" and p["tier"] == "full" and p["met"] is True, p
assert d["probe_status"] == 0
assert any(c["name"] == "fs" and c["result"] == "proven" for c in p["checks"])
assert q["workspace"] == sys.argv[2], q
assert "/usr" in q["exec"] and "/etc" in q["exec"], q
assert q["network"] == "open" and q["scope"] is True and q["proc"] is True and q["devices"] is True
assert q["minimum_tier"] == "full" and q["home_unreachable"] == sys.argv[3]
print("ok")' "$TMP/d.json" "$TMP/ws" "$H"
	is "$rc:$out" "0:ok" "$who: --json parsed and checked field by field"
done

cd "$H"
run env -i HOME=$H PATH=/usr/bin:/bin "$C" doctor
like "$out" "workspace +refused here: workspace $H holds your home directory" "from the home directory: says run would refuse"
run "$C" doctor --bogus
is "$rc" 2 "an unknown option: usage"
run "$C" doctor extra
is "$rc" 2 "an operand: usage"
done_testing
