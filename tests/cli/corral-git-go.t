#!/bin/sh
# corral run in a git workspace (worktree) starts git-stage finish while the
# agent runs; its narrowed child reads nothing the agent wrote before corral
# writes the go byte, once every process of the attempt has ended. Attack:
# corral killed (SIGKILL) while the agent runs closes finish's input without
# the byte: nothing is imported, no branch made, the attempt kept, and it
# says so. Controls: the same run not killed makes its branch; keeper killed
# (its leftovers swept, the waiting finish with them) still imports.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
W=$TMP/ws
mkdir -p "$W" "$TMP/home"
(cd "$W" && git init -q && echo one > a && git add a && git -c user.name=t -c user.email=t@t commit -qm init)
E="env -i PATH=/usr/bin:/bin HOME=$TMP/home XDG_STATE_HOME=$TMP/state"
branches() { git -C "$W" branch --list 'corral/*' | wc -l | tr -d ' '; }
. "$CORRAL_TOP/tests/lib/steps.sh"
started() { [ -n "$(ls "$TMP"/state/corral/git/co/*/ws/started 2>/dev/null)" ]; }

cd "$W"
run $E "$C" run -w "$W" -- sh -c 'echo two >> a'
is "$rc" 0 "control: a run that changes a file"
is "$(branches)" 1 "... makes its branch"

# the attack: corral killed while the agent runs, finish waiting
$E "$C" run -w "$W" -- sh -c 'echo three >> a; : > started; exec sleep 60' >/dev/null 2>"$TMP/err" &
cp=$!
wait_for started
wait_for step_of $cp "git-stage finish " >/dev/null
fp=$(step_of $cp "git-stage finish ")
like "$fp" "^[0-9]+\$" "git-stage finish runs while the agent does"
kill -9 $cp
wait $cp 2>/dev/null
wait_for gone "$fp"
status_ok "$(gone "$fp"; echo $?)" "... and ends once corral is killed"
like "$(cat "$TMP/err")" "corral: warning: git: the import was not started: its input ended without the go byte" "... having imported nothing: it says so"
is "$(branches)" 1 "... no branch made"
status_ok "$(ls -d "$TMP"/state/corral/git/[0-9a-f]*[0-9a-f] >/dev/null 2>&1; echo $?)" "... the attempt kept in the store"
rm -f "$TMP"/state/corral/git/co/*/ws/started

# control: keeper killed, not corral: its leftovers swept, finish with them,
# and started again: the work is imported
$E "$C" run -w "$W" -- sh -c 'echo four >> a; : > started; exec sleep 60' >/dev/null 2>"$TMP/err" &
cp=$!
wait_for started
wait_for step_of $cp "git-stage finish " >/dev/null
kp=$(child_named $cp keeper)
like "$kp" "^[0-9]+\$" "control: keeper runs"
kill -9 "$kp"
wait $cp 2>/dev/null
like "$(cat "$TMP/err")" "corral: git: branch corral/" "control: keeper killed: the work still imported"
is "$(branches)" 2 "... onto a branch of its own"

done_testing
