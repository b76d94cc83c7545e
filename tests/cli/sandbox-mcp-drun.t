#!/bin/sh
# A drun user switches by changing one command line: drun v0.5.20's tool
# calls, in drun's argument shapes (no session_id: the connection's
# session; description arguments; integer checkpoint ids; labels; is_base64;
# a headers array; session_restore {path}), replayed through the real MCP
# SDK client against sandbox-mcp, and the answers checked. Then the tools
# drun has that sandbox-mcp added, each on its boundary, with controls:
# delete_from_host only beneath export_root and never through a link,
# session_get_env only env_allowlist, session_extract_text only through a
# confined pdftotext, session_merge, squash and drop, the chat log across a
# snapshot.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"
mkdir -p "$TMP/home" "$TMP/host/proj" "$TMP/exp" "$TMP/bin" "$TMP/outside"
echo hosted > "$TMP/host/proj/h.txt"
echo keep > "$TMP/outside/keep.txt"
# a stand-in pdftotext on the PATH (poppler-utils is not installed here):
# it runs confined like any command, so it can write only the workspace
cat > "$TMP/bin/pdftotext" <<'EOF'
#!/bin/sh
while [ "${1#-}" != "$1" ]; do [ "$1" = -- ] && { shift; break; }; [ "$1" = -enc ] && shift; shift; done
{ echo "text of $1"; cat "$1"; } > "$2"
echo pwned > OUTSIDE 2>/dev/null || echo "outside write refused"
EOF
sed -i "s|OUTSIDE|$TMP/outside-write|" "$TMP/bin/pdftotext"
chmod 755 "$TMP/bin/pdftotext"
# control: the stand-in writes there when run directly
"$TMP/bin/pdftotext" -q -- "$TMP/outside/keep.txt" "$TMP/ctl.txt" >/dev/null
status_ok $([ -e "$TMP/outside-write" ] && rm "$TMP/outside-write"; echo $?) 'control: run directly, the stand-in writes outside'
CFG=$TMP/cfg.json ST=$TMP/store
echo "{\"export_root\": \"$TMP/exp\", \"mount_allowlist\": [\"$TMP/host\"], \"env_allowlist\": [\"HOME\"]}" > "$CFG"
cat > "$TMP/script" <<'JSON'
[{"list": true},
 {"call": "get_system_instructions", "args": {}},
 {"call": "get_config", "args": {}},
 {"call": "create_session", "args": {}, "save": {"sid": "session_id"}},
 {"call": "session_write_files", "args": {"entries": [{"path": "a.txt", "content": "one\n"},
   {"path": "bin.dat", "content": "AAEC/w==", "is_base64": true}, {"path": "doc.pdf", "content": "%PDF-1.4 x"}], "description": "seed"}},
 {"call": "session_bash", "args": {"command": "echo two >> a.txt; cat a.txt; echo warn >&2", "description": "append"}},
 {"call": "checkpoint_read_stdstreams", "args": {"checkpoint_id": 2, "offset": 4, "limit": 3, "description": "out"}},
 {"call": "checkpoint_read_stdstreams", "args": {"stream": "stderr", "description": "err"}},
 {"call": "checkpoint_read_stdstreams", "args": {"pattern": "^t", "description": "grep"}},
 {"call": "checkpoint_read_stdstreams", "args": {"checkpoint_id": 1}},
 {"call": "session_read_file", "args": {"path": "a.txt", "description": "read"}},
 {"call": "session_read_files", "args": {"paths": ["a.txt"], "description": "read"}},
 {"call": "session_history", "args": {"description": "look"}},
 {"call": "get_session_state", "args": {"description": "state"}},
 {"call": "session_checkpoint_label", "args": {"checkpoint_id": 1, "label": "seeded", "description": "mark"}},
 {"call": "session_diff", "args": {"from_checkpoint_label": "seeded", "to_checkpoint_id": 2, "description": "what bash did"}},
 {"call": "session_rollback", "args": {"checkpoint_label": "seeded", "description": "back"}},
 {"call": "session_read_file", "args": {"path": "a.txt", "description": "read"}},
 {"call": "session_fork", "args": {"checkpoint_id": 2}, "save": {"fork": "session_id"}},
 {"call": "session_label", "args": {"label": "forked"}},
 {"call": "session_write_files", "args": {"entries": [{"path": "f.txt", "content": "from the fork\n"}], "description": "fork work"}},
 {"call": "session_switch", "args": {"session_id": "@sid"}},
 {"call": "session_merge", "args": {"source_session_id": "@fork", "keys": ["f.txt"], "description": "take f"}},
 {"call": "session_delete_files", "args": {"paths": ["bin.dat"], "description": "drop"}},
 {"call": "session_mount", "args": {"path": "HOST/proj", "description": "project"}},
 {"call": "session_extract_text", "args": {"path": "doc.pdf", "description": "text"}},
 {"call": "session_fetch", "args": {"url": "https://unlisted.example/", "method": "GET", "headers": [{"name": "Accept", "value": "text/plain"}], "description": "fetch"}},
 {"call": "session_package_install", "args": {"package_manager": "pip", "packages": ["requests"], "description": "pip"}},
 {"call": "session_get_env", "args": {"name": "HOME"}},
 {"call": "session_chat_record", "args": {"prompt": "what is in a.txt?", "response": "one"}},
 {"call": "session_history", "args": {"description": "before squash"}},
 {"call": "session_checkpoint_squash", "args": {"from_checkpoint_id": 1, "to_checkpoint_id": 3, "label": "squashed", "description": "tidy"}},
 {"call": "session_checkpoint_drop", "args": {"from_checkpoint_id": 1, "to_checkpoint_id": 1, "description": "drop"}},
 {"call": "session_export", "args": {"output_dir": "EXP/out", "description": "out"}},
 {"call": "delete_from_host", "args": {"path": "EXP/out/doc.pdf"}},
 {"call": "session_tree", "args": {}},
 {"call": "session_list", "args": {}},
 {"call": "session_snapshot", "args": {"description": "keep"}, "save": {"snap": "path"}},
 {"call": "list_snapshots", "args": {}},
 {"call": "session_restore", "args": {"path": "@snap"}},
 {"call": "session_read_file", "args": {"path": "f.txt", "description": "restored"}},
 {"call": "session_read_file", "args": {"path": "f.txt", "offset": 5, "limit": 3, "description": "bytes"}},
 {"call": "session_read_file", "args": {"path": "f.txt", "offset": 1, "pattern": "fork", "description": "grep"}},
 {"call": "session_read_file", "args": {"path": "f.txt", "pattern": "fork", "description": "grep"}},
 {"call": "session_close", "args": {}}]
