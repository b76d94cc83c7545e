#!/bin/sh
# sandbox-mcp: the protocol (2025-11-25 and 2026-07-28), the configuration
# (fresh per call, never falling back), sessions in the store (listed and
# resumed by a new server), max_sessions, the idle reaper.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
sbx_setup "$TMP/a"

# protocol: 2025-11-25 with initialize
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n{"jsonrpc":"2.0","id":4,"method":"nope"}\n' "$SBX_INIT" |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" >"$TMP/p" 2>&1
like "$(sed -n 1p "$TMP/p")" '"protocolVersion":"2025-11-25".*"serverInfo":\{"name":"sandbox-mcp"' 'initialize: 2025-11-25'
names=$(sed -n 2p "$TMP/p" | jq -r '[.result.tools[].name] | join(" ")')
is "$names" "create_session session_switch session_list session_close get_session_state get_config session_bash session_read_file session_read_files session_write_files session_delete_files session_history session_diff session_rollback session_fork session_label session_checkpoint_label session_mount session_fetch session_package_install session_export session_snapshot list_snapshots session_restore session_extract_text delete_from_host session_tree get_system_instructions session_get_env session_checkpoint_squash session_checkpoint_drop session_merge checkpoint_read_stdstreams session_chat_record" "tools/list: drun's names"
is "$(sed -n 2p "$TMP/p" | jq -c '.result.tools[] | select(.name=="session_bash") | .inputSchema.required')" '["command"]' 'session_bash requires command'
is "$(sed -n 3p "$TMP/p")" '{"jsonrpc":"2.0","id":3,"result":{}}' 'ping'
like "$(sed -n 4p "$TMP/p")" '"code":-32601' 'unknown method: -32601'

# protocol: 2026-07-28 without initialize
printf '%s\n%s\n' '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get_config","arguments":{}}}' |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" >"$TMP/p" 2>&1
like "$(sed -n 1p "$TMP/p")" '"supportedVersions":\["2026-07-28","2025-11-25"\]' 'server/discover: both revisions'
like "$(sed -n 2p "$TMP/p")" '"resultType":"complete".*|"isError":false' '2026-07-28: a call without initialize'
printf 'not json\n{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool"}}\n' |
	env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" >"$TMP/p" 2>&1
like "$(sed -n 1p "$TMP/p")" '"code":-32700' 'bad JSON: -32700'
like "$(sed -n 2p "$TMP/p")" '"id":5.*"code":-32602' 'unknown tool: -32602'

# configuration: none -> embedded defaults, said so
sbx get_config
is "$(j .source)" "embedded defaults" 'no config file: embedded defaults'
is "$(j .config.package_install_enabled):$(j .config.max_sessions)" "false:16" 'defaults: package install off, 16 sessions'
# a file: read fresh on every call
echo '{"max_sessions": 2, "bash_timeout_ms": 1234}' > "$SBX_CFG"
sbx get_config
is "$(j .source):$(j .config.max_sessions):$(j .config.bash_timeout_ms)" "file:2:1234" 'config file read'
# malformed: file, line and column; never the defaults
printf '{\n  "max_sessions": 2,\n  "domain_allowlist": ["a.example",]\n}\n' > "$SBX_CFG"
sbx get_config
is "$iserr" true 'malformed config: the call fails'
like "$text" "config $SBX_CFG:3:[0-9]+: not valid JSON" 'malformed config: file, line and column'
sbx create_session
is "$iserr" true 'malformed config: create_session fails too (no fallback)'
is "$(ls "$SBX_STORE/sessions" 2>/dev/null | wc -l)" 0 'malformed config: nothing was created'
printf '{\n  "max_sesions": 2\n}\n' > "$SBX_CFG"
sbx get_config
like "$text" "config $SBX_CFG:2:3: unknown key \"max_sesions\"" 'a misspelt key: refused at its line and column'
printf '{"max_sessions": "2"}' > "$SBX_CFG"
sbx get_config
like "$text" "config $SBX_CFG:1:18: \"max_sessions\" must be an integer" 'a wrong type: refused'
printf '{"max_sessions": 2} x' > "$SBX_CFG"
sbx get_config
like "$text" "config $SBX_CFG:1:[0-9]+: not valid JSON" 'trailing text: refused'
rm "$SBX_CFG"; mkdir "$SBX_CFG"
sbx get_config
like "$text" "config $SBX_CFG: unable to read" 'an unreadable config (a directory): refused'
rmdir "$SBX_CFG"
ln -s /etc/hostname "$SBX_CFG"
sbx get_config
like "$text" "config $SBX_CFG: unable to read: a symbolic link" 'a config that is a symlink: refused'
rm "$SBX_CFG"
echo '{"max_sessions": 2}' > "$SBX_CFG"

