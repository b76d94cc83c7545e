#!/bin/sh
# mcp-proxy: connections without a token cannot lock out clients that have
# one. At most 48 connections without a checked head are kept (the oldest
# gives way to a new one), and a head must be whole within 5 s of its first
# byte even when bytes keep trickling in (--listen-idle here is 60 s).
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/mcp-proxy
FAKE=$T/helpers/mcp-proxy-fake
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
waitfor() { i=0; while ! eval "$1" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; }
umask 077
printf 'listen-%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" > "$TMP/lt"
LT=$(cat "$TMP/lt")
"$P" --listen-http 0 --listen-token-file "$TMP/lt" --listen-idle 60s -a echo -- "$FAKE" "$TMP/rec" \
	> "$TMP/url" 2>"$TMP/err" & PX=$!; pids="$pids $PX"
waitfor '[ -s "$TMP/url" ]'
URL=$(head -1 "$TMP/url")
port=${URL#http://127.0.0.1:}; port=${port%/mcp}

run python3 "$CORRAL_TOP/tests/helpers/http-slowloris.py" "$port" "$LT"
like "$out" 'control True' 'control: a client with the token is served'
like "$out" 'served-under-attack True' 'served while 128 tokenless connections hold or fight for slots'
like "$out" 'evicted 64' 'the oldest tokenless connections gave their slots away'
like "$out" 'trickle-closed True' 'a head trickling in is closed by the head deadline'
like "$out" 'served-after True' 'and clients are served after'
kill $PX; wait $PX
is "$?" 0 'proxy exits 0'
done_testing
