#!/bin/sh
# sandbox-mcp checkpoints (git as the engine): history, diff, rollback,
# labels, fork, snapshots; git never runs what the workspace holds; kill -9
# at every point of a write loses no checkpoint and tears no file.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
sbx_setup "$TMP/a"
sbx create_session '{"label":"main"}'
s=$(j .session_id)
S=$SBX_STORE/sessions/$s
W=$S/workspace
c0=$(j .checkpoint_id)
g() { env -i PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git --git-dir="$S/history.git" "$@"; }

sbx session_write_files '{"entries":[{"path":"a.txt","content":"one\n"}]}'
c1=$(j .checkpoint_id)
sbx session_bash '{"command":"echo two >> a.txt; echo b > b.txt","description":"second"}'
c2=$(j .checkpoint_id)
sbx session_history
is "$(j '[.checkpoints[].checkpoint_id]|join(" ")')" "$c2 $c1 $c0" 'history: newest first'
is "$(j '.checkpoints[0].message')" 'session_bash: second' 'history: messages'
sbx session_diff "{\"from_checkpoint_id\":\"$c1\",\"to_checkpoint_id\":\"$c2\"}"
like "$(j .diff)" '\+two' 'diff between two checkpoints'
like "$(j .diff)" 'b\.txt' 'diff: the new file'
sbx session_diff "{\"from_checkpoint_id\":\"$c1\",\"to_checkpoint_id\":\"$c2\",\"paths\":[\"b.txt\"]}"
unlike "$(j .diff)" 'a\.txt' 'diff: limited to paths'
echo three >> "$W/a.txt"
sbx session_diff
like "$(j .diff):$(j .from_checkpoint_id)" "\+three.*:$c2" 'diff: the workspace now against the latest checkpoint'
sbx session_diff '{"from_checkpoint_id":"--output=/tmp/x"}'
like "$text" 'is not a checkpoint id' 'diff: an option as id refused'
sbx session_diff '{"from_checkpoint_id":"0000000"}'
like "$text" 'no checkpoint 0000000' 'diff: an unknown id refused'

# labels
sbx session_checkpoint_label "{\"checkpoint_id\":\"$c1\",\"label\":\"good\"}"
is "$(j .checkpoint_id)" "$c1" 'checkpoint_label'
sbx session_checkpoint_label '{"label":"../../x"}'
like "$text" 'label \.\./\.\./x: use' 'checkpoint_label: a ref path refused'
sbx session_checkpoint_label '{"label":"x.lock"}'
is "$iserr" true 'checkpoint_label: a .lock name refused'
sbx session_history
is "$(j ".checkpoints[] | select(.checkpoint_id==\"$c1\") | .labels[0]")" good 'history shows the label'

# rollback by label: what was there is kept first
sbx session_rollback '{"checkpoint_label":"good"}'
is "$(j .rolled_back_to)" "$c1" 'rollback to a label'
is "$(cat "$W/a.txt"):$([ -e "$W/b.txt" ]; echo $?)" "one:1" 'rollback: the workspace is the checkpoint again (b.txt gone)'
before=$(j .previous_checkpoint_id)
sbx session_diff "{\"from_checkpoint_id\":\"$c2\",\"to_checkpoint_id\":\"$before\"}"
like "$(j .diff)" '\+three' 'rollback: the unsaved change was kept as a checkpoint first'
sbx session_rollback "{\"checkpoint_id\":\"$before\"}"
is "$(cat "$W/a.txt" | tr '\n' ' ')" "one two three " 'rollback by id (forward again)'
sbx session_rollback '{"checkpoint_label":"nope"}'
like "$text" 'no checkpoint nope' 'rollback: an unknown label refused'

