#!/bin/sh
# sandbox-mcp reads drun's arguments the way drun does: is_base64 (bytes
# 0-255 written exactly, read back exactly), integer checkpoint numbers,
# checkpoint_label on fork, the _label arguments of diff, session_restore
# and session_snapshot by path (only directly in snapshots_dir), and an
# argument a tool does not take refused by every tool with a JSON-RPC error
# naming it. Each with its control. (The headers array is sent for real in
# sandbox-mcp-fetch.t.)
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
sbx_setup "$TMP/a"
sbx create_session
W=$SBX_STORE/sessions/$(j .session_id)/workspace

# is_base64: every byte value, written exactly
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)))' > "$TMP/bytes"
B=$(base64 -w0 < "$TMP/bytes")
sbx session_write_files "{\"entries\":[{\"path\":\"bin.dat\",\"content\":\"$B\",\"is_base64\":true}],\"description\":\"all bytes\"}"
is "$iserr:$(j '.written[0].bytes')" "false:256" 'is_base64: 256 bytes written'
run cmp "$TMP/bytes" "$W/bin.dat"
is "$rc" 0 'is_base64: the file holds bytes 0-255 exactly'
sbx session_read_file '{"path":"bin.dat"}'
is "$(j .encoding)" base64 'read_file: content that is not UTF-8 comes back as base64'
j .content | base64 -d > "$TMP/back"
run cmp "$TMP/bytes" "$TMP/back"
is "$rc" 0 'read_file: the base64 decodes to bytes 0-255 exactly (no U+FFFD)'
# controls: without is_base64 the text is written as it is; text reads as text
sbx session_write_files "{\"entries\":[{\"path\":\"as-text.txt\",\"content\":\"$B\",\"is_base64\":false}]}"
is "$(cat "$W/as-text.txt")" "$B" 'control: is_base64 false writes the text itself'
sbx session_read_file '{"path":"as-text.txt"}'
is "$(j .encoding):$(j .content)" "null:$B" 'control: a text file reads as text, no encoding'
sbx session_write_files '{"entries":[{"path":"ok.txt","content":"x"},{"path":"bad.dat","content":"not base64!","is_base64":true}]}'
like "$iserr:$text" 'true:.*is not standard base64' 'is_base64 with bad base64: refused'
status_ok $([ ! -e "$W/ok.txt" ] && [ ! -e "$W/bad.dat" ]; echo $?) '... and nothing of the call written'
sbx session_write_files '{"entries":[{"path":"x.txt","content":"eA==","is_base64":"yes"}]}'
like "$text" 'is_base64" must be true or false' 'is_base64 not a boolean: refused'
sbx session_write_files '{"entries":[{"path":"x.txt","content":"x","mode":"0755"}]}'
like "$iserr:$text" 'true:.*entries\[0\] has an argument an entry does not take' 'an entry with an unknown key: refused'

# checkpoint numbers (drun's integer ids) beside hex ids
sbx session_write_files '{"entries":[{"path":"v.txt","content":"one"}]}'
sbx session_write_files '{"entries":[{"path":"v.txt","content":"two"}]}'
sbx session_history
n=$(j '.checkpoints|length')
is "$(j '[.checkpoints[].number]|@json')" "$(seq $((n - 1)) -1 0 | jq -sc .)" 'history numbers the checkpoints, 0 the oldest'
one=$(j '.checkpoints[1].checkpoint_id')
k=$(j '.checkpoints[1].number')
sbx session_rollback "{\"checkpoint_id\":$k,\"description\":\"back\"}"
is "$iserr:$(j .rolled_back_to):$(cat "$W/v.txt")" "false:$one:one" 'rollback {checkpoint_id: N} (an integer): that checkpoint'
sbx session_write_files '{"entries":[{"path":"v.txt","content":"three"}]}'
sbx session_rollback "{\"checkpoint_id\":\"$one\"}"
is "$iserr:$(cat "$W/v.txt")" "false:one" 'control: the same checkpoint by its hex id'
sbx session_rollback "{\"checkpoint_id\":\"$k\"}"
is "$iserr:$(j .rolled_back_to)" "false:$one" 'a number as a string of digits: the same'
sbx session_rollback '{"checkpoint_id":999}'
like "$iserr:$text" 'true:.*no checkpoint number 999' 'a number past the end: refused, named'
sbx session_rollback '{"checkpoint_id":-1}'
like "$text" 'must be a checkpoint id \(hex\) or number' 'a negative number: refused'
sbx session_rollback '{"checkpoint_id":1.5}'
like "$text" 'must be a checkpoint id \(hex\) or number' 'a fraction: refused'

# checkpoint_label on fork; the label wins over the id, as in drun
sbx session_checkpoint_label "{\"checkpoint_id\":$k,\"label\":\"base\",\"description\":\"mark\"}"
is "$iserr:$(j .checkpoint_id)" "false:$one" 'checkpoint_label with a number'
sbx session_write_files '{"entries":[{"path":"later.txt","content":"later"}]}'
src=$SBX_CUR
sbx session_fork '{"checkpoint_label":"base","checkpoint_id":0}'
F=$SBX_STORE/sessions/$(j .session_id)/workspace
is "$iserr:$(j .forked_at):$(cat "$F/v.txt")" "false:$one:one" 'fork {checkpoint_label}: at the labelled checkpoint (the label wins over checkpoint_id)'
status_ok $([ ! -e "$F/later.txt" ]; echo $?) '... without what came later'
SBX_CUR=$src
sbx session_fork '{}'
F=$SBX_STORE/sessions/$(j .session_id)/workspace
status_ok $([ -e "$F/later.txt" ]; echo $?) 'control: fork {} has the workspace as it is'
SBX_CUR=$src
sbx session_fork '{"checkpoint_label":"nope"}'
like "$iserr:$text" 'true:.*no checkpoint nope' 'fork with an unknown label: refused'

