#!/bin/sh
# corral: new user namespaces are refused inside the boundary (EPERM, clone3
# ENOSYS); the policy key "userns": true allows them, and explain and doctor
# say so as a warning. As root and as nobody, each with its control.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
H=$T/helpers
TRY=$H/contain-try

# the policy key itself
printf '{"userns": true}\n' >"$TMP/yes.json"
printf '{"userns": 1}\n' >"$TMP/bad.json"
run "$C" policy check "$TMP/yes.json"
is "$rc" 0 "\"userns\": true is a valid policy"
run "$C" policy check "$TMP/bad.json"
is "$rc.$err" '1.corral: fatal: policy '"$TMP"'/bad.json:1:12: "userns" must be a boolean, not a number' \
    "\"userns\": 1 is refused with its position"
run "$C" policy default
like "$out" '"userns": false' "the default says \"userns\": false"

suite() {	# suite WHO AS
	who=$1 AS=$2
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws" "$B/pol"
	printf '{"userns": true}\n' >"$B/pol/userns.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i HOME=$B/home PATH=/usr/bin:/bin:$H LANG=C.UTF-8"
	R() { (cd "$B/ws" && $AS $E "$C" "$@"); }

	run R run -- contain-try unshare-user
	is "$rc.$out" "0.EPERM" "$who: corral run: unshare(CLONE_NEWUSER): EPERM"
	run R run -- contain-try clone3
	is "$out" ENOSYS "$who: corral run: clone3: ENOSYS"
	run R run -- unshare -U true
	is "$rc" 1 "$who: corral run: unshare(1) -U fails"
	run $AS "$TRY" unshare-user
	is "$out" ok "$who: control: unshare(CLONE_NEWUSER) works outside"
	run R run -p "$B/pol/userns.json" -- contain-try unshare-user
	is "$rc.$out" "0.ok" "$who: \"userns\": true: unshare(CLONE_NEWUSER) works"
	run R run -p "$B/pol/userns.json" -- contain-try prlimit 1
	is "$out" EPERM "$who: \"userns\": true: other processes stay out of reach"

	run R explain -- true
	unlike "$out" "userns|# warning" "$who: explain, default: no --userns, no warning"
	run R explain -p "$B/pol/userns.json" -- true
	like "$out" "/confine .* --userns( |$)" "$who: explain: confine --userns"
	like "$out" "# warning: the policy allows new user namespaces" "$who: explain: a warning line"

	run R doctor
	like "$out" "user namespaces +refused" "$who: doctor, default: refused"
	unlike "$out" "warning: the policy allows new user namespaces" "$who: ... no warning of user namespaces (the one warning -p gives below)"
	run R doctor -p "$B/pol/userns.json"
	like "$out" "user namespaces +allowed" "$who: doctor -p: allowed"
	like "$out" "warning: the policy allows new user namespaces" "$who: ... with a warning"
	run R doctor -p "$B/pol/userns.json" --json
	like "$out" '"userns":true' "$who: doctor --json: \"userns\":true"
}

suite "$(id -un)" ""
if is_root; then
	suite nobody "setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
else
	diag "not root: the nobody run is not covered"
fi
done_testing
