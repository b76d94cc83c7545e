#!/usr/bin/python3
# browser-agent: the agent's side of corral's browser, run inside corral run.
#   browser-agent.py [--serve DIR PORT] [--no-mcp] [--hold DIR] TOOL=JSON...
# Reads $CORRAL_MCP_CONFIG, speaks MCP (Streamable HTTP) to the server
# "browser", prints "tools N" and then one line per call:
# "TOOL => TEXT" (a result, newlines as " | ") or "TOOL => ERROR CODE MSG".
# --serve DIR PORT: first start the agent's own dev server (python3 -m
# http.server on 127.0.0.1:PORT, serving DIR) and wait until it answers.
# --no-mcp: then stop (bench/browser's side without a browser).
# --hold DIR: after the first call, write DIR/ready and wait for DIR/go.
import json, os, subprocess, sys, time, urllib.request
# loopback only (mcp-proxy, the dev server): never through a proxy of the
# environment (a domain allowlist sets HTTP_PROXY to egress-proxy)
urlopen = urllib.request.build_opener(urllib.request.ProxyHandler({})).open
sid = None
def call(i, method, params):
    global sid
    h = dict(s["headers"])
    h.update({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    if sid:
        h["Mcp-Session-Id"] = sid
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}).encode()
    resp = urlopen(urllib.request.Request(s["url"], data=body, headers=h), timeout=170)
    sid = resp.headers.get("Mcp-Session-Id") or sid
    r = resp.read().decode()
    if not r.lstrip().startswith("{"):
        r = [l[5:] for l in r.splitlines() if l.startswith("data:")][-1]
    return json.loads(r)
args = sys.argv[1:]
if args[:1] == ["--serve"]:
    dev = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                            "--directory", args[1], args[2]],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            urlopen("http://127.0.0.1:%s/" % args[2], timeout=5).read()
            break
        except OSError:
            if dev.poll() is not None:
                sys.exit("browser-agent: the dev server ended")
            time.sleep(0.1)
    args = args[3:]
if args[:1] == ["--no-mcp"]:
    sys.exit(0)
s = json.load(open(os.environ["CORRAL_MCP_CONFIG"]))["mcpServers"]["browser"]
hold = None
if args[:1] == ["--hold"]:
    hold, args = args[1], args[2:]
call(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
tools = [t["name"] for t in call(2, "tools/list", {})["result"]["tools"]]
print("tools", " ".join(sorted(tools)), flush=True)
for n, a in enumerate(args, 10):
    name, _, js = a.partition("=")
    r = call(n, "tools/call", {"name": name, "arguments": json.loads(js or "{}")})
    if "error" in r:
        t = "ERROR %d %s" % (r["error"]["code"], r["error"]["message"])
    else:
        t = " ".join(c.get("text", "") for c in r["result"]["content"])
    print(name, "=>", t.replace("\n", " | ")[:3000], flush=True)
    if hold:
        open(os.path.join(hold, "ready"), "w").close()
        while not os.path.exists(os.path.join(hold, "go")):
            time.sleep(0.1)
        hold = None
