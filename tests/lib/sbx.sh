# sbx.sh: drive sandbox-mcp one tool call per server process (which also
# proves nothing is held in memory). Source after tap.sh.
#   sbx_setup DIR      a home, a store and a config path under DIR
#   sbx TOOL [ARGS]    one call; sets $res (structuredContent, compact),
#                      $iserr (true/false), $text (the text content), $rc
#   j FILTER           jq -r FILTER on $res
# $SBX_AS: a command prefix (as_nobody) to run the server under; $SBX_ENV:
# more NAME=VALUE words for its environment.
# The current session belongs to the connection, and each call here is a
# connection of its own: like a client, sbx keeps the session it created,
# switched to, forked or restored ($SBX_CUR) and passes it as session_id to
# the tools that take one, unless the call names one itself.
SBX=$CORRAL_BIN/sandbox-mcp
SBX_AS=
SBX_INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
sbx_setup() {
	SD=$1
	mkdir -p "$SD/home/.ssh" "$SD/home/.config/corral"
	echo "PRIVATE-KEY-MATERIAL" > "$SD/home/.ssh/id_ed25519"
	SBX_STORE=$SD/store SBX_CFG=$SD/home/.config/corral/sandbox-mcp.json SBX_HOME=$SD/home
}
SBX_CUR=
sbx() {
	_t=$1 _a=${2:-'{}'}
	case $_t in create_session|session_list|get_config|list_snapshots|session_restore|session_tree|get_system_instructions|session_get_env|delete_from_host) ;;
	*) [ -n "$SBX_CUR" ] && _a=$(printf '%s' "$_a" |
		jq -c --arg s "$SBX_CUR" 'if has("session_id") then . else . + {session_id: $s} end' 2>/dev/null || printf '%s' "$_a") ;;
	esac
	printf '%s\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
		"$SBX_INIT" "$_t" "$_a" |
		$SBX_AS env -i PATH=/usr/bin:/bin HOME="$SBX_HOME" LANG=C.UTF-8 SECRET_TOKEN=hunter2 ${SBX_ENV:-} \
		"$SBX" --store "$SBX_STORE" --config "$SBX_CFG" >"$SD/.r" 2>"$SD/.e"
	rc=$?
	res=$(tail -n1 "$SD/.r" | jq -c '.result.structuredContent // empty' 2>/dev/null)
	iserr=$(tail -n1 "$SD/.r" | jq -r '.result.isError' 2>/dev/null)
	text=$(tail -n1 "$SD/.r" | jq -r '.result.content[0].text // .error.message' 2>/dev/null)
	case $_t:$iserr in
	create_session:false|session_switch:false|session_fork:false|session_restore:false)
		SBX_CUR=$(printf '%s' "$res" | jq -r .session_id) ;;
	session_close:false)
		[ "$(printf '%s' "$_a" | jq -r .session_id)" = "$SBX_CUR" ] && SBX_CUR= ;;
	esac
}
j() { printf '%s' "$res" | jq -r "$1"; }
