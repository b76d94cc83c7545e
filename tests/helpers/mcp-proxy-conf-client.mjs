// mcp-proxy-conf-client: the client the conformance suite's client
// scenarios drive (its URL is the last argument, the scenario in
// $MCP_CONFORMANCE_SCENARIO).
//   node mcp-proxy-conf-client.mjs NODE_MODULES direct URL
//   node mcp-proxy-conf-client.mjs NODE_MODULES proxy MCP_PROXY [ARG]... URL
// direct: the SDK client straight to URL; proxy: the same client over stdio
// to MCP_PROXY ARG... --url URL, so the two runs differ only by mcp-proxy.
// It lists the tools, calls each, and answers elicitation with its defaults.
const [nm, mode, ...rest] = process.argv.slice(2);
const url = rest.pop();
const sdk = nm + '/@modelcontextprotocol/sdk/dist/esm';
const { Client } = await import(sdk + '/client/index.js');
const { ElicitRequestSchema } = await import(sdk + '/types.js');
const client = new Client({ name: 'corral-conformance', version: '1' },
	{ capabilities: { sampling: {}, elicitation: { applyDefaults: true } } });
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
let transport;
if (mode === 'direct') {
	const { StreamableHTTPClientTransport } = await import(sdk + '/client/streamableHttp.js');
	transport = new StreamableHTTPClientTransport(new URL(url));
} else {
	const { StdioClientTransport } = await import(sdk + '/client/stdio.js');
	transport = new StdioClientTransport({ command: rest[0], args: [...rest.slice(1), '--url', url],
		env: { PATH: process.env.PATH || '/usr/bin:/bin' }, stderr: 'inherit' });
}
try {
	await client.connect(transport);
	const tools = (await client.listTools()).tools;
	for (const t of tools) {
		const args = t.name === 'add_numbers' ? { a: 2, b: 3 } : {};
		try {
			await client.callTool({ name: t.name, arguments: args }, undefined, { timeout: 10000 });
		} catch (e) {
			console.error('call ' + t.name + ': ' + e.message);
		}
	}
} catch (e) {
	console.error('client: ' + e.message);
}
await client.close().catch(() => {});
process.exit(0);
