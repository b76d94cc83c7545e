// mcp-proxy-sdk-client: a small MCP client on @modelcontextprotocol/sdk.
//   node mcp-proxy-sdk-client.mjs NODE_MODULES COMMAND [ARG]...
//   node mcp-proxy-sdk-client.mjs NODE_MODULES --http URL TOKEN_FILE
// Connects over stdio to COMMAND (run with an explicit environment: PATH
// only), exercises listing, calls, a refused call, progress, sampling (a
// request from the server) and cancellation, and prints one JSON report.
const [nm, command, ...args] = process.argv.slice(2);
const sdk = nm + '/@modelcontextprotocol/sdk/dist/esm';
const { Client } = await import(sdk + '/client/index.js');
const { StdioClientTransport } = await import(sdk + '/client/stdio.js');
const { CreateMessageRequestSchema } = await import(sdk + '/types.js');

const report = {};
const client = new Client({ name: 'corral-test', version: '1' }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
	role: 'assistant', model: 'test-model',
	content: { type: 'text', text: 'sampled:' + req.params.maxTokens },
}));
let changed = 0;
client.fallbackNotificationHandler = async (n) => {
	if (n.method === 'notifications/tools/list_changed') changed++;
};
let transport;
if (command === '--http') {
	const { StreamableHTTPClientTransport } = await import(sdk + '/client/streamableHttp.js');
	const fs = await import('node:fs');
	const token = fs.readFileSync(args[1], 'utf8').trim();
	transport = new StreamableHTTPClientTransport(new URL(args[0]),
		{ requestInit: { headers: { Authorization: 'Bearer ' + token } } });
} else {
	transport = new StdioClientTransport({ command, args, env: { PATH: process.env.PATH }, stderr: 'inherit' });
}
await client.connect(transport);
report.server = client.getServerVersion()?.name;

async function listAll() {
	const names = [];
	let cursor;
	do {
		const r = await client.listTools(cursor ? { cursor } : {});
		names.push(...r.tools.map((t) => t.name));
		cursor = r.nextCursor;
	} while (cursor);
	return names.sort();
}
report.tools = await listAll();
report.echo = (await client.callTool({ name: 'echo', arguments: { message: 'hi' } })).content[0].text;
report.sum = (await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } })).content[0].text;
try {
	await client.callTool({ name: 'get-env', arguments: {} });
	report.refused = 'not refused';
} catch (e) {
	report.refused = e.code;
}
const progress = [];
const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
	undefined, { onprogress: (p) => progress.push(p.progress) });
report.progress = progress;
report.long = long.content[0].text;
report.sampling = (await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'p', maxTokens: 7 } }))
	.content[0].text.includes('sampled:7');
const ac = new AbortController();
const p = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
	undefined, { signal: ac.signal });
setTimeout(() => ac.abort('test'), 200);
try {
	await p;
	report.cancel = 'completed';
} catch (e) {
	report.cancel = 'aborted';
}
report.after = (await client.callTool({ name: 'echo', arguments: { message: 'still' } })).content[0].text;
report.changed = changed;
await client.close();
console.log(JSON.stringify(report));
