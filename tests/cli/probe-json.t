#!/bin/sh
# probe --json: one object, parsed and checked field by field, here (full)
# and on a kernel made to look like ABI 3 (fs).
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/probe
H=$T/helpers
VERSION=$(sed -n 's/.*CORRAL_VERSION "\(.*\)"/\1/p' "$CORRAL_TOP/lib/version.h")

# check.py FILE TIER REQUIRED FAILING ABI UNPROVEN...: prints one line per
# field checked, "ok FIELD" or "bad FIELD: got ...", nothing else.
cat >"$TMP/check.py" <<'PY'
import json, sys
f, tier, required, failing, abi, kernel, version = sys.argv[1:8]
unproven = set(sys.argv[8:])
raw = open(f).read()
def say(ok, what, got=None):
    print(("ok " if ok else "bad ") + what + ("" if ok else ": got %r" % (got,)))
say(raw.endswith("}\n") and raw.count("\n") == 1, "one line", raw[-20:])
def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)
o = json.loads(raw, object_pairs_hook=no_dups)
say(isinstance(o, dict), "an object")
want_keys = ["platform", "tier", "required", "met", "failing", "kernel",
             "landlock_abi", "version", "note", "checks"]
say(list(o) == want_keys, "keys in order", list(o))
say(o["platform"] == "linux", "platform", o["platform"])
say(o["tier"] == tier, "tier", o["tier"])
say(o["required"] == required, "required", o["required"])
say(o["met"] is (failing == "null"), "met", o["met"])
say(o["failing"] == (None if failing == "null" else failing), "failing", o["failing"])
say(o["kernel"] == kernel, "kernel", o["kernel"])
say(type(o["landlock_abi"]) is int and o["landlock_abi"] == int(abi), "landlock_abi", o["landlock_abi"])
say(o["version"] == version, "version", o["version"])
say("stays on this machine" in o["note"], "note", o["note"])
names = ["fs", "privs", "fds", "proc-environ", "proc-others", "userns", "tcp",
         "signal", "abstract-unix", "unix-socket", "tiocsti", "udp",
         "prlimit", "setpriority", "sched-affinity", "sched-scheduler",
         "sched-param", "sched-attr", "ioprio", "migrate-pages", "move-pages",
         "process-madvise", "socket-families", "egress"]
tiers = ["fs"] * 6 + ["fs+net"] + ["full"] * 17
cs = o["checks"]
say([c["name"] for c in cs] == names, "check names in order", [c["name"] for c in cs])
say([c["tier"] for c in cs] == tiers, "check tiers", [c["tier"] for c in cs])
for c in cs:
    n = c["name"]
    say(list(c) == ["name", "tier", "result", "proves", "evidence", "attempts"], n + " keys", list(c))
    want = "unproven" if n in unproven else "proven"
    say(c["result"] == want, n + " result " + want, c["result"])
    say(isinstance(c["proves"], str) and len(c["proves"]) > 10, n + " proves", c["proves"])
    say(isinstance(c["evidence"], str) and c["evidence"] != "", n + " evidence", c["evidence"])
    if want == "proven":
        a = c["attempts"]
        say(len(a) > 0 and all(list(x) == ["what", "got", "want", "ok"] and x["ok"] is True for x in a),
            n + " attempts all ok", a)
        say(all((x["got"] == x["want"]) or x["want"] in ("any",) or x["want"].startswith("0 when") or (x["want"].startswith("anything but ") and x["got"] != x["want"][13:]) or " or " in x["want"] for x in a),
            n + " got is want", a)
    else:
        say(c["attempts"] == [] or any(x["ok"] is False for x in c["attempts"]), n + " attempts show the failure", c["attempts"])
if "fs" not in unproven:
    fs = cs[0]["attempts"]
    say(fs[0]["got"] == "EACCES" and fs[1]["got"] == "ok", "fs: B EACCES, A ok", fs)
PY

for who in root nobody; do
	if [ $who = root ]; then as=""; else as=as_nobody; fi
	run $as "$P" --json
	is "$rc:$err" "0:" "$who: --json exit 0, nothing on stderr"
	printf '%s\n' "$out" >"$TMP/o.json"
	r=$(python3 "$TMP/check.py" "$TMP/o.json" full fs null 7 "$(uname -r)" "$VERSION" 2>&1)
	is "$(printf '%s\n' "$r" | grep -v '^ok ')" "" "$who: every field as it must be"
	is "$(printf '%s\n' "$r" | grep -c '^ok ')" 159 "$who: 159 fields checked"

	run $as "$P" --json --require full
	printf '%s\n' "$out" >"$TMP/o.json"
	r=$(python3 "$TMP/check.py" "$TMP/o.json" full full null 7 "$(uname -r)" "$VERSION" 2>&1)
	is "$rc:$(printf '%s\n' "$r" | grep -v '^ok ')" "0:" "$who: --require full recorded"

	run $as "$H/fakeabi" 3 "$P" -j -r full
	is "$rc" 1 "$who: ABI 3 --json --require full: exit 1"
	like "$err" "^probe: fatal: tier fs is below the required full: check tcp: " "$who: ... tcp named on stderr"
	printf '%s\n' "$out" >"$TMP/o.json"
	# egress too: fakeabi's own seccomp listener leaves no room for the
	# broker's (one listener per filter chain)
	r=$(python3 "$TMP/check.py" "$TMP/o.json" fs full tcp 3 "$(uname -r)" "$VERSION" tcp signal abstract-unix egress 2>&1)
	is "$(printf '%s\n' "$r" | grep -v '^ok ')" "" "$who: ABI 3: every field as it must be"

	run $as "$H/nolandlock" "$P" -j
	printf '%s\n' "$out" >"$TMP/o.json"
	r=$(python3 "$TMP/check.py" "$TMP/o.json" none fs fs 0 "$(uname -r)" "$VERSION" \
	    fs privs fds proc-environ proc-others userns tcp signal abstract-unix unix-socket tiocsti udp \
	    prlimit setpriority sched-affinity sched-scheduler sched-param sched-attr ioprio \
	    migrate-pages move-pages process-madvise socket-families egress 2>&1)
	is "$rc:$(printf '%s\n' "$r" | grep -v '^ok ')" "1:" "$who: no Landlock: tier none, every check unproven"
done

# the checker itself refuses a wrong answer
run "$P" --json
printf '%s\n' "$out" | sed 's/"tier":"full"/"tier":"fs"/' >"$TMP/o.json"
r=$(python3 "$TMP/check.py" "$TMP/o.json" full fs null 7 "$(uname -r)" "$VERSION" 2>&1)
is "$(printf '%s\n' "$r" | grep -v '^ok ')" "bad tier: got 'fs'" "the checker catches a wrong tier"
done_testing
