# sbxsdk.sh: drive sandbox-mcp through the real MCP TypeScript SDK client
# (tests/helpers/sandbox-mcp-client.mjs), one connection per script. Source
# after tap.sh.
#   sdk_run SCRIPT_FILE [SERVER_ARGS...]   runs the script; lines in $TMP/o
#   r TOOL [N]                             the Nth answer of TOOL (a JSON line)
#   rj TOOL N FILTER                       jq -r FILTER on that answer's data
# $SDK_AS: a command prefix for the server (setpriv ... for nobody).
NM=$("$CORRAL_TOP/mk/npm" sbx-sdk @modelcontextprotocol/sdk@1.32.2) ||
	{ echo "Bail out! mk/npm failed"; exit 1; }
CLIENT=$CORRAL_TOP/tests/helpers/sandbox-mcp-client.mjs
SBX=$CORRAL_BIN/sandbox-mcp
SDK_AS=
sdk_run() {
	_s=$1; shift
	# shellcheck disable=SC2086
	node "$CLIENT" "$NM" "$_s" $SDK_AS "$SBX" "$@" > "$TMP/o" 2>"$TMP/o.err"
	sdk_rc=$?
}
r() { grep -F "\"tool\":\"$1\"" "$TMP/o" | sed -n "${2:-1}p"; }
rj() { r "$1" "$2" | jq -r ".data | $3"; }