JSON
sed -i "s|HOST|$TMP/host|; s|EXP|$TMP/exp|g" "$TMP/script"
PATH=$TMP/bin:$PATH sdk_run "$TMP/script" --store "$ST" --config "$CFG"
is "$sdk_rc" 0 'the drun-shaped replay completes'
status_ok $(! grep -q '"error"' "$TMP/o"; echo $?) 'no call in drun shape is refused at the protocol level'
[ "$sdk_rc" = 0 ] || diag "$(cat "$TMP/o.err" | tail -5)"
grep '"error"' "$TMP/o" | while read -r l; do diag "$l"; done
like "$(sed -n 2p "$TMP/o")" '"delete_from_host".*"session_tree".*"get_system_instructions".*"session_get_env".*"session_checkpoint_squash".*"session_checkpoint_drop".*"session_merge".*"checkpoint_read_stdstreams".*"session_chat_record"' "tools/list: drun's tools"
like "$(rj get_system_instructions 1 .instructions)" 'create_session' 'get_system_instructions: the guide'
is "$(rj session_write_files 1 '[.written[].bytes]|@json')" '[4,4,10]' 'write_files: is_base64 decoded (4 bytes)'
is "$(rj session_bash 1 .stdout)" "one
two" 'session_bash {command, description}'
is "$(rj checkpoint_read_stdstreams 1 .content):$(rj checkpoint_read_stdstreams 1 .total_bytes):$(rj checkpoint_read_stdstreams 1 .has_more)" "two:8:true" 'checkpoint_read_stdstreams {checkpoint_id: 2, offset, limit}: bytes'
is "$(rj checkpoint_read_stdstreams 2 .content)" "warn" '... {stream: stderr} of the latest'
is "$(rj checkpoint_read_stdstreams 3 '.matches[0]|[.line_number,.byte_offset,.text]|@json')" '[2,4,"two"]' '... {pattern}: line numbers and byte offsets'
is "$(rj checkpoint_read_stdstreams 4 .total_bytes)" 0 'control: a checkpoint no command made has no output'
is "$(rj session_read_file 1 .content)" "one
two" 'read_file {path, description}'
is "$(rj session_history 1 '[.checkpoints[].number]|@json')" '[2,1,0]' 'history: numbered, 0 the oldest'
is "$(rj session_checkpoint_label 1 .label)" seeded 'checkpoint_label {checkpoint_id: 1}'
like "$(rj session_diff 1 .diff)" '\+two' 'diff {from_checkpoint_label, to_checkpoint_id: 2}'
is "$(rj session_read_file 2 .content)" "one" 'rollback {checkpoint_label}'
like "$(r session_fork)" '"isError":false' 'fork {checkpoint_id: 2}'
is "$(rj session_merge 1 .source_session_id)" "$(rj session_fork 1 .session_id)" 'merge {source_session_id, keys} from the fork'
is "$(rj session_delete_files 1 '.deleted[0].deleted')" true 'delete_files {paths, description}'
is "$(rj session_mount 1 .copied_to)" proj 'mount {path, description}'
like "$(rj session_extract_text 1 .stdout):$(rj session_extract_text 1 .saved_to)" 'outside write refused:doc.pdf.txt' 'extract_text: pdftotext ran confined (its write outside refused)'
status_ok $([ ! -e "$TMP/outside-write" ]; echo $?) '... and nothing was written outside'
like "$(r session_fetch)" '"isError":true.*unlisted\.example is not on domain_allowlist' 'fetch {headers: [{name, value}]}: read, then the host refused'
like "$(r session_package_install)" '"isError":true.*package_install_enabled' 'package_install {description}: off by default'
is "$(rj session_get_env 1 .value)" "$HOME" 'get_env {name} on env_allowlist'
is "$(rj session_chat_record 1 .chat_turns)" 1 'chat_record {prompt, response}'
n=$(rj session_history 2 '.checkpoints|length')
is "$(rj session_checkpoint_squash 1 '.checkpoints|length')" "$((n - 2))" 'checkpoint_squash {from: 1, to: 3, label}: three become one'
like "$(rj session_checkpoint_squash 1 '.checkpoints[].labels[]')" squashed '... labelled'
is "$(rj session_checkpoint_drop 1 '.checkpoints|length')" "$((n - 3))" 'checkpoint_drop {from: 1, to: 1}'
is "$(cat "$TMP/exp/out/a.txt"):$(cat "$TMP/exp/out/f.txt")" "one:from the fork" 'export {output_dir, description}'
is "$(rj delete_from_host 1 .deleted)" true 'delete_from_host {path}'
status_ok $([ ! -e "$TMP/exp/out/doc.pdf" ] && [ -e "$TMP/exp/out/a.txt" ]; echo $?) '... that file only'
is "$(rj session_tree 1 '[.sessions[]|.forks|length]|add')" 1 'session_tree: the fork under its session'
like "$(rj session_snapshot 1 .path)" "^$ST/snapshots/" 'snapshot: a path'
is "$(rj session_read_file 3 .content)" "from the fork" 'restore {path}: the merged file is back'
is "$(rj session_read_file 4 '[.content,.offset,.length,.total_bytes,.has_more]|@json')" '["the",5,3,14,true]' 'read_file {offset, limit}: bytes, as drun'
is "$(rj session_read_file 5 '.matches|length')" 0 'read_file {offset: 1, pattern}: a line starting before the offset is not searched'
is "$(rj session_read_file 6 '.matches[0]|[.line_number,.byte_offset,.text]|@json')" '[1,0,"from the fork"]' 'control: from 0 it matches, with its line number and byte offset'
like "$(r session_close)" '"isError":false' 'close'

