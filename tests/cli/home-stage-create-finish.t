#!/bin/sh
# home-stage create --finish: create, then in the same process what finish
# --wait-input --end does with the tree it made, from what it opened and
# noted itself before the agent ran. Its output is create's up to an empty
# line, read without waiting for its end. Control: the go byte, the status,
# the platform and the tier: a renewed sign-in taken back, the tree
# removed, the end recorded. Attacks: its input ended without the go byte
# (its caller killed): nothing taken back, removed or recorded, said; a
# stage file planted in the tree is never read (a separate finish, the
# control, is fooled by it); the sign-in replaced by a symbolic link: not
# followed. INT, QUIT and HUP while it waits: ignored (control: TERM ends
# it, nothing done). A create that fails exits with create's status and
# never waits. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
. "$CORRAL_TOP/tests/lib/steps.sh"
provider_start; status_ok $? "fake provider on 127.0.0.1:$PORT"
t=$(now)
claude_account u-1 >"$TMP/acct"
claude_signin tok0 $((t + 3600)) >"$TMP/c0"
mkdir -p "$TMP/outside"
claude_signin tokOut $((t + 5000)) >"$TMP/outside/creds.json"
provider_token tokOut u-1
chmod -R a+rX "$TMP/outside" "$TMP/acct" "$TMP/c0"

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who st=$TMP/$who/st ws=$TMP/$who/ws
	mkdir -p "$B" "$ws"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$B"
	S() { $AS "$SS" --store "$st" "$@"; }
	A() { $AS sh -c "$@"; }		# as the agent would, as WHO
	S put claude --agent claude --account-from "$TMP/acct" <"$TMP/c0"
	stored() { tail -n +2 "$st/creds/claude"; }
	# start [ARGS]: create --finish beside the test, its input a fifo held
	# open here (fd 3), until it has printed its empty line
	start() {
		rm -f "$B/in" "$B/out" "$B/err"
		mkfifo "$B/in"
		id=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
		$AS env -i HOME=/nonexistent "$HS" create --state "$st" --attempt "$id" --agent claude \
			--workspace "$ws" --begin --pid $$ $PV --finish "$@" <"$B/in" >"$B/out" 2>"$B/err" &
		hp=$!
		exec 3>"$B/in"
		wait_for created
		d=$(head -n 1 "$B/out")
	}
	created() { [ "$(cat "$B/out" 2>/dev/null | wc -l)" -ge 2 ] || gone $hp; }
	# go INPUT: written, its input closed, its end waited for
	go() {
		printf "$1" >&3
		exec 3>&-
		wait $hp
		rc=$?
		out=$(tail -n +3 "$B/out"); err=$(cat "$B/err")
	}
	n=0
	renew() {	# renew TOKEN: the agent writes a renewed sign-in the provider knows, each later
		n=$((n + 1))
		provider_token "$1" u-1
		renewed=$(claude_signin "$1" $((t + 7000 + n)))
		printf '%s' "$renewed" | A "cat > '$d/home/.claude/.credentials.json'"
	}

	start
	is "$(sed -n 2p "$B/out"):$(wc -l <"$B/out")" ":2" "$who: create's part: the path, then an empty line"
	like "$d" "^$st/a[0-9a-f]{10}\$" "$who: ... the attempt's directory"
	status_ok "$(gone $hp; echo $((! $?)))" "$who: ... and it waits on its input"
	is "$(cat "$d/home/.claude/.credentials.json")" "$(cat "$TMP/c0")" "$who: the sign-in staged"
	status_ok "$([ ! -e "$d/stage" ]; echo $?)" "$who: no stage file: its notes stay in its memory"
	renew tok1
	go 'g9 linux full\n'
	is "$rc:$out" "0:claude" "$who: control: g9 linux full: exit 0, the renewed sign-in taken back"
	is "$(stored)" "$renewed" "$who: ... into the store"
	status_ok "$([ ! -e "$d" ]; echo $?)" "$who: ... the tree removed"
	like "$(S show "$id")" "status 9
platform linux
tier full" "$who: ... the end recorded with the status, platform and tier"
	start
	go 'g4'
	is "$rc:$out" "0:" "$who: g4 alone: exit 0, nothing to take back"
	like "$(S show "$id")" "status 4
