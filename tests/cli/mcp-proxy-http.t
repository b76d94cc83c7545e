#!/bin/sh
# mcp-proxy: Streamable HTTP upstream over libcurl+BearSSL. Bearer token from a
# 0600 file or fd, sent only upstream and never shown; session id, protocol
# version, JSON and SSE answers, re-initialize once on 404; TLS verified
# against a test CA made here; server-everything over Streamable HTTP.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
REC=$TMP/record
call() { echo "send {\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":{}${3-}}}"; }
umask 077
mp_token

# 1. plain HTTP on loopback: the protocol
node "$FAKEH" "$TMP/port" "$REC" & pids="$pids $!"
port=$(waitfile "$TMP/port")
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","method":"notifications/initialized"}
send {"jsonrpc":"2.0","id":1,"method":"tools/list"}
wait 1
$(call 2 echo ',"_meta":{"progressToken":"pt"}')
wait 2
$(call 3 json)
wait 3
$(call 4 secret)
wait 4
$(call 5 expire)
wait 5
$(call 6 fail)
wait 6
$(call 7 json)
wait 7
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a echo -a json -a expire -a fail --token-file "$TMP/token" \
	--audit "$TMP/audit" --url "http://127.0.0.1:$port/mcp"
printf '%s\n' "$out" > "$TMP/out"
like "$out" '"id":"i","result":\{"protocolVersion":"2025-11-25".*"name":"fake-http"' 'initialize through HTTP'
like "$out" '"id":1,"result":\{"tools":\[\{"name":"echo".*\{"name":"fail"[^]]*\]\}' 'tools/list (JSON answer) filtered'
unlike "$(grep '"id":1,' "$TMP/out")" '"secret"' 'secret tool filtered'
like "$out" '"method":"notifications/progress","params":\{"progressToken":"pt"' 'SSE: progress event forwarded'
like "$out" '"id":2,"result":\{"content":\[\{"type":"text","text":"sse ok"\}\]\}' 'SSE: answer from a two-line CRLF event'
like "$out" '"id":3,"result":\{"content":\[\{"type":"text","text":"json ok"' 'JSON answer'
like "$out" '"id":4,"error":\{"code":-32602' 'refused tool over HTTP too'
like "$out" '"id":5,"result":\{"content":\[\{"type":"text","text":"after a new session"' '404: re-initialized once, call retried'
like "$err" 'upstream session expired \(404\); initializing again' '404 logged'
like "$out" '"id":6,"error":\{"code":-32000,"message":"upstream unavailable"\}' 'HTTP 500: error to the client'
like "$err" 'upstream answered HTTP 500' 'HTTP 500 logged'
like "$out" '"id":7,"result":\{"content"' 'session still up after both'
posts=$(grep -c '"method":"POST"' "$REC")
is "$(grep '"method":"POST"' "$REC" | grep -c "\"authorization\":\"Bearer $TOKEN\"")" "$posts" 'every POST carries the bearer token'
like "$(grep '"initialize' "$REC" | head -1)" '"session":null,"version":null' 'initialize: no session, no version header'
like "$(grep 'tools/list' "$REC")" '"session":"sess-1","version":"2025-11-25"' 'later requests: Mcp-Session-Id and MCP-Protocol-Version'
like "$(grep 'tools/list' "$REC")" '"accept":"application/json, text/event-stream"' 'Accept: JSON and SSE'
is "$(grep -c '"method\\":\\"initialize' "$REC")" 2 'two handshakes: the second after the 404'
like "$(grep '\\"json\\"' "$REC" | tail -1)" '"session":"sess-2"' 'the new session is used afterwards'
unlike "$(grep '"method":"POST"' "$REC" | grep '\\"secret\\"')" 'tools/call' 'refused call never reached the upstream'
unlike "$out$err$(cat "$TMP/audit")" "$TOKEN" 'token never in responses, log or audit'

