#!/bin/sh
# corral run starts home-stage's finish and runfiles watch (the snapshot
# and the report in one process) before the agent's end: finish is create,
# which stays (create --finish), the watch starts beside the proof. Neither
# reads anything the agent wrote before corral writes its go byte, once
# every process of the attempt has ended. Attack: corral killed (SIGKILL)
# while the agent runs closes their inputs without it: nothing taken back,
# removed or recorded, no report, the attempt kept for the next run's reap,
# and both say so. Controls: the same run not killed: the report, the tree
# removed, the end recorded; keeper killed (its leftovers swept, not these
# two): the same. (With a sign-in, as nobody, and when finish is started
# after: corral-finish-create.t.)
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
W=$TMP/ws
mkdir -p "$W" "$TMP/home"
E="env -i PATH=/usr/bin:/bin HOME=$TMP/home XDG_STATE_HOME=$TMP/state"
ST=$TMP/state/corral
S() { "$CORRAL_BIN/session-store" --store "$ST" "$@"; }
trees() { ls -d "$ST"/a[0-9a-f]* 2>/dev/null | wc -l | tr -d ' '; }
newest() { ls -t "$ST/attempts" | head -1; }
. "$CORRAL_TOP/tests/lib/steps.sh"
started() { [ -e "$W/started" ]; }
named=".*created .envrc: direnv runs it on entering the directory"

cd "$W"
run $E "$C" run -- sh -c 'echo x > .envrc; exit 5'
is "$rc" 5 "control: a run that writes an .envrc: its status"
like "$err" "$named" "... the report names it"
is "$(trees)" 0 "... the attempt's tree removed"
like "$(S show "$(newest)")" "status 5" "... its end recorded"
rm -f .envrc
sleep 0.2

# the attack: corral killed while the agent runs, both steps waiting
$E "$C" run -- sh -c 'echo y > .envrc; : > started; exec sleep 60' >/dev/null 2>"$TMP/err" &
cp=$!
wait_for started
wait_for step_of $cp "home-stage create " >/dev/null
fp=$(step_of $cp "home-stage create ")
wp=$(step_of $cp "runfiles watch ")
like "$fp:$wp" "^[0-9]+:[0-9]+\$" "home-stage create --finish and runfiles watch run while the agent does"
id=$(newest)
kill -9 $cp
wait $cp 2>/dev/null
wait_for gone "$fp"
wait_for gone "$wp"
status_ok "$(gone "$fp" && gone "$wp"; echo $?)" "... and end once corral is killed"
like "$(cat "$TMP/err")" "home-stage: warning: its input ended without the go byte \(its caller gone\): nothing taken back, removed or recorded" "... finish having done nothing: it says so"
like "$(cat "$TMP/err")" "runfiles: fatal: no report: its input ended without the go byte" "... the watch having reported nothing: it says so"
unlike "$(cat "$TMP/err")" "$named" "... no report"
is "$(trees)" 1 "... the attempt's tree kept"
unlike "$(S show "$id")" "status" "... its record open (the next run's reap ends it)"
rm -f started .envrc
sleep 0.2

# control: keeper killed, not corral: its leftovers swept, these two kept
$E "$C" run -- sh -c 'echo z > .envrc; : > started; exec sleep 60' >/dev/null 2>"$TMP/err" &
cp=$!
wait_for started
wait_for step_of $cp "home-stage create " >/dev/null
kp=$(child_named $cp keeper)
like "$kp" "^[0-9]+\$" "control: keeper runs"
kill -9 "$kp"
wait $cp
is "$?" 137 "control: keeper killed: corral's status 137"
like "$(cat "$TMP/err")" "$named" "... the report names the .envrc"
unlike "$(cat "$TMP/err")" "go byte" "... neither step lost its input"
like "$(S show "$(newest)")" "status 137" "... the end recorded"
is "$(trees)" 0 "... the tree removed (and the killed run's reaped)"
done_testing
