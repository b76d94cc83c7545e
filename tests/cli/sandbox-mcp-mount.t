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
