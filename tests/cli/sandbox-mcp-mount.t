#!/bin/sh
# sandbox-mcp: a mounted project's node_modules is linked into the copy
# (read-only, at its host path, as drun links overlays) so node resolves it
# from the copy; a mount_allowlist entry that is / or holds the home or the
# store fails every call; a configuration file deleted while the server runs
# fails closed instead of reverting to the defaults. Each with its control.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
waitfor() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; }
sbx_setup "$TMP/a"
H=$TMP/host
mkdir -p "$H/proj/node_modules/m" "$H/proj2/node_modules/m"
echo "module.exports = 'from-host';" > "$H/proj/node_modules/m/index.js"
echo "module.exports = 'copied';" > "$H/proj2/node_modules/m/index.js"
echo "console.log(require('m'))" > "$H/proj/main.js"
cp "$H/proj/main.js" "$H/proj2/main.js"
sbx create_session
W=$SBX_STORE/sessions/$(j .session_id)/workspace

# node_modules: linked into the copy, read-only
echo "{\"mount_allowlist\": [\"$H\"]}" > "$SBX_CFG"
sbx session_mount "{\"path\":\"$H/proj\",\"description\":\"project\"}"
is "$iserr:$(j .overlays_linked):$(readlink "$W/proj/node_modules")" "false:1:$H/proj/node_modules" 'mount: node_modules linked into the copy, to its host path'
sbx session_bash '{"command":"cd proj && node main.js"}'
is "$iserr:$(j .stdout)" "false:from-host" "mount: node resolves the project's node_modules from the copy"
sbx session_bash '{"command":"echo x > proj/node_modules/m/new.js; echo rc=$?; rm -f proj/node_modules/m/index.js; echo rc=$?"}'
like "$(j .stdout | tr '\n' ' ')" 'rc=[1-9] rc=[1-9]' 'mount: a write or a removal through the link is refused'
status_ok $([ ! -e "$H/proj/node_modules/m/new.js" ] && [ -e "$H/proj/node_modules/m/index.js" ]; echo $?) '... and the host node_modules is untouched'
sbx session_mount "{\"path\":\"$H/proj2/node_modules\"}"
is "$iserr:$(j .copied_to):$(readlink "$W/node_modules")" "false:null:$H/proj2/node_modules" 'mount of node_modules itself: linked at the top'
# control: with no overlay names, node_modules is copied, and writes land in the copy
echo "{\"mount_allowlist\": [\"$H\"], \"mount_overlay_paths\": []}" > "$SBX_CFG"
sbx create_session
W2=$SBX_STORE/sessions/$(j .session_id)/workspace
sbx session_mount "{\"path\":\"$H/proj2\"}"
status_ok $([ -d "$W2/proj2/node_modules" ] && [ ! -L "$W2/proj2/node_modules" ]; echo $?) 'control: no overlay names: node_modules copied'
sbx session_bash '{"command":"cd proj2 && node main.js && echo x > node_modules/m/new.js && echo wrote"}'
is "$(j .stdout)" "copied
wrote" 'control: the copy resolves and is writable'
status_ok $([ ! -e "$H/proj2/node_modules/m/new.js" ]; echo $?) 'control: the host is untouched'

# mount_allowlist entries that would expose everything: every call refused
for e in / "$TMP" "$SBX_HOME/.." "$SBX_STORE/sessions"; do
	echo "{\"mount_allowlist\": [\"$H\", \"$e\"]}" > "$SBX_CFG"
	sbx session_mount '{"path":"/etc/shadow"}'
	like "$iserr:$text" "true:.*mount_allowlist entry $e (is the whole file system|holds the home or the store|lies in the store): refused" "mount_allowlist [\"$e\"]: refused, named"
	sbx session_list
	is "$iserr" true "... and every other call fails closed too ($e)"