# git reads the workspace as data: its ignore files, attributes, hooks and config are not git's
sbx session_bash '{"command":"printf \"*\\n\" > .gitignore; echo hidden > ignored.txt; printf \"* filter=evil diff=evil\\n\" > .gitattributes; mkdir -p .git/hooks; printf \"#!/bin/sh\\ntouch /tmp/sbx-hook-ran\\n\" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; printf \"[filter \\\"evil\\\"]\\n\\tclean = touch /tmp/sbx-filter-ran\\n\" > .git/config"}'
sbx session_history
cig=$(j '.checkpoints[0].checkpoint_id')
is "$(g show "$cig:ignored.txt")" hidden 'an ignored file is still checkpointed'
sbx session_diff "{\"from_checkpoint_id\":\"$c0\"}"
status_ok $([ ! -e /tmp/sbx-hook-ran ] && [ ! -e /tmp/sbx-filter-ran ]; echo $?) 'no hook, filter or diff driver from the workspace ran'
is "$(g config --get core.hooksPath; echo "$?")" 1 'the history repository has no hooks path of the agent'

# fork: a new session with the same files, its own history
sbx session_fork '{"label":"forked"}'
f=$(j .session_id)
is "$(j .forked_from):$(j .current)" "$s:true" 'fork: from the session, now current'
is "$(cat "$SBX_STORE/sessions/$f/workspace/a.txt" | tr '\n' ' ')" "one two three " 'fork: the same files'
sbx session_write_files '{"entries":[{"path":"a.txt","content":"fork only\n"}]}'
is "$(cat "$W/a.txt" | tr '\n' ' ')" "one two three " 'fork: the sessions never see each other'"'"'s files'
sbx session_fork "{\"session_id\":\"$s\",\"checkpoint_id\":\"$c1\"}"
is "$(cat "$SBX_STORE/sessions/$(j .session_id)/workspace/a.txt")" one 'fork at a checkpoint'

# snapshots: one file, restored as a new session
sbx session_snapshot "{\"session_id\":\"$s\"}"
snap=$(j .snapshot)
like "$snap" "^$s-.*\.bundle$" 'snapshot: a file name'
is "$(ls "$SBX_STORE/snapshots")" "$snap" 'snapshot: one file under snapshots_dir'
sbx list_snapshots
is "$(j '.snapshots[0].snapshot')" "$snap" 'list_snapshots'
sbx session_restore "{\"snapshot\":\"../sessions/$s/meta.json\"}"
like "$text" 'a snapshot is a file name' 'restore: a path refused'
ln -s /etc/passwd "$SBX_STORE/snapshots/evil.bundle"
sbx session_restore '{"snapshot":"evil.bundle"}'
like "$text" 'no snapshot evil.bundle .*not a regular file' 'restore: a symlink refused'
echo '{"max_sessions": 8}' > "$SBX_CFG"
sbx session_restore "{\"snapshot\":\"$snap\",\"label\":\"restored\"}"
r=$(j .session_id)
is "$iserr:$(cat "$SBX_STORE/sessions/$r/workspace/a.txt" | tr '\n' ' ')" "false:one two three " 'restore: the files are back'
sbx session_history
is "$(j ".checkpoints[] | select(.checkpoint_id==\"$c1\") | .labels[0]")" good 'restore: the history and labels too'

# max_checkpoints: the history shows at most that many
echo '{"max_checkpoints": 3, "max_sessions": 8}' > "$SBX_CFG"
for i in 1 2 3 4; do sbx session_write_files "{\"entries\":[{\"path\":\"n\",\"content\":\"$i\"}]}"; done
sbx session_history
is "$(j '.checkpoints|length')" 3 'max_checkpoints: 3 shown'
echo '{"max_sessions": 8}' > "$SBX_CFG"