# 2. token policy
chmod 0644 "$TMP/token"
run "$P" --token-file "$TMP/token" --url "http://127.0.0.1:$port/mcp"
is "$rc" 2 'token file readable by others: refused'
like "$err" "^mcp-proxy: fatal: bearer token $TMP/token is readable by group or others \\(mode 0644\\)" 'token mode: message'
unlike "$err" "$TOKEN" 'token mode: token not shown'
chmod 0600 "$TMP/token"
ln -s "$TMP/token" "$TMP/token-link"
run "$P" --token-file "$TMP/token-link" --url "http://127.0.0.1:$port/mcp"
is "$rc" 2 'token through a symlink: refused'
printf 'a b\n' > "$TMP/badtoken"
run "$P" --token-file "$TMP/badtoken" --url "http://127.0.0.1:$port/mcp"
like "$err" 'has characters a header cannot carry' 'token with a space (header injection) refused'
printf 'abc\r\nX-Evil: 1\n' > "$TMP/badtoken"
run "$P" --token-file "$TMP/badtoken" --url "http://127.0.0.1:$port/mcp"
is "$rc" 2 'token with CRLF refused'
run "$P" --token-file "$TMP/token" --url "http://example.com/mcp"
is "$rc" 2 'plain http to a non-loopback host refused'
like "$err" 'must be https://' 'plain http: message'
run "$P" --token-file "$TMP/token" -- true
is "$rc" 2 'token without --url refused'
# ownership, as root and as nobody
cp "$TMP/token" "$TMP/ntoken"
chown nobody "$TMP/ntoken"
run "$P" --token-file "$TMP/ntoken" --url "http://127.0.0.1:$port/mcp"
is "$rc" 2 'root: a token file owned by someone else is refused'
like "$err" 'is owned by uid [0-9]+, not by you' 'not owned: message'
run as_nobody "$P" --token-file "$TMP/token" --url "http://127.0.0.1:$port/mcp"
is "$rc" 2 'nobody: root-owned 0600 token unreadable'
like "$err" "^mcp-proxy: fatal: unable to read the bearer token $TMP/token: Permission denied" 'nobody: message'
chmod 0755 "$TMP"
run as_nobody "$P" --token-file "$TMP/ntoken" --url "http://127.0.0.1:$port/mcp" </dev/null
is "$rc" 0 'nobody: its own 0600 token accepted, exits when stdin closes'
unlike "$err" "$TOKEN" 'nobody: token not shown'
: > "$REC"
{ echo "send $INIT"; echo 'wait "i"'; call 1 json; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- sh -c 'f=$1; shift; exec "$0" "$@" 3<"$f"' "$P" "$TMP/token" -a json --token-fd 3 --url "http://127.0.0.1:$port/mcp"
like "$out" '"id":1,"result":\{"content"' 'token from a descriptor works'
like "$(grep tools/call "$REC")" "\"authorization\":\"Bearer $TOKEN\"" 'token from a descriptor sent'

# 3. TLS: a test CA, server certificates for localhost and for another name
# (BearSSL checks DNS names; libcurl refuses to skip the check for an IP)
C=$TMP/ca
mkdir -p "$C"
cert() {	# cert NAME DNSNAME
	openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "/CN=$2" 2>/dev/null &&
	printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" > "$C/$1.ext" &&
	openssl x509 -req -in "$C/$1.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial -out "$C/$1.pem" \
		-days 2 -extfile "$C/$1.ext" 2>/dev/null
}
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 -subj /CN=corral-test-ca 2>/dev/null &&
	cert srv localhost && cert wrong other.test
status_ok $? 'test CA and server certificates made with openssl'
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/other.key" -out "$C/other.pem" -days 2 -subj /CN=other-ca 2>/dev/null
node "$FAKEH" "$TMP/tport" "$TMP/trec" "$C/srv.key" "$C/srv.pem" & pids="$pids $!"
node "$FAKEH" "$TMP/wport" "$TMP/wrec" "$C/wrong.key" "$C/wrong.pem" & pids="$pids $!"
tport=$(waitfile "$TMP/tport")
wport=$(waitfile "$TMP/wport")
{ echo "send $INIT"; echo 'wait "i"'; call 1 json; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --token-file "$TMP/token" --cacert "$C/ca.pem" --url "https://localhost:$tport/mcp"
like "$out" '"id":1,"result":\{"content":\[\{"type":"text","text":"json ok"' 'TLS with the test CA: works'
like "$(grep tools/call "$TMP/trec")" "\"authorization\":\"Bearer $TOKEN\"" 'TLS: token sent'
: > "$TMP/trec"
{ echo "send $INIT"; echo 'wait "i"'; echo "send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"; echo 'wait 1'; } > "$TMP/s"
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --token-file "$TMP/token" --url "https://localhost:$tport/mcp"
like "$out" '"id":1,"result":\{"tools":\[\]\}' 'system CA bundle does not know the test CA: zero tools'
like "$err" 'upstream SSL peer certificate or SSH remote key was not OK; retrying' 'verification failure logged, retried'
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --token-file "$TMP/token" --cacert "$C/other.pem" --url "https://localhost:$tport/mcp"
like "$out" '"id":1,"result":\{"tools":\[\]\}' 'another CA: refused'
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --token-file "$TMP/token" --cacert "$C/ca.pem" --url "https://127.0.0.1:$tport/mcp"
like "$out" '"id":1,"result":\{"tools":\[\]\}' 'an IP address cannot be verified against the name: refused'
is "$(cat "$TMP/trec")" "" 'nothing (no token) reached the server on a failed verification'
run python3 "$DRIVE" "$TMP/s" -- "$P" -a json --token-file "$TMP/token" --cacert "$C/ca.pem" --url "https://localhost:$wport/mcp"
like "$out" '"id":1,"result":\{"tools":\[\]\}' 'right CA, certificate for another name: refused'
is "$(cat "$TMP/wrec" 2>/dev/null)" "" 'nothing reached the wrongly named server'
unlike "$out$err" "$TOKEN" 'token never shown in TLS failures'

# 4. server-everything over Streamable HTTP
NM=$("$CORRAL_TOP/mk/npm" mcp @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@0.15.0 2>/dev/null)
SE=$NM/@modelcontextprotocol/server-everything/dist/index.js
sport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env -i PATH="$PATH" PORT=$sport node "$SE" streamableHttp >"$TMP/se.log" 2>&1 & pids="$pids $!"
i=0; while ! grep -q 'listening on port' "$TMP/se.log" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
cat > "$TMP/s" <<EOS
send $INIT
wait "i"
send {"jsonrpc":"2.0","id":1,"method":"tools/list"}
wait 1
send {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":20,"b":22}}}
wait 2
send {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":0.2,"steps":2},"_meta":{"progressToken":9}}}
wait 3
send {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get-env","arguments":{}}}
wait 4
EOS
run python3 "$DRIVE" "$TMP/s" -- "$P" -a get-sum -a trigger-long-running-operation --url "http://127.0.0.1:$sport/mcp"
like "$out" '"serverInfo":\{"name":"mcp-servers/everything"' 'server-everything over HTTP: handshake'
is "$(printf '%s\n' "$out" | grep '"id":1,' | grep -o '"name":"[a-z-]*","title"' | tr '\n' ' ')" '"name":"get-sum","title" "name":"trigger-long-running-operation","title" ' 'server-everything over HTTP: filtered list'
like "$out" 'The sum of 20 and 22 is 42' 'server-everything over HTTP: call'
like "$out" '"method":"notifications/progress","params":\{"progress":1,"total":2,"progressToken":9\}' 'server-everything over HTTP: progress over SSE'
like "$(printf '%s\n' "$out" | grep '"id":3')" 'Long running operation completed' 'server-everything over HTTP: long call'
like "$out" '"id":4,"error":\{"code":-32602' 'server-everything over HTTP: refusal'

# 5. the legacy HTTP+SSE transport, detected (404 to a POSTed initialize) and bridged
lport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env -i PATH="$PATH" PORT=$lport node "$SE" sse >"$TMP/sse.log" 2>&1 & pids="$pids $!"
i=0; while ! grep -q 'running on port' "$TMP/sse.log" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
run python3 "$DRIVE" "$TMP/s" -- "$P" -a get-sum -a trigger-long-running-operation --url "http://127.0.0.1:$lport/sse"
like "$err" 'upstream answered HTTP 404 to initialize; trying the legacy HTTP\+SSE transport' 'legacy: detected'
like "$out" '"serverInfo":\{"name":"mcp-servers/everything"' 'legacy: handshake through the event stream'
is "$(printf '%s\n' "$out" | grep '"id":1,' | grep -o '"name":"[a-z-]*","title"' | tr '\n' ' ')" '"name":"get-sum","title" "name":"trigger-long-running-operation","title" ' 'legacy: filtered list'
like "$out" 'The sum of 20 and 22 is 42' 'legacy: call'
like "$out" '"method":"notifications/progress","params":\{"progress":1,"total":2,"progressToken":9\}' 'legacy: progress'
like "$out" '"id":4,"error":\{"code":-32602' 'legacy: refusal'
: > "$TMP/erec"
FAKE_MODE=evil-endpoint node "$FAKEH" "$TMP/eport" "$TMP/erec" & pids="$pids $!"
eport=$(waitfile "$TMP/eport")
{ echo "send $INIT"; echo 'wait "i"'; echo "send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"; echo 'wait 1'; } > "$TMP/s5"
run python3 "$DRIVE" "$TMP/s5" -- "$P" -a json --token-file "$TMP/token" --url "http://127.0.0.1:$eport/mcp"
like "$err" 'upstream named a POST endpoint of another origin; retrying' 'legacy: an endpoint on another origin is refused'
like "$out" '"id":1,"result":\{"tools":\[\]\}' 'legacy, refused endpoint: zero tools'
is "$(grep -c '"method":"POST"' "$TMP/erec")" 2 'two probing POSTs (server/discover, then initialize), nothing posted after the refusal'
is "$(grep '"method":"POST"' "$TMP/erec" | grep -o 'method\\":\\"[a-z/]*' | tr '\n' ' ')" 'method\":\"server/discover method\":\"initialize ' 'the probes, in order'
done_testing