# sessions
sbx create_session '{"label":"first"}'
is "$iserr" false 'create_session'
s1=$(j .session_id)
like "$s1" '^[0-9a-f]{16}$' 'a session id'
is "$(stat -c %a "$SBX_STORE/sessions/$s1")" 700 'the session directory is 0700'
is "$(stat -c %a "$SBX_STORE")" 700 'the store is 0700'
is "$(j .current):$(j .label):$(j .checkpoints)" "true:first:1" 'the new session is current, labelled, with its first checkpoint'
sbx create_session '{"label":"second"}'
s2=$(j .session_id)
sbx create_session
is "$iserr" true 'max_sessions: a third session refused'
like "$text" '2 sessions are open, and max_sessions is 2' 'max_sessions: says why'
is "$(ls "$SBX_STORE/sessions" | wc -l)" 2 'max_sessions: nothing created'
sbx create_session '{"label":"a b"}'
like "$text" 'label a b: use' 'a bad label refused'
# a new server process lists and resumes them
sbx session_list
is "$(j '[.sessions[].session_id] | join(" ")')" "$s1 $s2" 'session_list: both, oldest first'
is "$(j '[.sessions[] | select(.current)] | length')" 0 'a new connection: no session is current (the current session is the connection'"'"'s)'
sbx session_switch "{\"session_id\":\"$s1\"}"
is "$(j .session_id):$(j .current)" "$s1:true" 'session_switch'
sbx get_session_state
is "$(j .session_id)" "$s1" 'get_session_state: the session the client keeps, in a new server'
sbx session_switch '{"session_id":"../../etc"}'
like "$text" 'no session \.\./\.\./etc' 'session_switch: a path as id refused'
sbx session_switch '{"session_id":"0123456789abcdef"}'
like "$text" 'no session 0123456789abcdef' 'session_switch: an unknown id refused'
sbx session_label '{"label":"renamed"}'
is "$(j .label)" renamed 'session_label'
sbx session_close "{\"session_id\":\"$s2\"}"
is "$(j .closed)" true 'session_close'
status_ok $([ ! -e "$SBX_STORE/sessions/$s2" ]; echo $?) 'session_close: its directory is gone'
sbx get_session_state "{\"session_id\":\"$s2\"}"
is "$iserr" true 'a closed session is gone'

# the idle reaper: at start, closing what is idle past the timeout
echo '{"session_idle_timeout_secs": 60}' > "$SBX_CFG"
sbx create_session '{"label":"young"}'
s3=$(j .session_id)
touch -d '2 hours ago' "$SBX_STORE/sessions/$s1/used"
sbx get_config
status_ok $([ ! -e "$SBX_STORE/sessions/$s1" ]; echo $?) 'reaper: an idle session is closed'
status_ok $([ -d "$SBX_STORE/sessions/$s3" ]; echo $?) 'reaper (control): a fresh one stays'
echo '{"session_idle_timeout_secs": 60, "snapshot_on_close": true}' > "$SBX_CFG"
touch -d '2 hours ago' "$SBX_STORE/sessions/$s3/used"
printf '' | env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$SBX_STORE" --config "$SBX_CFG"
is "$?" 0 'a server with no input exits 0'
status_ok $([ ! -e "$SBX_STORE/sessions/$s3" ]; echo $?) 'reaper at start (no call at all)'
like "$(ls "$SBX_STORE/snapshots")" "^$s3-.*-young\.bundle$" 'snapshot_on_close: snapshotted first'

# the store: refused when not ours or open to others
mkdir -m 0777 "$TMP/wide"
run env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" "$SBX" --store "$TMP/wide" </dev/null
is "$rc" 2 'a world-writable store: exit 2'
like "$err" "sandbox-mcp: fatal: store $TMP/wide: group- or world-writable" 'a world-writable store: says why'
run "$SBX" --bogus
is "$rc" 2 'unknown option: exit 2'
done_testing
