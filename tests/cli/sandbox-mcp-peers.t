#!/bin/sh
# sandbox-mcp against real MCP clients from npm: the TypeScript SDK client
# (every tool), the Inspector CLI, and sandbox-mcp behind mcp-proxy with a
# tool allowlist.
. "$CORRAL_TOP/tests/lib/tap.sh"
NM=$("$CORRAL_TOP/mk/npm" mcp @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@0.15.0) ||
	{ echo "Bail out! mk/npm failed"; exit 1; }
INSPECT=$NM/@modelcontextprotocol/inspector-cli/build/index.js
CLIENT=$CORRAL_TOP/tests/helpers/sandbox-mcp-client.mjs
SBX=$CORRAL_BIN/sandbox-mcp
ST=$TMP/store CFG=$TMP/cfg.json
export HOME=$TMP/home
mkdir -p "$HOME"
mkdir -p "$TMP/exp" "$TMP/host"
echo hosted > "$TMP/host/h.txt"
echo "{\"max_sessions\": 8, \"export_root\": \"$TMP/exp\", \"mount_allowlist\": [\"$TMP/host\"]}" > "$CFG"

# 1. the SDK client drives every tool
cat > "$TMP/script" <<'JSON'
[{"list": true},
 {"call": "get_config"},
 {"call": "create_session", "args": {"label": "sdk"}, "save": {"first": "session_id"}},
 {"call": "session_write_files", "args": {"entries": [{"path": "src/hello.txt", "content": "hello\n"}]}},
 {"call": "session_read_file", "args": {"path": "src/hello.txt"}},
 {"call": "session_read_files", "args": {"paths": ["src/hello.txt"]}},
 {"call": "session_bash", "args": {"command": "tr a-z A-Z < src/hello.txt > up.txt; cat up.txt", "description": "upper"}},
 {"call": "session_history"},
 {"call": "session_diff"},
 {"call": "session_checkpoint_label", "args": {"label": "upper"}},
 {"call": "session_delete_files", "args": {"paths": ["up.txt"]}},
 {"call": "session_rollback", "args": {"checkpoint_label": "upper"}},
 {"call": "session_read_file", "args": {"path": "up.txt"}},
 {"call": "session_label", "args": {"label": "sdk2"}},
 {"call": "session_mount", "args": {"path": "HOST/h.txt"}},
 {"call": "session_fetch", "args": {"url": "https://unlisted.example/"}},
 {"call": "session_package_install", "args": {"package_manager": "npm", "packages": ["left-pad"]}},
 {"call": "session_export", "args": {"output_dir": "out", "keys": ["h.txt", "up.txt"]}},
 {"call": "get_session_state"},
 {"call": "session_snapshot", "save": {"snap": "snapshot"}},
 {"call": "list_snapshots"},
 {"call": "session_fork", "args": {"label": "fork"}},
 {"call": "session_switch", "args": {"session_id": "@first"}},
 {"call": "session_restore", "args": {"snapshot": "@snap", "label": "restored"}},
 {"call": "session_list"},
 {"call": "session_close"},
 {"call": "session_read_file", "args": {"path": "../../etc/passwd"}},
 {"call": "no_such_tool"}]