platform -
tier -" "$who: ... the end recorded without platform or tier"

	# the attack stand-in: its caller killed, its input ended without
	# the go byte
	start
	renew tok2
	before=$(stored)
	go ''
	is "$rc:$out" "1:" "$who: input ended without the go byte: exit 1, nothing taken back"
	is "$err" "home-stage: warning: its input ended without the go byte (its caller gone): nothing taken back, removed or recorded; $d stays until the next run reaps it" "$who: ... said in one line"
	is "$(stored)" "$before" "$who: ... the store unchanged"
	like "$(cat "$d/home/.claude/.credentials.json")" tok2 "$who: ... the tree as it was"
	unlike "$(S show "$id")" "status" "$who: ... the attempt not ended"
	S end "$id" --status 0

	# a stage file planted in the tree (which the agent cannot reach; here
	# by hand) that names the renewed sign-in's identity as the staged
	# one: never read, the renewal taken back
	plant() {
		A "python3 -c 'import json, os, sys
s = os.stat(sys.argv[1] + \"/home/.claude/.credentials.json\")
m = {\"agent\": \"claude\", \"signin\": \"claude\", \"ino\": s.st_ino, \"size\": s.st_size,
     \"mtime\": s.st_mtime_ns // 10**9, \"mtime_ns\": s.st_mtime_ns % 10**9}
open(sys.argv[1] + \"/stage.new\", \"w\").write(json.dumps(m))
os.rename(sys.argv[1] + \"/stage.new\", sys.argv[1] + \"/stage\")' '$d'"
	}
	start
	renew tok3
	plant
	go 'g0\n'
	is "$rc:$out" "0:claude" "$who: a planted stage file naming the renewal as staged: not read, taken back"
	is "$(stored)" "$renewed" "$who: ... into the store"
	good=$renewed
	# control: finish, which reads the stage file, is fooled by it
	id=$(S begin --agent claude --pid $$)
	d=$($AS env -i HOME=/nonexistent "$HS" create --state "$st" --attempt "$id" --agent claude --workspace "$ws")
	renew tok4
	plant
	run $AS env -i HOME=/nonexistent "$HS" finish $PV --end "$id" --status 0 "$d"
	is "$rc:$out:$err" "0::" "$who: control: finish reads the planted stage file: the renewal looks unchanged, not taken back"
	is "$(stored)" "$good" "$who: ... the store as it was"

	# the sign-in replaced by a symbolic link to a good one outside
	start
	A "rm '$d/home/.claude/.credentials.json' && ln -s '$TMP/outside/creds.json' '$d/home/.claude/.credentials.json'"
	go 'g0'
	is "$rc:$out" "0:" "$who: the sign-in a symbolic link: exit 0, nothing taken back"
	like "$err" "renewed sign-in claude not taken back: .claude/.credentials.json is not a plain file; the stored sign-in stays" "$who: ... said"
	is "$(stored)" "$good" "$who: ... the store as it was"
	status_ok "$([ ! -e "$d" ] && [ -f "$TMP/outside/creds.json" ]; echo $?)" "$who: ... the tree removed, nothing outside it"

	# INT, QUIT and HUP while it waits, as its caller's terminal or
	# group would send them: ignored
	start
	renew tok5
	kill -INT $hp; kill -QUIT $hp; kill -HUP $hp
	sleep 0.2
	go 'g3 linux full'
	is "$rc:$out" "0:claude" "$who: INT, QUIT and HUP while it waits: ignored, the go byte takes back"
	good=$renewed
	status_ok "$([ ! -e "$d" ]; echo $?)" "$who: ... the tree removed"
	like "$(S show "$id")" "status 3" "$who: ... the end recorded"
	# control: TERM ends it
	start
	renew tok6
	kill -TERM $hp
	wait_for gone $hp
	go ''	# (a go byte now would be written to no reader)
	is "$rc" 143 "$who: control: TERM ends it while it waits (143)"
	is "$(stored)" "$good" "$who: ... nothing taken back"
	status_ok "$([ -d "$d" ]; echo $?)" "$who: ... the tree kept"
	unlike "$(S show "$id")" "status" "$who: ... the attempt not ended"
	S end "$id" --status 0

	# bad input after the go byte: refused, nothing done
	for bad in 'g1 linux' 'g1 linux full x' 'g1 lin/ux full' 'g' 'g1x'; do
		start
		go "$bad"
		is "$rc" 2 "$who: input '$bad': exit 2"
		status_ok "$([ -d "$d" ]; echo $?)" "$who: ... the tree kept"
		unlike "$(S show "$id")" "status" "$who: ... the attempt not ended"
		S end "$id" --status 0
	done
	like "$err" "home-stage: fatal: its input holds more than the go byte and a status" "$who: ... said"

	# create fails (the workspace inside the state directory): its status,
	# no empty line, its input never waited for (held open here)
	mkdir -p "$st/ws"; [ "$who" = nobody ] && chown nobody:nogroup "$st/ws"
	rm -f "$B/in"; mkfifo "$B/in"
	sleep 60 >"$B/in" &
	holder=$!
	run $AS env -i HOME=/nonexistent timeout 30 "$HS" create --state "$st" --attempt "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" \
		--agent claude --workspace "$st/ws" --begin --pid $$ $PV --finish <"$B/in"
	kill $holder 2>/dev/null; wait $holder 2>/dev/null
	is "$rc:$out" "1:" "$who: create fails: its status (1), nothing printed, its input not waited for"
	like "$err" "state directory .* overlaps the workspace" "$who: ... said why"
}
suite root
suite nobody

run "$HS" create --state "$TMP/x" --attempt 0123456789abcdef0123456789abcdef --agent claude --test-cacert "$CA"
is "$rc" 2 "create --test-cacert without --finish: usage"
run "$HS" finish --finish "$TMP/x/a0123456789"
is "$rc" 2 "finish --finish: usage"
done_testing