# diff's _label arguments
sbx session_checkpoint_label '{"label":"top"}'
sbx session_diff '{"from_checkpoint_label":"base","to_checkpoint_label":"top","description":"d"}'
like "$(j .diff)" 'later\.txt' 'diff {from_checkpoint_label, to_checkpoint_label}: the change between them'
is "$(j .from_checkpoint_id)" "$one" '... from the labelled checkpoint'
sbx session_diff '{"from_checkpoint_label":"top","to_checkpoint_label":"top"}'
is "$iserr:$(j .diff)" "false:" 'control: a label to itself: empty'
sbx session_diff "{\"from_checkpoint_id\":0,\"from_checkpoint_label\":\"base\",\"to_checkpoint_label\":\"top\"}"
is "$(j .from_checkpoint_id)" "$one" 'diff: the label wins over the id'
sbx session_diff '{"from_checkpoint_id":0}'
like "$(j .diff)" 'v\.txt' 'diff {from_checkpoint_id: 0}: from the oldest checkpoint'

# snapshot and restore by path, only directly in snapshots_dir
sbx session_snapshot '{"description":"keep"}'
P=$(j .path)
is "$P" "$SBX_STORE/snapshots/$(j .snapshot)" 'snapshot: its path is given'
sbx session_restore "{\"path\":\"$P\"}"
R=$SBX_STORE/sessions/$(j .session_id)/workspace
is "$iserr:$(cat "$R/later.txt")" "false:later" "restore {path}: drun's shape restores the snapshot"
sbx session_restore "{\"snapshot\":\"$(basename "$P")\"}"
is "$iserr" false 'control: restore {snapshot: NAME} as before'
cp "$P" "$TMP/elsewhere.bundle"
for p in "$TMP/elsewhere.bundle" "$SBX_STORE/snapshots/../x.bundle" /etc/passwd "$SBX_STORE/snapshots/sub/x.bundle" \
	"$SBX_STORE/snapshots/.hidden.bundle" "$SBX_STORE/snapshots/x.txt"; do
	sbx session_restore "{\"path\":\"$p\"}"
	like "$iserr:$text" "true:.*snapshots live only directly in snapshots_dir" "restore {path: $p}: refused"
done
sbx session_restore "{\"path\":\"$P\",\"snapshot\":\"$(basename "$P")\"}"
like "$text" 'give snapshot or path, not both' 'restore with both: refused'
sbx session_restore '{}'
like "$text" 'argument "path" \(or "snapshot"\) is required' 'restore with neither: refused'
sbx session_snapshot "{\"path\":\"$SBX_STORE/snapshots/mine.drun\"}"
is "$iserr:$(j .snapshot)" "false:mine.drun" 'snapshot {path} in snapshots_dir: that name (drun'"'"'s .drun)'
sbx session_restore "{\"path\":\"$SBX_STORE/snapshots/mine.drun\"}"
is "$iserr" false '... and it restores'
sbx session_snapshot "{\"path\":\"$TMP/out.drun\"}"
like "$iserr:$text" 'true:.*snapshots live only directly in snapshots_dir' 'snapshot {path} elsewhere: refused'
status_ok $([ ! -e "$TMP/out.drun" ]; echo $?) '... and nothing written there'

# an argument a tool does not take: a JSON-RPC error naming it, every tool
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n' "$SBX_INIT" |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1 |
	jq -r '.result.tools[].name' > "$TMP/names"
ok_all=1 ctl_all=1 cnt=0
while read -r t; do
	cnt=$((cnt + 1))
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"%s","arguments":{"zz_not_an_arg":1}}}\n' "$SBX_INIT" "$t" |
		env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1 > "$TMP/r"
	[ "$(jq -r .error.code "$TMP/r")" = -32602 ] && jq -r .error.message "$TMP/r" | grep -q "^Invalid params: $t takes no argument \"zz_not_an_arg\"" ||
		{ ok_all=0; diag "$t: $(cat "$TMP/r")"; }
	# control: the same call with only the arguments it takes is no protocol error
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"%s","arguments":{}}}\n' "$SBX_INIT" "$t" |
		env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG" | tail -n1 > "$TMP/r"
	[ "$(jq -r '.result.isError | type' "$TMP/r")" = boolean ] || { ctl_all=0; diag "control $t: $(cat "$TMP/r")"; }
done < "$TMP/names"
is "$ok_all:$((cnt > 20))" "1:1" "an unknown argument: every tool ($cnt) answers -32602 naming it"
is "$ctl_all" 1 'control: every tool called with no unknown argument answers with a tool result'
sbx session_bash '{"command":"echo hi","timeout":5}'
like "$text" 'session_bash takes no argument "timeout"' 'session_bash {timeout}: refused, not ignored'
sbx session_bash '{"command":"echo hi","description":"greet"}'
is "$iserr:$(j .stdout)" "false:hi" "control: drun's description argument is taken"
done_testing
