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
echo "{\"max_sessions\": 4, \"export_root\": \"$TMP/exp\", \"mount_allowlist\": [\"$TMP/host\"]}" > "$CFG"

# 1. the SDK client drives every tool
cat > "$TMP/script" <<'JSON'
[{"list": true},
 {"call": "get_config"},
 {"call": "create_session", "args": {"label": "sdk"}},
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
 {"call": "session_export", "args": {"output_dir": "out", "keys": ["h.txt", "up.txt"]}},
 {"call": "get_session_state"},
 {"call": "session_snapshot"},
 {"call": "list_snapshots"},
 {"call": "session_fork", "args": {"label": "fork"}},
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
like "$(r session_mount)" '"copied_to":"h.txt"' 'sdk: session_mount'
is "$(cat "$TMP/exp/out/h.txt")$(cat "$TMP/exp/out/up.txt")" "hostedHELLO" 'sdk: session_export'
like "$(r get_session_state)" '"checkpoints":[0-9]' 'sdk: get_session_state'
like "$(r session_snapshot)" '"snapshot":"[0-9a-f]{16}-.*\.bundle"' 'sdk: snapshot'
like "$(r list_snapshots)" '"snapshots":\[\{"snapshot"' 'sdk: list_snapshots'
like "$(r session_fork)" '"forked_from"' 'sdk: fork'
like "$(r session_list)" '"label":"sdk2".*"label":"fork"' 'sdk: session_list'
like "$(r session_close)" '"closed":true' 'sdk: close'
like "$(r session_read_file 3)" '"isError":true.*component: refused' 'sdk: traversal refused as a tool error'
like "$(r no_such_tool)" '"error":-32602' 'sdk: an unknown tool is a protocol error'

# 2. the Inspector CLI
run node "$INSPECT" "$SBX" --store "$ST" --config "$CFG" --method tools/list
is "$rc" 0 'inspector: tools/list'
is "$(printf '%s\n' "$out" | grep -c '^      "name": ')" 23 'inspector: every tool (23)'
run node "$INSPECT" "$SBX" --store "$ST" --config "$CFG" --method tools/call --tool-name create_session --tool-arg label=insp
like "$out" '\\"label\\":\\"insp\\"' 'inspector: create_session'
run node "$INSPECT" "$SBX" --store "$ST" --config "$CFG" --method tools/call --tool-name session_bash --tool-arg 'command=echo from-inspector'
like "$out" 'from-inspector' 'inspector: session_bash'

# 3. behind mcp-proxy with an allowlist
cat > "$TMP/script2" <<'JSON'
[{"list": true},
 {"call": "session_list"},
 {"call": "session_read_file", "args": {"path": "x"}},
 {"call": "session_bash", "args": {"command": "echo through-proxy"}}]
JSON
run node "$CLIENT" "$NM" "$TMP/script2" "$CORRAL_BIN/mcp-proxy" -a session_list -a session_bash -- "$SBX" --store "$ST" --config "$CFG"
printf '%s\n' "$out" > "$TMP/o"
like "$(sed -n 2p "$TMP/o")" '^\{"tools":\["session_list","session_bash"\]\}$' 'proxy: only the allowed tools are listed'
like "$(r session_list)" '"label":"insp"' 'proxy: an allowed tool works'
like "$(r session_read_file)" '"error":-32602' 'proxy: a tool off the allowlist is refused'
like "$(r session_bash)" 'through-proxy' 'proxy: session_bash through the proxy'
done_testing
