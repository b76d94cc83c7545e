#!/bin/sh
# mcp-proxy: connections without a token cannot lock out clients that have
# one. At most 48 connections without a checked head are kept (the oldest
# gives way to a new one), and a head must be whole within 5 s of its first
# byte even when bytes keep trickling in (--listen-idle here is 60 s).
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
mp_listen_token
mp_http --listen-idle 60s -a echo -- "$FAKE" "$TMP/rec"

run python3 "$CORRAL_TOP/tests/helpers/http-slowloris.py" "$port" "$LT"
like "$out" 'control True' 'control: a client with the token is served'
like "$out" 'served-under-attack True' 'served while 128 tokenless connections hold or fight for slots'
like "$out" 'evicted 64' 'the oldest tokenless connections gave their slots away'
like "$out" 'trickle-closed True' 'a head trickling in is closed by the head deadline'
like "$out" 'served-after True' 'and clients are served after'
kill $PX; wait $PX
is "$?" 0 'proxy exits 0'
done_testing
