#!/bin/sh
# sandbox-mcp config: drun's verbs (add-path, remove-path, add-domain,
# remove-domain, list) on the JSON configuration: the rest of the file kept
# as written, a file that does not read refused and left alone, / and the
# home refused as mount_allowlist entries; what they write is what the
# server then reads (get_config), each with its control.
. "$CORRAL_TOP/tests/lib/tap.sh"
SBX=$CORRAL_BIN/sandbox-mcp
C=$TMP/cfg.json
mkdir -p "$TMP/proj" "$TMP/home"
cfg() { env -i PATH=/usr/bin:/bin HOME="$TMP/home" "$SBX" --config "$C" config "$@" 2>"$TMP/err"; }
printf '{"max_sessions": 5,\n "domain_allowlist": ["a.example"]}\n' > "$C"
cfg add-path "$TMP/proj"
is "$?:$(jq -c .mount_allowlist "$C")" "0:[\"$TMP/proj\"]" 'add-path: the resolved path added'
like "$(cat "$TMP/err")" "added $TMP/proj to mount_allowlist" '... and said so'
is "$(jq -c .max_sessions "$C"):$(stat -c %a "$C")" "5:600" 'the other keys kept; mode 0600'
cfg add-path "$TMP/proj/../proj"
is "$?:$(jq -c .mount_allowlist "$C")" "0:[\"$TMP/proj\"]" 'add-path again (another spelling): nothing to do'
cfg add-domain b.example
is "$?:$(jq -c .domain_allowlist "$C")" '0:["a.example","b.example"]' 'add-domain'
cfg remove-domain a.example
is "$?:$(jq -c .domain_allowlist "$C")" '0:["b.example"]' 'remove-domain'
cfg remove-path "$TMP/gone"
like "$?:$(cat "$TMP/err")" '0:.*nothing to do: .*gone not in mount_allowlist' 'remove-path of an entry not there: nothing to do'
cfg list > "$TMP/list"
is "$(cat "$TMP/list")" "domain_allowlist:
  - b.example
mount_allowlist:
  - $TMP/proj" 'list'
# what the server reads
printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_config","arguments":{}}}\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
	env -i PATH=/usr/bin:/bin HOME="$TMP/home" "$SBX" --store "$TMP/store" --config "$C" 2>/dev/null | tail -n1 > "$TMP/gc"
is "$(jq -c '.result.structuredContent.config|[.domain_allowlist,.mount_allowlist,.max_sessions]' "$TMP/gc")" "[[\"b.example\"],[\"$TMP/proj\"],5]" 'the server reads what config wrote'
cfg remove-path "$TMP/proj"
is "$?:$(jq -c .mount_allowlist "$C")" '0:[]' 'remove-path'
# refusals: nothing written
cp "$C" "$TMP/before"
for p in / "$TMP/home" "$TMP/home/.."; do
	cfg add-path "$p"
	like "$?:$(cat "$TMP/err")" '1:.*would make the whole file system or the home mountable: refused' "add-path $p: refused"
done
cfg add-domain 'bad name!'
like "$?:$(cat "$TMP/err")" '1:.*not a host name' 'add-domain of a bad name: refused'
cfg add-path "$TMP/nope"
is "$?" 2 'add-path of a missing path: refused'
cfg frob x
like "$?:$(cat "$TMP/err")" '2:.*usage: config add-path' 'an unknown verb: usage'
run cmp "$C" "$TMP/before"
is "$rc" 0 '... and the file is as it was'
printf '{"domain_allowlist": [' > "$C"
cp "$C" "$TMP/before"
cfg add-domain c.example
like "$?:$(cat "$TMP/err")" '2:.*not valid JSON' 'a malformed file: refused'
run cmp "$C" "$TMP/before"
is "$rc" 0 '... and never rewritten'
printf '{"bash_command_denylist": ["rm"]}' > "$C"
cfg add-domain c.example
like "$?:$(cat "$TMP/err")" '2:.*bash_command_denylist' "a drun key sandbox-mcp refuses: refused, named"
rm -f "$C"
cfg add-domain c.example
is "$?:$(jq -c .domain_allowlist "$C")" '0:["c.example"]' 'control: no file yet: made, with the entry'

# drun's config.toml, converted by one command
cat > "$TMP/config.toml" <<EOF
# drun's, as its README shows it
domain_allowlist = [
  "pypi.org",        # python packages
  "files.pythonhosted.org",
]
mount_allowlist = ["$TMP/proj"]
max_workspace_mb = 1_024
snapshot_on_close = true
bash_timeout_ms = 30000
web_port = 7274
default_model = "ollama_chat/qwen3.6:latest"
anthropic_api_key = "sk-ant-SECRET-VALUE"
EOF
rm -f "$C"
cfg import-toml "$TMP/config.toml"
is "$?:$(jq -c '[.domain_allowlist,.mount_allowlist,.max_workspace_mb,.snapshot_on_close,.bash_timeout_ms]' "$C")" \
	"0:[[\"pypi.org\",\"files.pythonhosted.org\"],[\"$TMP/proj\"],1024,true,30000]" 'import-toml: the keys converted'
like "$(cat "$TMP/err" | tr '\n' ' ')" 'web_port: not carried.*default_model: not carried.*anthropic_api_key: not carried' '... the keys with no meaning here named, not carried'
status_ok $(! grep -q 'SECRET' "$C" "$TMP/err"; echo $?) '... and the API key is nowhere: not in the file, not in the messages'
cfg list > "$TMP/list"
like "$(cat "$TMP/list" | tr '\n' ' ')" "pypi.org .*$TMP/proj" 'control: the converted file reads'
cfg import-toml "$TMP/config.toml"
like "$?:$(cat "$TMP/err")" '1:.*exists: not replaced' 'import-toml over an existing file: refused'
rm -f "$C"
for t in '[server]' 'x.y = 1' 'max_sessions = 1.5' 'bash_command_denylist = ["rm -rf"]' 'mount_allowlist = "/"' 'max_sessions = """5"""'; do
	printf '%s\n' "$t" > "$TMP/bad.toml"
	cfg import-toml "$TMP/bad.toml"
	r=$?
	is "$r:$([ -e "$C" ]; echo $?)" "1:1" "import-toml refuses, writing nothing: $t"
done
like "$(cat "$TMP/err")" 'bad.toml:1:16: multi-line strings are not understood' '... with the line and column'
done_testing
