#!/bin/sh
# sandbox-mcp session_export (beneath export_root, never through a symlink)
# and session_mount (copies from under mount_allowlist, overlays read-only),
# every refusal with its control.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
sbx_setup "$TMP/a"
H=$TMP/host
mkdir -p "$H/proj/src" "$H/proj/node_modules/m" "$TMP/exp" "$TMP/elsewhere"
echo code > "$H/proj/src/main.c"
echo module > "$H/proj/node_modules/m/index.js"
ln -s "$SBX_HOME/.ssh/id_ed25519" "$H/proj/key"
ln -s "$SBX_HOME/.ssh" "$H/sshdir"
sbx create_session
W=$SBX_STORE/sessions/$(j .session_id)/workspace
sbx session_write_files '{"entries":[{"path":"a.txt","content":"A"},{"path":"d/b.txt","content":"B"}]}'

# export: off until export_root is set
sbx session_export '{"output_dir":"out"}'
like "$iserr:$text" 'true:.*export is off: set "export_root"' 'export: off by default'
echo "{\"export_root\": \"$TMP/exp\"}" > "$SBX_CFG"
sbx session_export '{"output_dir":"out","keys":["a.txt","d"]}'
is "$iserr:$(cat "$TMP/exp/out/a.txt")$(cat "$TMP/exp/out/d/b.txt")" "false:AB" 'export: the keys, beneath export_root'
sbx session_export "{\"output_dir\":\"$TMP/exp/abs\"}"
is "$iserr:$(cat "$TMP/exp/abs/a.txt")" "false:A" 'export: an absolute output_dir beneath export_root; no keys: everything'
for o in '../escape' "$TMP/elsewhere" '/etc' 'x/../../escape' "$TMP/exp/../elsewhere"; do
	sbx session_export "{\"output_dir\":\"$o\"}"
	is "$iserr" true "export: output_dir $o refused"
done
status_ok $([ -z "$(ls "$TMP/elsewhere")" ] && [ ! -e "$TMP/escape" ]; echo $?) 'export: nothing written outside export_root'
sbx session_export '{"output_dir":"out","keys":["../../etc/passwd"]}'
is "$iserr" true 'export: a key with .. refused'
# a symlink planted in the workspace, then exported
sbx session_bash '{"command":"ln -s /etc/passwd link; ln -s / root; ln -s ../.. d/up; echo ok"}'
sbx session_export '{"output_dir":"links"}'
is "$iserr:$(j .symlinks_skipped)" "false:3" 'export: planted symlinks are skipped, not followed'
status_ok $([ ! -e "$TMP/exp/links/link" ] && [ ! -e "$TMP/exp/links/root" ] && [ -f "$TMP/exp/links/d/b.txt" ]; echo $?) 'export: no link or its target copied; the files are'
sbx session_export '{"output_dir":"links2","keys":["link"]}'
like "$iserr:$text" 'true:.*link' 'export: a symlink as a key refused'
sbx session_export '{"output_dir":"links3","keys":["root/etc/passwd"]}'
like "$iserr:$text" 'true:.*symbolic link' 'export: a key through a symlink refused'
# a symlink inside the export root
ln -s "$TMP/elsewhere" "$TMP/exp/trap"
sbx session_export '{"output_dir":"trap/x"}'
like "$iserr:$text" 'true:.*symbolic link' 'export: an output_dir through a symlink in export_root refused'
status_ok $([ -z "$(ls "$TMP/elsewhere")" ]; echo $?) 'export: nothing reached through it'
echo "{\"export_root\": \"$TMP\"}" > "$SBX_CFG"
sbx session_export '{"output_dir":"x"}'
like "$text" 'holds the store or the home' 'export: an export_root holding the store refused'

# mount: nothing while mount_allowlist is empty
echo '{}' > "$SBX_CFG"
sbx session_mount "{\"path\":\"$H/proj\"}"
like "$iserr:$text" 'true:.*mount_allowlist is empty' 'mount: an empty mount_allowlist grants nothing'
echo "{\"mount_allowlist\": [\"$H\"]}" > "$SBX_CFG"
sbx session_mount "{\"path\":\"$H/proj\"}"
is "$iserr:$(j .copied_to):$(j .symlinks_skipped)" "false:proj:1" 'mount: copied, the symlink in it skipped'
is "$(cat "$W/proj/src/main.c")" code 'mount: the files are in the workspace'
status_ok $([ ! -e "$W/proj/key" ] && [ "$(readlink "$W/proj/node_modules")" = "$H/proj/node_modules" ]; echo $?) 'mount: no link of the host copied, and node_modules is not copied but linked to its host path'
is "$(j '.overlays[0]')" "$H/proj/node_modules" 'mount: node_modules is an overlay'
sbx session_bash "{\"command\":\"cat $H/proj/node_modules/m/index.js; echo x > $H/proj/node_modules/m/new.js; cat $H/proj/src/main.c; cat $SBX_HOME/.ssh/id_ed25519\"}"
like "$(j .stdout)" '^module' 'mount: the overlay is readable in place'
like "$(j .stdout)" 'code' 'mount: mount_allowlist entries are readable'
status_ok $([ ! -e "$H/proj/node_modules/m/new.js" ]; echo $?) 'mount: the overlay is read-only'
unlike "$(j .stdout)" 'PRIVATE' 'mount: the home stays unreadable'
for p in "$SBX_HOME/.ssh/id_ed25519" "$H/sshdir/id_ed25519" "$H/proj/key" "$TMP/exp" 'relative/path' "$SBX_STORE"; do
	sbx session_mount "{\"path\":\"$p\"}"
	is "$iserr" true "mount: $p refused"
done
status_ok $(! grep -rq PRIVATE "$W"; echo $?) 'mount: no secret reached the workspace'
echo "{\"mount_allowlist\": [\"$H\"], \"max_workspace_mb\": 1}" > "$SBX_CFG"
head -c 2000000 /dev/zero > "$H/big"
sbx session_mount "{\"path\":\"$H/big\"}"
like "$iserr:$text" 'true:.*over max_workspace_mb' 'mount: bounded by max_workspace_mb'
done_testing
