#!/bin/sh
# mcp-proxy: the HTTP endpoint closes a connection that has not sent a whole
# request within --listen-idle of opening or of its last answer, so idle
# keep-alive connections (or a head trickling in) cannot hold all 64 slots.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
mp_listen_token

run "$P" --listen-idle 1s -a echo -- "$FAKE" "$TMP/rec"
is "$rc" 2 '--listen-idle without --listen-http: usage error'
like "$err" '^mcp-proxy: usage: --listen-idle needs --listen-http' '  said so'
run "$P" --listen-http 0 --listen-token-file "$TMP/lt" --listen-idle 0 -a echo -- "$FAKE" "$TMP/rec"
is "$rc" 2 '--listen-idle 0: usage error'

mp_http --listen-idle 1s -a echo -- "$FAKE" "$TMP/rec"

# Fill every slot with connections that never send a whole request: idle
# ones, one with half a head, one kept alive after an answer. Each must be
# closed by the proxy (EOF); then a new client is served again.
cat > "$TMP/fill.py" <<'EOS'
import sys
from mcphttp import Endpoint
ep = Endpoint(sys.argv[1], sys.argv[2])
ka = ep.conn(); ka.sendall(ep.request(b'{"jsonrpc":"2.0","id":1,"method":"ping"}'))
ans = ep.answer(ka, b'"id":1')
print('keepalive-answer', b'keep-alive' in ans and b'"result"' in ans)
half = ep.conn(); half.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n')
idle = [ep.conn() for _ in range(62)]
print('keepalive-closed', ep.closed(ka))
print('half-closed', ep.closed(half))
print('idle-closed', sum(ep.closed(s) for s in idle))
print('served-after', ep.served())
EOS
PYTHONPATH=$CORRAL_TOP/tests/lib run python3 "$TMP/fill.py" "$port" "$LT"
like "$out" 'keepalive-answer True' 'a keep-alive answer'
like "$out" 'keepalive-closed True' 'idle keep-alive connection closed by the proxy'
like "$out" 'half-closed True' 'a head that never completes: closed'
like "$out" 'idle-closed 62' 'every idle connection closed: the slots come back'
like "$out" 'served-after True' 'a new client is served after'
kill $PX; wait $PX
is "$?" 0 'proxy exits 0'
done_testing
