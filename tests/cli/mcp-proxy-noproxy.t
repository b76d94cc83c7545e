#!/bin/sh
# mcp-proxy --url never uses a proxy from its environment: http_proxy,
# HTTPS_PROXY and ALL_PROXY would be handed the upstream bearer token. A
# recording listener stands in for the proxy; the control shows that curl,
# given the same environment, does go to it.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
REC=$TMP/record
umask 077
mp_token

node "$FAKEH" "$TMP/port" "$REC" & pids="$pids $!"
port=$(waitfile "$TMP/port")
# the stand-in proxy: records what reaches it, answers 502
cat > "$TMP/trap.py" <<'EOS'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 0)); s.listen(16)
open(sys.argv[1] + '.tmp', 'w').write(str(s.getsockname()[1])); __import__('os').rename(sys.argv[1] + '.tmp', sys.argv[1])
while True:
    c, _ = s.accept(); c.settimeout(2)
    try:
        d = c.recv(65536)
    except socket.timeout:
        d = b''
    with open(sys.argv[2], 'ab') as f:
        f.write(d + b'\n--\n')
    try:
        c.sendall(b'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
    except OSError:
        pass
    c.close()
EOS
python3 "$TMP/trap.py" "$TMP/pport" "$TMP/trapped" & pids="$pids $!"
pport=$(waitfile "$TMP/pport")
PX=http://127.0.0.1:$pport

# control: curl with this environment goes to the stand-in proxy
run env http_proxy=$PX HTTP_PROXY=$PX ALL_PROXY=$PX curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/mcp"
is "$out" 502 'control: curl in this environment goes through the stand-in proxy'
like "$(cat "$TMP/trapped")" "127.0.0.1:$port" 'control: and the stand-in saw the request'
: > "$TMP/trapped"

cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}
wait 1
EOS
run env http_proxy=$PX HTTP_PROXY=$PX https_proxy=$PX HTTPS_PROXY=$PX ALL_PROXY=$PX all_proxy=$PX \
	DRIVE_ENV="http_proxy HTTP_PROXY https_proxy HTTPS_PROXY ALL_PROXY all_proxy" \
	python3 "$DRIVE" "$TMP/s" -- "$P" -a echo --token-file "$TMP/token" --url "http://127.0.0.1:$port/mcp"
like "$out" '"id":1,"result":\{"content"' 'the call reached the upstream directly'
is "$(cat "$TMP/trapped")" "" 'nothing reached the proxy from the environment'
unlike "$(cat "$TMP/trapped")" "$TOKEN" 'the bearer token least of all'
like "$(cat "$REC")" "Bearer $TOKEN" 'the upstream got the token'
done_testing
