#!/bin/sh
# mcp-proxy against real peers from npm: @modelcontextprotocol/server-everything
# upstream over stdio; a client on @modelcontextprotocol/sdk and the MCP
# Inspector CLI (run with node directly) downstream.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/mcp-proxy
NM=$("$CORRAL_TOP/mk/npm" mcp @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@0.15.0) ||
	{ echo "Bail out! mk/npm failed"; exit 1; }
SE=$NM/@modelcontextprotocol/server-everything/dist/index.js
INSPECT=$NM/@modelcontextprotocol/inspector-cli/build/index.js
NODE=$(command -v node)
ALLOW="-a echo -a get-sum -a trigger-long-running-operation -a trigger-sampling-request"

# 1. SDK client through the proxy
run node "$CORRAL_TOP/tests/helpers/mcp-proxy-sdk-client.mjs" "$NM" "$P" --audit "$TMP/audit" $ALLOW -- "$NODE" "$SE" stdio
is "$rc" 0 'sdk client: completes'
like "$out" '"server":"mcp-servers/everything"' 'sdk client: handshake with the real server'
like "$out" '"tools":\["echo","get-sum","trigger-long-running-operation","trigger-sampling-request"\]' 'sdk client: exactly the allowed tools, over every page'
like "$out" '"echo":"Echo: hi"' 'sdk client: echo'
like "$out" '"sum":"The sum of 2 and 3 is 5."' 'sdk client: get-sum'
like "$out" '"refused":-32602' 'sdk client: other tool refused with -32602'
like "$out" '"progress":\[1,' 'sdk client: progress notifications arrive'
like "$out" '"long":"Long running operation completed' 'sdk client: long call completes'
like "$out" '"sampling":true' 'sdk client: server-to-client sampling request round-trips'
like "$out" '"cancel":"aborted","after":"Echo: still"' 'sdk client: cancellation, session still up'
like "$(cat "$TMP/audit")" '"tool":"get-env","outcome":"denied"' 'audit: refusal'
like "$(cat "$TMP/audit")" '"tool":"trigger-long-running-operation","outcome":"cancelled"' 'audit: cancellation'
unlike "$(cat "$TMP/audit")" 'Echo: hi|message' 'audit: no arguments or results'

# the same client straight to the server sees more tools: the filter is the proxy's
run node "$CORRAL_TOP/tests/helpers/mcp-proxy-sdk-client.mjs" "$NM" "$NODE" "$SE" stdio
like "$out" '"get-env"' 'direct: the server does offer get-env'
like "$out" '"refused":"not refused"' 'direct: get-env is callable without the proxy'

# 2. Inspector CLI
run node "$INSPECT" "$P" --method tools/list -- $ALLOW -- "$NODE" "$SE" stdio
is "$rc" 0 'inspector: tools/list exits 0'
is "$(printf '%s\n' "$out" | grep -c '^      "name": ')" 3 'inspector: three tools listed (it offers no sampling, so the server hides that tool)'
run node "$INSPECT" "$P" --method tools/call --tool-name get-sum --tool-arg a=2 b=40 -- $ALLOW -- "$NODE" "$SE" stdio
like "$out" 'The sum of 2 and 40 is 42' 'inspector: allowed call'
run node "$INSPECT" "$P" --method tools/call --tool-name get-env -- $ALLOW -- "$NODE" "$SE" stdio
like "$out$err" 'MCP error -32602: Unknown tool: not allowed by the proxy' 'inspector: refused call'
run node "$INSPECT" "$P" --method resources/list -- $ALLOW -- "$NODE" "$SE" stdio
is "$rc" 0 'inspector: resources/list exits 0'
unlike "$out" '"uri": ' 'inspector: no --allow-resource, no resources listed'
run node "$INSPECT" "$P" --method resources/list -- $ALLOW --allow-resource demo://resource/static/document/architecture -- "$NODE" "$SE" stdio
like "$out" '"uri": "demo://resource/static/document/architecture.md"' 'inspector: an allowed prefix lists its resources'
is "$(printf '%s\n' "$out" | grep -c '"uri": ')" 1 'inspector: and only those'
run node "$INSPECT" "$P" --method resources/read --uri demo://resource/static/document/features.md -- $ALLOW --allow-resource demo://resource/static/document/architecture -- "$NODE" "$SE" stdio
like "$out$err" 'MCP error -32602: Unknown resource: not allowed by the proxy' 'inspector: a resource outside the prefix is refused'
done_testing
