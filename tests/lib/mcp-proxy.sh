# mcp-proxy.sh: what mcp-proxy's tests share. Source it after tap.sh.
#   P FAKE FAKEH DRIVE INIT   the proxy, the stdio and HTTP fakes, the driver, a client's initialize
#   pids                      background processes, killed at exit (the trap also removes $TMP)
#   waitfor EXPR              until EXPR holds (15 s at most: the test then fails on content)
#   waitfile FILE             until FILE is not empty (15 s at most), then print it
#   mp_listen_token           a listen token in $TMP/lt (0600), also in $LT
#   mp_token                  an upstream token in $TMP/token (0600), also in $TOKEN
#   mp_http ARG...            mcp-proxy --listen-http 0 --listen-token-file $TMP/lt ARG... in the
#                             background, stderr in $TMP/err: sets $PX, $URL and $port
P=$CORRAL_BIN/mcp-proxy
FAKE=$T/helpers/mcp-proxy-fake
FAKEH=$CORRAL_TOP/tests/helpers/mcp-proxy-fake-http.mjs
DRIVE=$CORRAL_TOP/tests/helpers/mcp-proxy-drive.py
MPPY=$CORRAL_TOP/tests/lib/mcphttp.py
INIT='{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
waitfor() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; }
waitfile() { i=0; while [ ! -s "$1" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; cat "$1"; }
mp_listen_token() {
	(umask 077; printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt")
	LT=$(cat "$TMP/lt")
}
mp_http() {
	: > "$TMP/url"
	"$P" --listen-http 0 --listen-token-file "$TMP/lt" "$@" > "$TMP/url" 2>"$TMP/err" & PX=$!
	pids="$pids $PX"
	waitfor '[ -s "$TMP/url" ]'
	URL=$(head -1 "$TMP/url")
	port=${URL#http://127.0.0.1:}; port=${port%/mcp}
}
mp_token() {	# an upstream bearer token in $TMP/token (0600), also in $TOKEN
	TOKEN=corral-test-token-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	(umask 077; printf '%s\n' "$TOKEN" > "$TMP/token")
}
