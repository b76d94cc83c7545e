# tap.sh: TAP for shell tests. Source it: . "$CORRAL_TOP/tests/lib/tap.sh"
#   status_ok STATUS DESC     is GOT WANT DESC     like GOT ERE DESC
#   run CMD...              sets $rc, $out, $err (stdout/stderr of CMD)
#   as_nobody CMD...        runs CMD as nobody (setpriv), all capabilities gone
#   skip DESC               a test that does not apply here (DESC says why)
#   san_rlimit_as [PREFIX]  the san build, where a memory bound is RLIMIT_AS
#   $untraced               env's words for a program run under strace: the
#                           san build's leak check cannot run traced
#   done_testing
set -u
: "${CORRAL_TOP:?run through make check}" "${CORRAL_BIN:?run through make check}"
T=${CORRAL_T:-$CORRAL_TOP/build/musl/tests}
# corral puts attempt trees on $XDG_RUNTIME_DIR when it is the user's tmpfs:
# the tests find them in the store unless they set one (corral-rundir.t)
unset XDG_RUNTIME_DIR
untraced=LSAN_OPTIONS=detect_leaks=0
tap_n=0 tap_fail=0
TMP=$(mktemp -d /tmp/corral-test.XXXXXX)
chmod 0755 "$TMP"
trap 'rm -rf "$TMP"' EXIT

status_ok() {	# status_ok STATUS DESC: passes when STATUS (an exit status) is 0
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"
	else echo "not ok $tap_n - $2"; tap_fail=$((tap_fail + 1)); fi
}
is() {
	tap_n=$((tap_n + 1))
	if [ "x$1" = "x$2" ]; then echo "ok $tap_n - $3"
	else echo "not ok $tap_n - $3"; echo "#   got:  '$1'"; echo "#   want: '$2'"; tap_fail=$((tap_fail + 1)); fi
}
like() {
	tap_n=$((tap_n + 1))
	if printf '%s' "$1" | grep -Eq -- "$2"; then echo "ok $tap_n - $3"
	else echo "not ok $tap_n - $3"; echo "#   got:  '$1'"; echo "#   want: /$2/"; tap_fail=$((tap_fail + 1)); fi
}
unlike() {
	tap_n=$((tap_n + 1))
	if printf '%s' "$1" | grep -Eq -- "$2"; then echo "not ok $tap_n - $3"; echo "#   got:  '$1'"; echo "#   unwanted: /$2/"; tap_fail=$((tap_fail + 1))
	else echo "ok $tap_n - $3"; fi
}
diag() { echo "# $*"; }
run() {
	"$@" >"$TMP/.out" 2>"$TMP/.err"
	rc=$?
	out=$(cat "$TMP/.out"); err=$(cat "$TMP/.err")
}
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # skip $1"; }
# san_rlimit_as [PREFIX...]: true in the san build when a memory bound falls
# back to RLIMIT_AS (no memory cgroup) for the user PREFIX runs as. The
# chain's steps are then ASan programs, which reserve terabytes of shadow
# address space at start: none can start under such a bound (the musl
# build's suite checks the bound itself).
san_rlimit_as() {
	[ "${CORRAL_MODE:-musl}" = san ] || return 1
	[ "$("$@" "$CORRAL_BIN/keeper" --memory 64M -- sh -c 'ulimit -v' 2>/dev/null)" = 65536 ]
}
is_root() { [ "$(id -u)" -eq 0 ]; }
done_testing() {
	echo "1..$tap_n"
	[ "$tap_fail" -eq 0 ]
}