# the standard streams travel with the history: after a snapshot and a
# restore, and in a fork, checkpoint_read_stdstreams gives what each
# checkpoint's command printed; control: the source session reads the same
cat > "$TMP/script5" <<'JSON'
[{"call": "create_session", "args": {}},
 {"call": "session_bash", "args": {"command": "echo out-one; echo err-one >&2; echo 1 > f"}, "save": {"a": "checkpoint_id"}},
 {"call": "session_bash", "args": {"command": "echo out-two; echo 2 > f"}, "save": {"b": "checkpoint_id"}},
 {"call": "checkpoint_read_stdstreams", "args": {"checkpoint_id": "@a"}},
 {"call": "session_snapshot", "args": {}, "save": {"snap": "path"}},
 {"call": "session_restore", "args": {"path": "@snap"}},
 {"call": "checkpoint_read_stdstreams", "args": {"checkpoint_id": "@a"}},
 {"call": "checkpoint_read_stdstreams", "args": {"checkpoint_id": "@a", "stream": "stderr"}},
 {"call": "checkpoint_read_stdstreams", "args": {"checkpoint_id": "@b"}},
 {"call": "session_fork", "args": {"checkpoint_id": "@a"}},
 {"call": "checkpoint_read_stdstreams", "args": {"checkpoint_id": "@a", "stream": "stderr"}},
 {"call": "session_read_file", "args": {"path": "f"}}]
