# sbx.sh: drive sandbox-mcp one tool call per server process (which also
# proves nothing is held in memory). Source after tap.sh.
#   sbx_setup DIR      a home, a store and a config path under DIR
#   sbx TOOL [ARGS]    one call; sets $res (structuredContent, compact),
#                      $iserr (true/false), $text (the text content), $rc
#   j FILTER           jq -r FILTER on $res
# $SBX_AS: a command prefix (as_nobody) to run the server under; $SBX_ENV:
# more NAME=VALUE words for its environment.
SBX=$CORRAL_BIN/sandbox-mcp
SBX_AS=
SBX_INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
sbx_setup() {
	SD=$1
	mkdir -p "$SD/home/.ssh" "$SD/home/.config/corral"
	echo "PRIVATE-KEY-MATERIAL" > "$SD/home/.ssh/id_ed25519"
	SBX_STORE=$SD/store SBX_CFG=$SD/home/.config/corral/sandbox-mcp.json SBX_HOME=$SD/home
}
sbx() {
	_t=$1 _a=${2:-'{}'}
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
		"$SBX_INIT" "$_t" "$_a" |
		$SBX_AS env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" LANG=C.UTF-8 SECRET_TOKEN=hunter2 ${SBX_ENV:-} \
		"$SBX" --store "$SBX_STORE" --config "$SBX_CFG" >"$SD/.r" 2>"$SD/.e"
	rc=$?
	res=$(tail -n1 "$SD/.r" | jq -c '.result.structuredContent // empty' 2>/dev/null)
	iserr=$(tail -n1 "$SD/.r" | jq -r '.result.isError' 2>/dev/null)
	text=$(tail -n1 "$SD/.r" | jq -r '.result.content[0].text // .error.message' 2>/dev/null)
}
j() { printf '%s' "$res" | jq -r "$1"; }