done
status_ok $(! grep -rqs 'root:' "$SBX_STORE/sessions"/*/workspace; echo $?) 'nothing of /etc/shadow reached a workspace'
echo "{\"mount_allowlist\": [\"$H\", \"$TMP/missing\"]}" > "$SBX_CFG"
sbx session_list
is "$iserr" false 'control: project directories (and a missing one) are fine'

# another store under an allowlisted directory: a second sandbox-mcp's
# (with a session holding a secret) and corral's session-store; whatever
# the allowlist, a mount that is, lies in or holds one is refused, through
# the SDK client; control: a project beside them mounts
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"
OS=$H/team/sbx-store CS=$H/team2/corral-store
mkdir -p "$H/team" "$H/team2" "$H/proj3/src"
echo code > "$H/proj3/src/a.c"
sbx_setup "$TMP/other"
SBX_STORE=$OS
sbx create_session
osid=$(j .session_id)
sbx session_write_files '{"entries":[{"path":"secret.txt","content":"OTHER-AGENT-SECRET"}]}'
is "$iserr:$(cat "$OS/sessions/$osid/workspace/secret.txt")" "false:OTHER-AGENT-SECRET" 'control: the other store holds a session with a secret'
"$CORRAL_BIN/session-store" --store "$CS" begin --agent claude > /dev/null
status_ok $([ -d "$CS/attempts" ] && [ -f "$CS/.lock" ]; echo $?) "control: corral's store holds an attempt"
sbx_setup "$TMP/a"
echo "{\"mount_allowlist\": [\"$H\"]}" > "$SBX_CFG"
cat > "$TMP/script-stores" <<JSON
[{"call": "create_session", "args": {}},
 {"call": "session_mount", "args": {"path": "$H/team"}},
 {"call": "session_mount", "args": {"path": "$OS"}},
 {"call": "session_mount", "args": {"path": "$OS/sessions/$osid/workspace"}},
 {"call": "session_mount", "args": {"path": "$H/team2"}},
 {"call": "session_mount", "args": {"path": "$CS/attempts"}},
 {"call": "session_mount", "args": {"path": "$H/proj3"}},
 {"call": "session_bash", "args": {"command": "cat proj3/src/a.c; grep -rl OTHER-AGENT-SECRET . || echo no-secret"}}]
JSON
HOME=$SBX_HOME sdk_run "$TMP/script-stores" --store "$SBX_STORE" --config "$SBX_CFG"
is "$sdk_rc" 0 'stores: the SDK script completes'
like "$(r session_mount 1)" "\"isError\":true.*$H/team holds the store $OS: refused" 'mount of a directory holding another sandbox-mcp store: refused, named'
like "$(r session_mount 2)" "\"isError\":true.*$OS is the store $OS: refused" 'mount of the store itself: refused'
like "$(r session_mount 3)" "\"isError\":true.*lies in the store $OS: refused" "mount of a session's workspace in it: refused"
like "$(r session_mount 4)" "\"isError\":true.*$H/team2 holds the store $CS: refused" "mount of a directory holding corral's store: refused"
like "$(r session_mount 5)" "\"isError\":true.*lies in the store $CS: refused" "mount of its attempts: refused"
like "$(r session_mount 6)" '"isError":false.*"copied_to":"proj3"' 'control: a project beside them mounts'
is "$(rj session_bash 1 .stdout)" "code
no-secret" 'control: its file is there, and no secret of the other store reached the workspace'

# a configuration file deleted while the server runs
rm -f "$TMP/in"
mkfifo "$TMP/in"
echo '{"max_sessions": 7}' > "$SBX_CFG"
"$SBX" --store "$SBX_STORE" --config "$SBX_CFG" < "$TMP/in" > "$TMP/out" 2>"$TMP/err" &
spid=$!
exec 3>"$TMP/in"
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"get_config","arguments":{}}}\n' "$1" >&3; waitfor "[ \$(wc -l < '$TMP/out') -ge $2 ]"; }
printf '%s\n' "$SBX_INIT" >&3
call 2 2
is "$(tail -n1 "$TMP/out" | jq -r '.result.structuredContent.config.max_sessions')" 7 'config: read from the file'
mv "$SBX_CFG" "$SBX_CFG.away"
call 3 3
like "$(tail -n1 "$TMP/out" | jq -r '.result.isError,.result.content[0].text' | tr '\n' ' ')" 'true .*the file this server read is gone; refusing to fall back to the embedded defaults' 'config deleted while running: every call fails closed'
mv "$SBX_CFG.away" "$SBX_CFG"
call 4 4
is "$(tail -n1 "$TMP/out" | jq -r '.result.isError,.result.structuredContent.config.max_sessions' | tr '\n' ' ')" 'false 7 ' 'control: put back, it is read again'
exec 3>&-
wait $spid
# control: a server that never saw a file runs on the defaults
rm -f "$SBX_CFG"
sbx get_config
is "$iserr:$(j .source)" "false:embedded defaults" 'control: no file from the start: the defaults'
done_testing
