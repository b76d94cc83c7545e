#!/bin/sh
# corral run with MCP servers: a proxy per server outside the boundary, on a
# loopback port with a per-attempt token; the agent reaches only the
# allowlisted tools, through $CORRAL_MCP_CONFIG.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
FAKE=$T/helpers/mcp-proxy-fake
H=$TMP/home W=$TMP/ws ST=$TMP/home/.local/state/corral
mkdir -p "$H" "$W"
chmod 0700 "$H"
cat > "$W/agent.py" <<'PY'
import json, os, urllib.request, urllib.error
cfg = json.load(open(os.environ["CORRAL_MCP_CONFIG"]))
s = cfg["mcpServers"]["fake"]
def call(i, method, params, headers=None):
    body = {"jsonrpc": "2.0", "id": i, "method": method, "params": params}
    h = dict(headers if headers is not None else s["headers"])
    h.update({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    req = urllib.request.Request(s["url"], data=json.dumps(body).encode(), headers=h)
    try:
        r = urllib.request.urlopen(req, timeout=60).read().decode()
    except urllib.error.HTTPError as e:
        return {"http": e.code}
    if not r.lstrip().startswith("{"):
        r = [l[5:] for l in r.splitlines() if l.startswith("data:")][-1]
    return json.loads(r)
call(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
print("tools", ",".join(t["name"] for t in call(2, "tools/list", {})["result"]["tools"]))
print("secret", call(3, "tools/call", {"name": "secret", "arguments": {}}).get("error", {}).get("code"))
print("echo", "result" in call(4, "tools/call", {"name": "echo", "arguments": {"message": "hi"}}))
print("notoken", call(5, "tools/list", {}, headers={}).get("http"))
print("url", s["url"].startswith("http://127.0.0.1:"))
PY
cat > "$TMP/p.json" <<J
{"mcp": {"fake": {"command": ["$FAKE", "$TMP/record"], "tools": ["echo"]}}}
J

run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' run -p '$TMP/p.json' -- python3 agent.py"
is "$rc" 0 "the agent ran with an MCP server"
is "$(printf '%s\n' "$out" | tr '\n' ' ')" "tools echo secret -32602 echo True notoken 401 url True " \
	"only the allowlisted tool is listed and callable; the token is required"
status_ok "$(grep 'tools/call' "$TMP/record" | grep -q '"echo"'; echo $?)" "the allowed call reached the upstream"
status_ok "$(grep -q '"secret"' "$TMP/record"; [ $? -ne 0 ]; echo $?)" "the refused call never reached the upstream"
a=$(ls -t "$ST/audit/" | grep -v mcp | head -1)
like "$(cat "$ST/audit/$a")" '"step":"mcp-proxy","server":"fake","tools":\["echo"\],"upstream":"stdio","port":"[0-9]+"' "the attempt's audit log names the proxy"
m=$(ls "$ST/audit/" | grep "mcp-fake.jsonl" | head -1)
like "$(cat "$ST/audit/$m")" '"echo"' "the proxy's own audit log records the call by name"
tok=$(printf '%s\n' "$(cat "$ST/audit/$a")" | grep -o '[0-9a-f]\{64\}' | head -1)
is "$tok" "" "no token in the audit log"
is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "the attempt directory (token, config) is gone"
is "$(pgrep -f "mcp-proxy-fake $TMP/record" | wc -l | tr -d ' ')" 0 "no proxy or upstream outlives the run"

# ports-only network: the proxies' ports are added for the agent
cat > "$TMP/p2.json" <<J
{"network": {"connect": []}, "mcp": {"fake": {"command": ["$FAKE", "$TMP/record2"], "tools": ["echo"]}}}
J
run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' run -p '$TMP/p2.json' -- python3 agent.py"
is "$rc:$(printf '%s\n' "$out" | head -1)" "0:tools echo" "network restricted to ports: the proxy's port is granted"
run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' explain -p '$TMP/p2.json' -- python3 agent.py"
like "$out" "mcp-proxy --name=fake -a echo --audit .* --listen-http 0 --listen-token-file \"\\\$ATTEMPT_DIR\"'/mcp-fake.token' -- $FAKE $TMP/record2" "explain shows the proxy"
like "$out" " --connect \"\\\$MCP_PORT_1\" " "explain: its port granted to confine"
like "$out" "-p 'CORRAL_MCP_CONFIG='\"\\\$ATTEMPT_DIR\"'/config/corral/mcp.json'" "explain: CORRAL_MCP_CONFIG pinned"
# explain starts the proxy with corral run's environment: env -i, then
# PATH, HOME and the kept names by reference (no value printed)
cat > "$TMP/p4.json" <<J
{"mcp": {"fake": {"command": ["$FAKE", "$TMP/record4"], "tools": ["echo"], "env_keep": ["KEEP_ME"]}}}
J
run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin KEEP_ME=kept-value '$C' explain -p '$TMP/p4.json' -- python3 agent.py"
pre=$(printf '%s\n' "$out" | grep "mcp-proxy --name=fake -a echo" | sed 's|/[^ ]*/mcp-proxy --name=fake -a echo.*||')
is "$pre" 'env -i PATH="${PATH:-/usr/bin:/bin}" ${HOME+"HOME=$HOME"} ${KEEP_ME+"KEEP_ME=$KEEP_ME"} ' "explain: the proxy line starts with env -i and the names corral run passes"
unlike "$out" 'kept-value' "explain: no value printed"
run env -i PATH=/usr/bin:/bin HOME=/h KEEP_ME=k http_proxy=http://127.0.0.1:9 OTHER=x sh -c "$pre env"
is "$(printf '%s\n' "$out" | sort | tr '\n' ' ')" "HOME=/h KEEP_ME=k PATH=/usr/bin:/bin " "explain's prefix: exactly PATH, HOME and the kept names (no proxy variable)"
# per-server resources and prompts: passed to the proxy; none unless listed
cat > "$TMP/p5.json" <<J
{"mcp": {"fake": {"command": ["$FAKE", "$TMP/record5"], "tools": ["echo"], "resources": ["file:///srv/docs/"], "prompts": ["greet"]}}}
J
run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' explain -p '$TMP/p5.json' -- python3 agent.py"
like "$out" "mcp-proxy --name=fake -a echo --allow-resource=file:///srv/docs/ --allow-prompt=greet --audit" "explain: resources and prompts reach the proxy"
unlike "$(sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' explain -p '$TMP/p2.json' -- python3 agent.py")" "allow-resource|allow-prompt" "a server naming tools only: no resources, no prompts"
printf '{"mcp": {"fake": {"command": ["x"], "tools": ["echo"], "resources": ["file:///a b"]}}}' > "$TMP/p6.json"
run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' explain -p '$TMP/p6.json' -- true"
is "$rc" 1 "a resource prefix with a space: the policy is refused (1)"
like "$err" 'a URI prefix is visible ASCII only' "  said so"

# a proxy that cannot start: nothing runs
cat > "$TMP/p3.json" <<J
{"mcp": {"fake": {"url": "http://example.invalid/mcp", "tools": ["echo"]}}}
J
run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' run -p '$TMP/p3.json' -- touch '$W/ran'"
is "$rc" 125 "an MCP proxy that fails: 125"
like "$err" "corral: fatal: mcp-proxy for MCP server fake did not start" "says which"
status_ok "$([ ! -e "$W/ran" ]; echo $?)" "nothing ran"
printf '{"network": "none", "mcp": {"fake": {"command": ["x"], "tools": ["echo"]}}}' > "$TMP/p4.json"
run sh -c "cd '$W' && exec env -i HOME='$H' PATH=/usr/bin:/bin '$C' run -p '$TMP/p4.json' -- true"
like "$rc:$err" "^125:corral: fatal: the policy names MCP servers, but \"network\" is \"none\"" "MCP with no network: refused"
done_testing