JSON
sed -i "s|HOST|$TMP/host|" "$TMP/script"
run node "$CLIENT" "$NM" "$TMP/script" "$SBX" --store "$ST" --config "$CFG"
is "$rc" 0 'sdk: the script completes'
printf '%s\n' "$out" > "$TMP/o"
r() { grep -F "\"tool\":\"$1\"" "$TMP/o" | sed -n "${2:-1}p"; }
like "$(sed -n 1p "$TMP/o")" '"server":"sandbox-mcp"' 'sdk: handshake'
like "$(sed -n 2p "$TMP/o")" '"create_session".*"session_bash".*"session_restore"' 'sdk: tools listed'
like "$(r get_config)" '"source":"file"' 'sdk: get_config'
like "$(r create_session)" '"isError":false.*"label":"sdk"' 'sdk: create_session'
like "$(r session_write_files)" '"written":\[\{"path":"src/hello.txt","bytes":6\}\]' 'sdk: write_files'
like "$(r session_read_file)" '"content":"hello\\n"' 'sdk: read_file'
like "$(r session_read_files)" '"content":"hello\\n"' 'sdk: read_files'
like "$(r session_bash)" '"exit_code":0.*"stdout":"HELLO\\n"' 'sdk: session_bash'
like "$(r session_history)" '"message":"session_bash: upper"' 'sdk: history'
like "$(r session_diff)" '"isError":false' 'sdk: diff'
like "$(r session_checkpoint_label)" '"label":"upper"' 'sdk: checkpoint_label'
like "$(r session_delete_files)" '"deleted":true' 'sdk: delete_files'
like "$(r session_rollback)" '"rolled_back_to"' 'sdk: rollback'
like "$(r session_read_file 2)" '"content":"HELLO\\n"' 'sdk: the rolled back file is back'
like "$(r session_label)" '"label":"sdk2"' 'sdk: session_label'
like "$(r session_fetch)" '"isError":true.*unlisted\.example is not on domain_allowlist' 'sdk: session_fetch (an unlisted host)'
like "$(r session_package_install)" '"isError":true.*package_install_enabled' 'sdk: session_package_install (off by default)'
like "$(r session_mount)" '"copied_to":"h.txt"' 'sdk: session_mount'
is "$(cat "$TMP/exp/out/h.txt")$(cat "$TMP/exp/out/up.txt")" "hostedHELLO" 'sdk: session_export'
like "$(r get_session_state)" '"checkpoints":[0-9]' 'sdk: get_session_state'
like "$(r session_snapshot)" '"snapshot":"[0-9a-f]{16}-.*\.bundle"' 'sdk: snapshot'
like "$(r list_snapshots)" '"snapshots":\[\{"snapshot"' 'sdk: list_snapshots'
like "$(r session_fork)" '"forked_from"' 'sdk: fork'
like "$(r session_switch)" '"isError":false' 'sdk: session_switch'
like "$(r session_restore)" '"isError":false.*"snapshot":"[0-9a-f]{16}-[^"]*-sdk2\.bundle"' 'sdk: session_restore'
like "$(r session_list)" '"label":"sdk2".*"label":"fork".*"label":"restored"' 'sdk: session_list'
like "$(r session_close)" '"closed":true' 'sdk: close'
like "$(r session_read_file 3)" '"isError":true.*component: refused' 'sdk: traversal refused as a tool error'
like "$(r no_such_tool)" '"error":-32602' 'sdk: an unknown tool is a protocol error'