# kill -9 during a write, at every point (every syscall of the server and
# its git children): no committed checkpoint lost, no file torn
TR=$T/helpers/store-trace
sbx session_switch "{\"session_id\":\"$s\"}"
sbx session_write_files '{"entries":[{"path":"k.txt","content":"OLD-CONTENT"}]}'
kc=$(j .checkpoint_id)
new=$(head -c 300000 /dev/zero | tr '\0' N)
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_write_files","arguments":{"session_id":"%s","entries":[{"path":"k.txt","content":"%s"}]}}}\n' "$SBX_INIT" "$s" "$new" > "$TMP/req"
printf '%s' "$new" > "$TMP/new"
srv() { env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" <"$TMP/req" >/dev/null 2>&1; }
"$TR" -o "$TMP/cnt" count -- /bin/sh -c 'exec env -i PATH=/usr/bin:/bin HOME="$1" "$2" --store "$3" --config "$4" <"$5" >/dev/null 2>&1' \
	sh "$SBX_HOME" "$SBX" "$SBX_STORE" "$SBX_CFG" "$TMP/req"
n=$(awk '{print $2}' "$TMP/cnt")
[ "$n" -gt 100 ]; status_ok $? "kill sweep: $n system calls"
step=$(( n / 60 + 1 )) k=1 torn=0 lost=0 nold=0 nnew=0 pts=0
while [ $k -le $n ]; do
	printf 'OLD-CONTENT' > "$W/k.txt"
	"$TR" -o "$TMP/k" kill $k -- /bin/sh -c 'exec env -i PATH=/usr/bin:/bin HOME="$1" "$2" --store "$3" --config "$4" <"$5" >/dev/null 2>&1' \
		sh "$SBX_HOME" "$SBX" "$SBX_STORE" "$SBX_CFG" "$TMP/req" >/dev/null 2>&1
	if [ "$(cat "$W/k.txt")" = OLD-CONTENT ]; then nold=$((nold + 1))
	elif cmp -s "$W/k.txt" "$TMP/new"; then nnew=$((nnew + 1))
	else torn=$((torn + 1)); diag "torn after a kill at syscall $k"; fi
	g cat-file -e "$kc^{commit}" 2>/dev/null && g merge-base --is-ancestor "$kc" refs/heads/main 2>/dev/null ||
		{ lost=$((lost + 1)); diag "checkpoint lost after a kill at syscall $k"; }
	k=$((k + step)) pts=$((pts + 1))
done
is "$torn:$lost" 0:0 "kill -9 at $pts points of $n: never a torn file, never a lost checkpoint"
[ $nold -gt 0 ] && [ $nnew -gt 0 ]; status_ok $? "kill sweep: both outcomes seen (old $nold, new $nnew)"
sbx session_write_files '{"entries":[{"path":"after.txt","content":"fine"}]}'
is "$iserr" false 'after the kills a new server works (stale git locks cleared)'
is "$(ls -A "$S/stage")" "" 'and the stage holds no leftover'
is "$(g fsck --no-dangling 2>&1; echo $?)" 0 'the history repository is sound'
# what the agent left where a rollback puts a directory: a symlink is
# removed, never followed; a file too
sbx session_write_files '{"entries":[{"path":"ld/e/f.txt","content":"f\n"},{"path":"lg/h.txt","content":"h\n"}]}'
cl=$(j .checkpoint_id)
O=$TMP/outside
mkdir -p "$O/e"
rm -rf "$W/ld" "$W/lg"
ln -s "$O" "$W/ld"
echo x > "$W/lg"
[ -L "$W/ld" ] && [ -f "$W/lg" ]; status_ok $? 'control: a link and a file stand where the checkpoint has directories'
sbx session_rollback "{\"checkpoint_id\":\"$cl\"}"
is "$iserr" false 'rollback over a planted link and file'
[ -d "$W/ld" ] && [ ! -L "$W/ld" ] && [ -d "$W/lg" ]; status_ok $? 'both are directories again'
is "$(cat "$W/ld/e/f.txt"):$(cat "$W/lg/h.txt")" 'f:h' 'the files are in the workspace'
[ ! -e "$O/e/f.txt" ] && [ -d "$O/e" ]; status_ok $? 'the link was not followed: its target is untouched'
done_testing
