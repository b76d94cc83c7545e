#!/bin/sh
# tests/helpers/nonamespace, the stand-in for a machine without namespaces
# (Ubuntu 24.04, Docker): unshare and clone with CLONE_NEWUSER or
# CLONE_NEWNS fail with EPERM, clone3 with ENOSYS, and fork, posix_spawn
# and threads still work, for musl (contain-try) and glibc (python3, sh).
# As root and as nobody; each refusal has its control without the helper.
. "$CORRAL_TOP/tests/lib/tap.sh"
H=$T/helpers
NS=$H/nonamespace
TRY=$H/contain-try

suite() {	# suite WHO AS
	who=$1 AS=$2
	run $AS "$TRY" unshare-user
	is "$out" ok "$who: control: unshare(CLONE_NEWUSER) works without the helper"
	run $AS "$NS" "$TRY" unshare-user
	is "$out" EPERM "$who: unshare(CLONE_NEWUSER): EPERM"
	run $AS "$NS" "$TRY" clone-user
	is "$out" EPERM "$who: clone(CLONE_NEWUSER): EPERM"
	run $AS "$NS" "$TRY" unshare-mount
	is "$out" EPERM "$who: unshare(CLONE_NEWNS): EPERM"
	run $AS "$TRY" clone3
	is "$out" ok "$who: control: clone3 works without the helper"
	run $AS "$NS" "$TRY" clone3
	is "$out" ENOSYS "$who: clone3: ENOSYS"
	run $AS "$NS" "$TRY" unshare-none
	is "$out" ok "$who: unshare(0) still works"
	run $AS "$NS" "$TRY" fork
	is "$out" ok "$who: musl fork works"
	run $AS "$NS" "$TRY" spawn /bin/true
	is "$out" ok "$who: musl posix_spawn works"
	run $AS "$NS" "$TRY" thread
	is "$out" ok "$who: musl pthread_create works"
	run $AS "$NS" python3 -c 'import os, subprocess, threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
pid = os.posix_spawn("/bin/true", ["true"], {}); print(os.waitpid(pid, 0)[1], subprocess.run(["/bin/true"]).returncode)'
	is "$rc.$out" "0.0 0" "$who: glibc threads, posix_spawn and fork work (clone3 falls back to clone)"
	run $AS "$NS" sh -c '/bin/true & wait $!; echo $?'
	is "$out" 0 "$who: a glibc shell starts jobs"
	run $AS "$NS" unshare -U true
	is "$rc" 1 "$who: unshare(1) -U fails"
	like "$err" "Operation not permitted" "$who: ... with EPERM"
}

suite "$(id -un)" ""
if is_root; then
	suite nobody as_nobody
else
	diag "not root: the nobody run is not covered"
fi
done_testing
