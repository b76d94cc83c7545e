#!/bin/sh
# mk/suite's leak check: every test runs under suite-reap, and a process or
# a named network namespace a test leaves behind fails the suite, named with
# its command line and the test that made it, and is ended by pid. Each leak
# is a throwaway test run through a nested mk/suite; each has its control.
. "$CORRAL_TOP/tests/lib/tap.sh"
OBJ=${T%/tests}
OBJ=${OBJ#"$CORRAL_TOP"/}
BINREL=${CORRAL_BIN#"$CORRAL_TOP"/}
D=$TMP/t
mkdir -p "$D"

mk() {	# mk NAME BODY: a throwaway TAP test that does BODY, then passes
	printf '#!/bin/sh\n%s\necho 1..1\necho "ok 1 - %s"\n' "$2" "$1" > "$D/$1.t"
	chmod 0755 "$D/$1.t"
}
suite() { run env -u CORRAL_SUITE_LEAKS PROVE_FLAGS= "$CORRAL_TOP/mk/suite" "$CORRAL_MODE" "$BINREL" "$OBJ" "$@"; }
gone() {	# gone PID: the process no longer exists (a zombie would still be ours)
	! kill -0 "$1" 2>/dev/null
}

# a background server left running: the pid is recorded, the test passes on its own
mk leak "(exec sleep 301 & echo \$! > '$D/leak.pid')"
suite "$D/leak.t"
pid=$(cat "$D/leak.pid")
is "$rc" 1 'a test that leaves a process behind fails the suite (exit 1)'
like "$err" "mk/suite: leak: $D/leak\\.t: pid $pid sleep 301\$" 'the leak is named: the test, its pid and command line'
like "$err" 'suite-reap: .*leak\.t left pid' 'suite-reap says so as the test ends'
like "$out" 'leak\.t \.+ *Dubious|leak\.t.*Wstat: 256' 'prove marks the test that leaked as failing'
status_ok "$(gone "$pid"; echo $?)" 'the leaked process is ended, by its pid'

# control: the same server, ended by the test's own trap
mk clean "sleep 302 & s=\$!; trap 'kill \$s; wait \$s' EXIT"
suite "$D/clean.t"
is "$rc" 0 'control: a test that ends what it started passes the suite'
unlike "$err" 'leak' 'control: no leak is named'

# a daemon: setsid and forked twice, its parent gone
mk daemon "setsid sh -c '(exec sleep 303) & echo \$! > \"$D/daemon.pid\"' < /dev/null > /dev/null 2>&1; while [ ! -s '$D/daemon.pid' ]; do sleep 0.05; done"
suite "$D/daemon.t"
pid=$(cat "$D/daemon.pid")
is "$rc" 1 'a daemon that left its session is caught too'
like "$err" "leak: $D/daemon\\.t: pid $pid sleep 303" 'the daemon is named'
status_ok "$(gone "$pid"; echo $?)" 'the daemon is ended'

# a process of nobody's, started by a test run as root
if is_root; then
	mk nobody "(setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 304 & echo \$! > '$D/nobody.pid')"
	suite "$D/nobody.t"
	pid=$(cat "$D/nobody.pid")
	is "$rc" 1 "a process of nobody's is caught"
	like "$err" "leak: $D/nobody\\.t: pid $pid sleep 304" "nobody's process is named"
	status_ok "$(gone "$pid"; echo $?)" "nobody's process is ended"

	# a network namespace held by a process left behind (the leak this check was made for)
	mk netproc "(exec unshare -n sleep 305 & echo \$! > '$D/netproc.pid')"
	suite "$D/netproc.t"
	pid=$(cat "$D/netproc.pid")
	is "$rc" 1 'a process holding a network namespace of its own is caught'
	like "$err" "leak: $D/netproc\\.t: pid $pid sleep 305" 'it is named'
	status_ok "$(gone "$pid"; echo $?)" 'it is ended, and its namespace with it'

	# control: servers in a pid namespace of the test's own end with its first process
	mk pidns "unshare -n -p -f --kill-child sh -c '(sleep 306 &); sleep 306 & exit 0'"
	suite "$D/pidns.t"
	is "$rc" 0 'control: servers in a pid namespace of their own end with it'
	unlike "$err" 'leak' 'control: nothing is named'

	# a named network namespace
	ns=corral-leak-$$
	mk netns "ip netns add $ns"
	suite "$D/netns.t"
	is "$rc" 1 'a named network namespace left behind fails the suite'
	like "$err" "leak: $D/netns\\.t: netns $ns\$" 'the namespace is named'
	status_ok "$([ ! -e "/run/netns/$ns" ]; echo $?)" 'the namespace is removed'
	ip netns del "$ns" 2>/dev/null
else
	diag "not root: the nobody and namespace leaks need root"
fi

# a failing test that leaks keeps its own failure, and is named as well
printf '#!/bin/sh\n(exec sleep 307 & echo $! > "%s/fail.pid")\necho 1..1\necho "not ok 1 - fails"\nexit 1\n' "$D" > "$D/fail.t"
chmod 0755 "$D/fail.t"
suite "$D/fail.t"
pid=$(cat "$D/fail.pid")
is "$rc" 1 'a failing test that leaks fails the suite'
like "$err" "leak: $D/fail\\.t: pid $pid sleep 307" 'its leak is named too'
status_ok "$(gone "$pid"; echo $?)" 'and ended'
done_testing
