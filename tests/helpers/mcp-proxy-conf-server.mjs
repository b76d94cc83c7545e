// mcp-proxy-conf-server: a stand-in for the conformance suite's reference
// server (the suite ships none on npm), written from the "Server
// Implementation Requirements" its server scenarios print: the tools,
// resources and prompts they call, over Streamable HTTP with sessions.
//   node mcp-proxy-conf-server.mjs NODE_MODULES PORTFILE
// Listens on 127.0.0.1 (an ephemeral port, written to PORTFILE), /mcp.
const [nm, portFile] = process.argv.slice(2);
const sdk = nm + '/@modelcontextprotocol/sdk/dist/esm';
const { McpServer } = await import(sdk + '/server/mcp.js');
const { StreamableHTTPServerTransport } = await import(sdk + '/server/streamableHttp.js');
const { z } = await import(nm + '/zod/index.js');
const http = await import('node:http');
const fs = await import('node:fs');
const { randomUUID } = await import('node:crypto');

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function build() {
	const s = new McpServer({ name: 'conf-stand-in', version: '1' },
		{ capabilities: { logging: {}, tools: {}, resources: { subscribe: true }, prompts: {}, completions: {} } });
	const text = (t) => ({ content: [{ type: 'text', text: t }] });
	s.registerTool('test_simple_text', { description: 'simple text' }, async () => text('This is a simple text response for testing.'));
	s.registerTool('test_image_content', { description: 'image' }, async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }));
	s.registerTool('test_audio_content', { description: 'audio' }, async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }));
	s.registerTool('test_embedded_resource', { description: 'resource' }, async () => ({ content: [{ type: 'resource',
		resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] }));
	s.registerTool('test_multiple_content_types', { description: 'mixed' }, async () => ({ content: [
		{ type: 'text', text: 'Multiple content types test:' },
		{ type: 'image', data: PNG, mimeType: 'image/png' },
		{ type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } }] }));
	s.registerTool('test_tool_with_logging', { description: 'logs' }, async (extra) => {
		for (const [i, m] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
			if (i) await sleep(50);
			await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: m } });
		}
		return text('Tool with logging executed successfully');
	});
	s.registerTool('test_error_handling', { description: 'error' }, async () => ({ isError: true,
		content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }));
	s.registerTool('test_tool_with_progress', { description: 'progress' }, async (extra) => {
		const tok = extra._meta?.progressToken;
		for (const p of [0, 50, 100]) {
			if (tok !== undefined)
				await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: tok, progress: p, total: 100 } });
			await sleep(50);
		}
		return text(String(tok ?? 'no token'));
	});
	s.registerResource('static-text', 'test://static-text', { mimeType: 'text/plain' },
		async () => ({ contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }));
	s.registerResource('static-binary', 'test://static-binary', { mimeType: 'image/png' },
		async () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }] }));
	s.registerPrompt('test_simple_prompt', { description: 'simple' }, async () => ({
		messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }));
	s.registerPrompt('test_prompt_with_arguments', { description: 'args', argsSchema: { arg1: z.string(), arg2: z.string() } },
		async ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }));
	return s;
}

const sessions = new Map();
const server = http.createServer(async (req, res) => {
	let body = '';
	for await (const d of req) body += d;
	const parsed = body ? JSON.parse(body) : undefined;
	const sid = req.headers['mcp-session-id'];
	let t = sid && sessions.get(sid);
	if (!t) {
		if (req.method !== 'POST' || parsed?.method !== 'initialize') {
			res.writeHead(sid ? 404 : 400).end();
			return;
		}
		t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
			onsessioninitialized: (id) => sessions.set(id, t) });
		await build().connect(t);
	}
	await t.handleRequest(req, res, parsed);
});
server.listen(0, '127.0.0.1', () => {
	fs.writeFileSync(portFile + '.tmp', String(server.address().port));
	fs.renameSync(portFile + '.tmp', portFile);
});
process.on('SIGTERM', () => process.exit(0));