JSON
sdk_run "$TMP/script5" --store "$ST" --config "$CFG"
is "$(rj checkpoint_read_stdstreams 1 .content)" "out-one" 'control: the source session reads its checkpoint'"'"'s stdout'
is "$(rj checkpoint_read_stdstreams 2 .content)" "out-one" 'after snapshot and restore: stdout of an earlier checkpoint'
is "$(rj checkpoint_read_stdstreams 3 .content)" "err-one" '... its stderr'
is "$(rj checkpoint_read_stdstreams 4 .content)" "out-two" '... and the latest command'"'"'s'
is "$(rj checkpoint_read_stdstreams 5 .content):$(rj session_read_file 1 .content)" "err-one:1" 'in a fork at that checkpoint: its stderr, and its files'

# the same replay with one unknown argument: refused, named
cat > "$TMP/script2" <<'JSON'
[{"call": "create_session", "args": {}},
 {"call": "session_bash", "args": {"command": "true", "description": "x", "cwd": "/"}}]
JSON
sdk_run "$TMP/script2" --store "$ST" --config "$CFG"
like "$(r session_bash)" '"error":-32602' 'an argument drun does not have either: -32602'

# delete_from_host: beneath export_root only, never through a link
ln -s "$TMP/outside" "$TMP/exp/link"
mkdir -p "$TMP/exp/real"
echo x > "$TMP/exp/real/x"
cat > "$TMP/script3" <<JSON
[{"call": "delete_from_host", "args": {"path": "$TMP/outside/keep.txt"}},
 {"call": "delete_from_host", "args": {"path": "link/keep.txt"}},
 {"call": "delete_from_host", "args": {"path": "$TMP/exp/../outside/keep.txt"}},
 {"call": "delete_from_host", "args": {"path": "$TMP/exp"}},
 {"call": "delete_from_host", "args": {"path": "real/.git"}},
 {"call": "delete_from_host", "args": {"path": "link"}},
 {"call": "delete_from_host", "args": {"path": "real"}},
 {"call": "delete_from_host", "args": {"path": "real"}},
 {"call": "session_get_env", "args": {"name": "PATH"}},
 {"call": "session_extract_text", "args": {"path": "../doc.pdf"}}]
JSON
sdk_run "$TMP/script3" --store "$ST" --config "$CFG"
like "$(r delete_from_host 1)" '"isError":true.*not beneath export_root' 'delete_from_host outside export_root: refused'
like "$(r delete_from_host 2)" '"isError":true.*symbolic link' 'delete_from_host through a link: refused'
like "$(r delete_from_host 3)" '"isError":true' 'delete_from_host with ..: refused'
like "$(r delete_from_host 4)" '"isError":true.*export_root itself' 'delete_from_host of export_root itself: refused'
like "$(r delete_from_host 5)" '"isError":true.*\.git' 'delete_from_host of a .git: refused'
is "$(cat "$TMP/outside/keep.txt")" keep '... the file outside is intact'
like "$(r delete_from_host 6)" '"kind":"symbolic link \(the link only\)"' 'delete_from_host of a link: the link only'
status_ok $([ -e "$TMP/outside/keep.txt" ] && [ ! -e "$TMP/exp/link" ]; echo $?) '... what it named is intact'
like "$(r delete_from_host 7)" '"deleted":true,"kind":"directory"' 'control: a directory beneath export_root is deleted'
like "$(r delete_from_host 8)" '"deleted":false' '... and again: a no-op'
like "$(r session_get_env)" '"isError":true.*PATH is not on env_allowlist' 'get_env off env_allowlist: refused'
like "$(r session_extract_text)" '"isError":true.*component: refused' 'extract_text: a path out of the workspace refused'
cat > "$TMP/script4" <<'JSON'
[{"call": "create_session", "args": {}},
 {"call": "session_write_files", "args": {"entries": [{"path": "doc.pdf", "content": "%PDF-1.4 x"}]}},
 {"call": "session_extract_text", "args": {"path": "doc.pdf"}}]
JSON
sdk_run "$TMP/script4" --store "$ST" --config "$CFG"
like "$(r session_extract_text)" '"isError":true.*pdftotext .* is not on the server.s PATH; the server never parses a document itself' 'without pdftotext on the PATH: refused, saying so'
done_testing
