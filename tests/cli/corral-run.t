#!/bin/sh
# corral run end to end, with the real steps: a C project built, tested and
# committed; secrets, the runner's environ and the store out of reach;
# writes only where granted; statuses, signals,
# leftovers of a killed corral reaped; fail closed. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
C=$CORRAL_BIN/corral
NL=$T/helpers/nolandlock

# wait_for FILE: until it exists (a bound on waiting, not on speed)
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

suite() {	# suite WHO: everything, as WHO (root or nobody)
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	H=$B/home			# the invoking user's (fake) real home
	W=$B/ws				# the workspace
	ST=$H/.local/state/corral	# the store
	mkdir -p "$H/.ssh" "$H/.aws" "$W"
	echo "SSH-PRIVATE-KEY-$who" > "$H/.ssh/id_ed25519"
	echo "aws_secret_access_key = AWS-SECRET-$who" > "$H/.aws/credentials"
	chmod 600 "$H/.ssh/id_ed25519" "$H/.aws/credentials"
	printf '[user]\n\tname = Agent Tester\n\temail = agent@example.com\n[core]\n\thooksPath = /evil\n' > "$H/.gitconfig"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	E="env -i HOME=$H PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 RUNNER_SECRET=runner-$who"
	R() { (cd "$W" && $AS $E "$C" run "$@"); }

	# statuses
	run R -- sh -c 'exit 7'
	is "$rc" 7 "$who: the agent's status passes through"
	run R -- sh -c 'kill -TERM $$'
	is "$rc" 143 "$who: death by SIGTERM: 128+15"
	run R -- /nonexistent/agent
	is "$rc" 127 "$who: a command that is not there: 127"
	run R -- "$B"
	is "$rc" 126 "$who: a command that is not executable: 126"

	# a small C project: build, test, commit
	mkdir -p "$W/src" "$W/build"
	printf '#include <stdio.h>\nint main(void) { puts("hello, corral"); return 0; }\n' > "$W/src/hello.c"
	printf 'build/hello: src/hello.c\n\tcc -O1 -o $@ src/hello.c\ncheck: build/hello\n\t./build/hello | grep -q "hello, corral"\n' > "$W/Makefile"
	touch "$W/build/.keep"
	(cd "$W" && git init -q && git -c safe.directory='*' add -A && git -c safe.directory='*' -c user.name=u -c user.email=u@x commit -qm init)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$W"
	run R -- sh -c 'make -s check && echo "int extra;" > src/extra.c && git add -A && git commit -qm "agent: add extra" && git log -1 --format="%an <%ae> %s"'
	is "$rc:$out" "0:Agent Tester <agent@example.com> agent: add extra" "$who: cc, make, the test and git commit work in the workspace"
	is "$(git -c safe.directory='*' -C "$W" log --format=%s | head -1)" "init" "$who: the real branch is untouched"
	is "$(git -c safe.directory='*' -C "$W" log --format=%s --branches='corral/*' | head -1)" "agent: add extra" "$who: the commit came back on a corral/ branch"
	like "$err" "corral: git: worktree: the agent works in $ST/git/co/[0-9a-f]{16}\\.0/[^/,]+, a checkout" "$who: the start line names the mode and the checkout"
	like "$err" "corral: git: branch corral/[0-9a-f]{8}: 1 commit, 2 files changed.*merge: git merge corral/" "$who: the end line names the branch, commits, files, how to merge"
	run R -- sh -c 'echo "#!/bin/sh" > .git/hooks/pre-commit; echo rc1=$?; git config core.hooksPath /tmp >/dev/null 2>&1; echo rc2=$?; echo x >> .git/config; echo rc3=$?; echo x >> '"$W"'/.git/config; echo rc4=$?'
	is "$(echo $out | cut -d" " -f1-3)" "rc1=0 rc2=0 rc3=0" "$who: the agent's own repository takes hooks and config"
	like "$out" "rc4=[1-9]" "$who: the real .git/config is out of reach"
	status_ok "$([ ! -e "$W/.git/hooks/pre-commit" ] && ! grep -q hooksPath "$W/.git/config"; echo $?)" "$who: .git untouched"
	is "$(ls "$ST/git" | grep -c '^[0-9a-f]\{32\}$')" 0 "$who: no attempt repository lingers (co/ holds the stable checkouts, trash/ what is being removed)"
	# the rest of this file: a plain directory, written live
	rm -rf "$W/.git"

	# secrets of the invoking user, the runner's environment, the store
	printf 'OTHER-CREDENTIAL-%s' "$who" | $AS env -i HOME=$H "$SS" put other
	run R -- sh -c "cat '$H/.ssh/id_ed25519'; echo rc=\$?; cat '$H/.aws/credentials'; echo rc=\$?; cat /proc/\$PPID/environ; echo rc=\$?; env; cat '$ST/creds/other'; echo rc=\$?; ls '$ST'; echo rc=\$?; ls '$H'; echo rc=\$?"
	is "$rc" 0 "$who: probing run completes"
	unlike "$out$err" "SSH-PRIVATE-KEY|AWS-SECRET" "$who: ~/.ssh and ~/.aws unreadable"
	is "$(printf '%s\n' "$out" | grep -c '^rc=[1-9]')" 6 "$who: every reach outside fails (ssh, aws, environ, creds, store, home)"
	like "$err" "id_ed25519: Permission denied" "$who: ~/.ssh: EACCES"
	like "$err" "/proc/[0-9]+/environ: Permission denied" "$who: the runner's environ: EACCES"
	unlike "$out$err" "runner-$who" "$who: the runner's variable never reaches the agent"
	unlike "$out$err" "OTHER-CREDENTIAL" "$who: the store's other credentials unreadable"

	# writes: workspace and attempt home only; the attempt dir gone afterwards
	run R -- sh -c "echo \$HOME > home-was; touch \$HOME/h \$TMPDIR/t ./w && echo ok-writes; touch /tmp/corral-outside-$who 2>/dev/null || echo no-tmp; touch '$H/planted' 2>/dev/null || echo no-home; touch '$ST/planted' 2>/dev/null || echo no-store; mkdir \$XDG_CONFIG_HOME/x && echo ok-config"
	is "$rc:$(echo $out)" "0:ok-writes no-tmp no-home no-store ok-config" "$who: writes land in the workspace and the attempt's home, config, tmp only"
	like "$(cat "$W/home-was")" "^$ST/a[0-9a-f]{10}/home$" "$who: HOME was the attempt's private home"
	status_ok "$([ -e "$W/w" ] && [ ! -e /tmp/corral-outside-$who ] && [ ! -e "$H/planted" ] && [ ! -e "$ST/planted" ]; echo $?)" "$who: nothing landed outside"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: the attempt directory is gone afterwards"
	is "$(ls -A "$H" | tr '\n' ' ')" ".aws .gitconfig .local .ssh " "$who: the real home holds nothing new but the store"

	# the audit log: one JSON line per step, names not values (probe is
	# written when it is collected, after the bookkeeping it ran beside)
	printf '{"env": {"set": {"MODE": "zz-value-%s"}}}' "$who" > "$B/p.json"
	[ "$who" = nobody ] && chown nobody:nogroup "$B/p.json"	# a policy must be the caller's own
	run R -p "$B/p.json" -- sh -c 'test "$MODE" = zz-value-'$who
	is "$rc" 0 "$who: env.set reaches the agent"
	a=$(ls -t "$ST/audit/" | head -1)
	run python3 -c '
import json, sys
steps = [json.loads(l)["step"] for l in open(sys.argv[1])]
want = ["home-stage create", "probe", "keeper", "env-filter", "confine", "exec", "wait", "home-stage finish"]
assert steps == want, steps
print("ok")' "$ST/audit/$a"
	is "$out" ok "$who: the audit log has one JSON line per step, in order"
	like "$(cat "$ST/audit/$a")" '"set":\["PATH","MODE"\]' "$who: the audit log names the variable"
	unlike "$(cat "$ST/audit/$a")" "zz-value" "$who: the audit log never holds its value"
	is "$(stat -c %a "$ST/audit/$a")" 600 "$who: the audit log is 0600"

	# a sign-in renewed during the run: tests/cli/signin-verify.t (the
	# provider names the account; a fake one over TLS)

	# signals sent to corral reach the agent
	rm -f "$W/ready" "$W/got"
	(cd "$W" && exec $AS $E "$C" run -- sh -c 'trap "echo got > got; exit 3" TERM; touch ready; while :; do sleep 0.1; done') &
	cpid=$!
	wait_for "$W/ready"; status_ok $? "$who: the agent started"
	kill -TERM $cpid
	wait $cpid; rc=$?
	is "$rc" 3 "$who: SIGTERM forwarded, the agent's status returned"
	status_ok "$([ -e "$W/got" ]; echo $?)" "$who: the agent's handler ran"
	rm -f "$W/ready"
	(cd "$W" && exec $AS $E "$C" run -- sh -c 'touch ready; exec sleep 1000') &
	cpid=$!
	wait_for "$W/ready"
	kill -INT $cpid
	wait $cpid; rc=$?
	is "$rc" 130 "$who: SIGINT forwarded; the agent's death by it is 128+2"

	# corral killed: the chain dies with it, the next run reaps the leftovers
	rm -f "$W/ready" "$W/pid"
	(cd "$W" && exec $AS $E "$C" run -- sh -c 'echo $$ > pid; touch ready; exec sleep 1000') &
	cpid=$!
	wait_for "$W/ready"
	apid=$(cat "$W/pid")
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 1 "$who: a running attempt has its directory"
	kill -KILL $cpid
	wait $cpid 2>/dev/null
	i=0; while kill -0 "$apid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	status_ok "$(kill -0 "$apid" 2>/dev/null; [ $? -ne 0 ]; echo $?)" "$who: the agent died with corral (SIGKILL)"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 1 "$who: the killed run left its directory"
	run R -- true
	is "$rc" 0 "$who: the next run succeeds"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: ... and reaped the leftovers"

	# no proof, no run: probe runs beside home-stage create (which
	# records the attempt), and is collected before anything else starts
	ls "$ST/attempts" > "$B/before"
	run sh -c "cd '$W' && exec $AS $E '$NL' '$C' run -- touch '$W/ran-unproven'"
	is "$rc" 125 "$who: unproven containment: 125"
	like "$err" "corral: fatal: containment is unproven on this machine \\(probe status 1\\): nothing was started" "$who: says why"
	status_ok "$([ ! -e "$W/ran-unproven" ]; echo $?)" "$who: nothing ran"
	a=$(ls "$ST/attempts" | grep -vxF -f "$B/before")
	is "$(echo "$a" | grep -c .)" 1 "$who: the attempt opened beside the proof ..."
	like "$($AS $E "$CORRAL_BIN/session-store" --store "$ST" show "$a" 2>&1)" "status 125
platform -
tier -" "$who: ... is closed as refused, with no tier"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: ... and its directory is gone"
	is "$(ls "$ST/audit" | grep -c "^$a")" 1 "$who: its audit log ..."
	unlike "$(cat "$ST/audit/$a"*)" '"(env-filter|confine|exec|mcp-proxy|egress-proxy|wait)"' "$who: ... names no step of the agent"
	# control: the same run with the proof
	run sh -c "cd '$W' && exec $AS $E '$C' run -- touch '$W/ran-unproven'"
	is "$rc:$(ls "$W/ran-unproven" 2>&1)" "0:$W/ran-unproven" "$who: control: proven, it runs"
	rm -f "$W/ran-unproven"
}

suite root
suite nobody
done_testing
