// sandbox-mcp-client: drive an MCP server's tools by script, on the real
// @modelcontextprotocol/sdk client over stdio, or over Streamable HTTP.
//   node sandbox-mcp-client.mjs NODE_MODULES SCRIPT.json COMMAND [ARG]...
//   node sandbox-mcp-client.mjs NODE_MODULES SCRIPT.json --http URL TOKEN_FILE
// SCRIPT is a JSON array of steps: {"list": true} prints the tool names;
// {"sleep": MS} waits;
// {"call": NAME, "args": {...}} prints one line {"tool", "isError", "data",
// "text"} (or {"tool", "error": CODE} when the call is refused at the
// protocol level). A step's "save": {"NAME": "FIELD"} keeps its result's
// data.FIELD, and a later string argument "@NAME" is replaced by it.
// COMMAND runs with an explicit environment: PATH, HOME.
const [nm, script, command, ...args] = process.argv.slice(2);
const sdk = nm + '/@modelcontextprotocol/sdk/dist/esm';
const { Client } = await import(sdk + '/client/index.js');
const { StdioClientTransport } = await import(sdk + '/client/stdio.js');
const fs = await import('node:fs');

const steps = JSON.parse(fs.readFileSync(script, 'utf8'));
const client = new Client({ name: 'corral-test', version: '1' }, { capabilities: {} });
const env = { PATH: process.env.PATH, HOME: process.env.HOME };
let transport;
if (command === '--http') {
	const { StreamableHTTPClientTransport } = await import(sdk + '/client/streamableHttp.js');
	const token = fs.readFileSync(args[1], 'utf8').trim();
	transport = new StreamableHTTPClientTransport(new URL(args[0]),
		{ requestInit: { headers: { Authorization: 'Bearer ' + token } } });
} else {
	transport = new StdioClientTransport({ command, args, env, stderr: 'inherit' });
}
await client.connect(transport);
const saved = {};
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
out({ server: client.getServerVersion()?.name });
for (const s of steps) {
	if (s.sleep) {
		await new Promise((res) => setTimeout(res, s.sleep));
		continue;
	}
	if (s.list) {
		const r = await client.listTools();
		out({ tools: r.tools.map((t) => t.name) });
		continue;
	}
	try {
		const a = Object.fromEntries(Object.entries(s.args || {}).map(([k, v]) =>
			[k, typeof v === 'string' && v.startsWith('@') ? saved[v.slice(1)] : v]));
		const r = await client.callTool({ name: s.call, arguments: a });
		for (const [n, f] of Object.entries(s.save || {}))
			saved[n] = r.structuredContent?.[f];
		out({ tool: s.call, isError: !!r.isError, data: r.structuredContent ?? null, text: r.content?.[0]?.text });
	} catch (e) {
		out({ tool: s.call, error: e.code ?? String(e) });
	}
}
await client.close();