# 2. the Inspector CLI
run node "$INSPECT" "$SBX" --store "$ST" --config "$CFG" --method tools/list
is "$rc" 0 'inspector: tools/list'
is "$(printf '%s\n' "$out" | grep -c '^      "name": ')" 34 'inspector: every tool (34)'
run node "$INSPECT" "$SBX" --store "$ST" --config "$CFG" --method tools/call --tool-name create_session --tool-arg label=insp
like "$out" '\\"label\\":\\"insp\\"' 'inspector: create_session'
# each Inspector call is a connection of its own, which starts with no
# current session: the session is named
ISID=$(printf '%s' "$out" | jq -r .structuredContent.session_id)
run node "$INSPECT" "$SBX" --store "$ST" --config "$CFG" --method tools/call --tool-name session_bash --tool-arg 'command=echo from-inspector' --tool-arg "session_id=$ISID"
like "$out" 'from-inspector' 'inspector: session_bash'
# every other tool, one server process per call: ins TOOL [KEY=VALUE]...
# (session_id=$ISID added where the tool takes one and none is given);
# sets $res (structuredContent, compact) and $ie (isError)
ins() {
	_t=$1; shift
	case $_t:$* in
	create_session:*|session_list:*|get_config:*|list_snapshots:*|session_restore:*|session_tree:*|get_system_instructions:*|*session_id=*) ;;
	*) set -- "$@" "session_id=$ISID" ;;
	esac
	_n=$#; _i=0
	while [ $_i -lt $_n ]; do set -- "$@" --tool-arg "$1"; shift; _i=$((_i + 1)); done
	node "$INSPECT" "$SBX" --store "$ST" --config "$CFG" --method tools/call --tool-name "$_t" "$@" > "$TMP/ins" 2>"$TMP/ins.err"
	res=$(jq -c '.structuredContent // .content[0].text' "$TMP/ins" 2>/dev/null)
	ie=$(jq -r .isError "$TMP/ins" 2>/dev/null)
}
ins get_config
like "$ie:$res" '^false:.*"source":"file"' 'inspector: get_config'
ins get_system_instructions
like "$ie:$res" '^false:.*"instructions":"sandbox-mcp' 'inspector: get_system_instructions'
ins session_tree
like "$ie:$res" "^false:.*\"session_id\":\"$ISID\"" 'inspector: session_tree'
ins session_bash 'command=echo ins-out' description=out
ins checkpoint_read_stdstreams stream=stdout
like "$ie:$res" '^false:.*"content":"ins-out\\n"' 'inspector: checkpoint_read_stdstreams'
ins session_list
like "$ie:$res" '^false:.*"label":"insp"' 'inspector: session_list'
ins get_session_state
like "$ie:$res" "^false:.*\"session_id\":\"$ISID\"" 'inspector: get_session_state'
ins session_write_files 'entries=[{"path":"i.txt","content":"insp\n"}]'
like "$ie:$res" '^false:.*"written":\[\{"path":"i.txt","bytes":5\}\]' 'inspector: session_write_files (an array argument)'
ins session_read_file path=i.txt
like "$ie:$res" '^false:.*"content":"insp\\n"' 'inspector: session_read_file'
ins session_read_files 'paths=["i.txt"]'
like "$ie:$res" '^false:.*"content":"insp\\n"' 'inspector: session_read_files'
ins session_checkpoint_label label=ins1
like "$ie:$res" '^false:.*"label":"ins1"' 'inspector: session_checkpoint_label'
ins session_delete_files 'paths=["i.txt"]'
like "$ie:$res" '^false:.*"deleted":true' 'inspector: session_delete_files'
ins session_history
like "$ie:$res" '^false:.*"message":"session_delete_files"' 'inspector: session_history'
ins session_diff
like "$ie:$res" '^false:' 'inspector: session_diff'
ins session_rollback checkpoint_label=ins1
like "$ie:$res" '^false:.*"rolled_back_to"' 'inspector: session_rollback'
ins session_label label=insp2
like "$ie:$res" '^false:.*"label":"insp2"' 'inspector: session_label'
ins session_mount "path=$TMP/host/h.txt"
like "$ie:$res" '^false:.*"copied_to":"h.txt"' 'inspector: session_mount'
ins session_fetch url=https://unlisted.example/
like "$ie:$res" '^true:.*unlisted\.example is not on domain_allowlist' 'inspector: session_fetch (an unlisted host refused)'
ins session_package_install package_manager=pip 'packages=["tinypkg;id"]'
like "$ie:$res" '^true:.*package_install_enabled' 'inspector: session_package_install (off by default)'
ins session_export output_dir=insp 'keys=["h.txt","i.txt"]'
is "$ie:$(cat "$TMP/exp/insp/h.txt" "$TMP/exp/insp/i.txt")" "false:hosted
insp" 'inspector: session_export'
ins session_snapshot
like "$ie:$res" '^false:.*"snapshot":"[0-9a-f]{16}-' 'inspector: session_snapshot'
snap=$(printf '%s' "$res" | jq -r .snapshot)
ins list_snapshots
like "$ie:$res" "^false:.*\"snapshot\":\"$snap\"" 'inspector: list_snapshots'
ins session_restore "snapshot=$snap" label=insr
like "$ie:$res" "^false:.*\"snapshot\":\"$snap\"" 'inspector: session_restore'
ins session_fork label=insf
like "$ie:$res" '^false:.*"forked_from"' 'inspector: session_fork'
ins session_switch "session_id=$ISID"
like "$ie:$res" "^false:.*\"session_id\":\"$ISID\"" 'inspector: session_switch'
ins session_close
like "$ie:$res" '^false:.*"closed":true' 'inspector: session_close'
ins session_read_file path=../x
like "$ie:$res" '^true:.*component: refused' 'inspector: traversal refused'
ins create_session label=insp
is "$ie" false 'inspector: a session for what follows'
PSID=$(printf '%s' "$res" | jq -r .session_id)

# 3. behind mcp-proxy with an allowlist
cat > "$TMP/script2" <<'JSON'
[{"list": true},
 {"call": "session_list"},
 {"call": "session_read_file", "args": {"path": "x"}},
 {"call": "session_bash", "args": {"command": "echo through-proxy", "session_id": "PSID"}}]
JSON
sed -i "s/PSID/$PSID/" "$TMP/script2"
run node "$CLIENT" "$NM" "$TMP/script2" "$CORRAL_BIN/mcp-proxy" -a session_list -a session_bash -- "$SBX" --store "$ST" --config "$CFG"
printf '%s\n' "$out" > "$TMP/o"
like "$(sed -n 2p "$TMP/o")" '^\{"tools":\["session_list","session_bash"\]\}$' 'proxy: only the allowed tools are listed'
like "$(r session_list)" '"label":"insp"' 'proxy: an allowed tool works'
like "$(r session_read_file)" '"error":-32602' 'proxy: a tool off the allowlist is refused'
like "$(r session_bash)" 'through-proxy' 'proxy: session_bash through the proxy'
done_testing
