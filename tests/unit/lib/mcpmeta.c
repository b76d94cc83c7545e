/* mcp-proxy: MCP 2026-07-28 metadata: Mcp-Name source, header encoding,
 * header/body checks, _meta insertion. */
#include <string.h>

#include "tap.h"
#include "mcpmeta.h"
#include "rpc.h"

static struct rpc_toks tk;
static struct rpc_msg m;

static int
parse(const char *s)
{
	return rpc_parse(s, strlen(s), &tk, &m);
}

static const char *
enc(const char *v, size_t n)
{
	static char out[256];
	return mcpmeta_hdr_encode(v, n, out, sizeof out) < 0 ? "(error)" : out;
}

static int
dec(const char *v, char *out, size_t cap)
{
	return mcpmeta_hdr_decode(v, strlen(v), out, cap);
}

static int
check(const char *body, int modern, const char *hm, const char *hn, const char **why)
{
	*why = NULL;
	if (parse(body) < 0)
		return -9;
	return mcpmeta_check(&m, modern, hm ? hm : "", hm ? strlen(hm) : 0, hm != NULL,
	    hn ? hn : "", hn ? strlen(hn) : 0, hn != NULL, why);
}

static const char *
meta(const char *body)
{
	static struct buf b;
	b.len = 0;
	if (parse(body) < 0 || mcpmeta_add(&m, &b) < 0 || buf_add(&b, "", 1) < 0)
		return "(error)";
	return b.p;
}

int
main(void)
{
	char out[128];
	const char *why;

	/* the Mcp-Name source */
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\\u0062c\"}}");
	is_int(mcpmeta_name(&m, out, sizeof out), 3, "tools/call: params.name");
	is_str(out, "abc", "tools/call: unescaped");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":\"p\"}}");
	is_int(mcpmeta_name(&m, out, sizeof out), 1, "prompts/get: params.name");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///x\",\"name\":\"n\"}}");
	is_int(mcpmeta_name(&m, out, sizeof out), 9, "resources/read: params.uri");
	is_str(out, "file:///x", "resources/read: the uri, not the name");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	is_int(mcpmeta_name(&m, out, sizeof out), -2, "tools/list names nothing");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}");
	is_int(mcpmeta_name(&m, out, sizeof out), -1, "tools/call without a name");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":7}}");
	is_int(mcpmeta_name(&m, out, sizeof out), -1, "tools/call with a number for a name");

	/* header encoding (the spec's examples) */
	is_str(enc("us-west1", 8), "us-west1", "plain ASCII as is");
	is_str(enc("Hello, \xe4\xb8\x96\xe7\x95\x8c", 13), "=?base64?SGVsbG8sIOS4lueVjA==?=", "non-ASCII: base64");
	is_str(enc(" padded ", 8), "=?base64?IHBhZGRlZCA=?=", "leading/trailing space: base64");
	is_str(enc("line1\nline2", 11), "=?base64?bGluZTEKbGluZTI=?=", "newline: base64");
	is_str(enc("=?base64?literal?=", 18), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "sentinel-looking: base64");
	is_str(enc("a\0b", 3), "=?base64?YQBi?=", "NUL: base64");
	is_str(enc("", 0), "=?base64?" "?=", "empty: the sentinel");
	is_int(mcpmeta_hdr_encode("abcdef", 6, out, 6), -1, "no room: -1");

	/* decoding */
	is_int(dec("=?base64?SGVsbG8sIOS4lueVjA==?=", out, sizeof out), 13, "decode: length");
	ok(memcmp(out, "Hello, \xe4\xb8\x96\xe7\x95\x8c", 13) == 0, "decode: bytes");
	is_int(dec("plain", out, sizeof out), 5, "decode: plain as is");
	is_int(dec("=?base64?" "?=", out, sizeof out), 0, "decode: the empty sentinel is the empty value (fuzz: encode of \"\" round-trips)");
	is_int(dec("=?base64?YQBi?=", out, sizeof out), 3, "decode: NUL kept (length says so)");
	is_int(dec("=?base64?!!!!?=", out, sizeof out), -1, "decode: bad characters");
	is_int(dec("=?base64?YQ=?=", out, sizeof out), -1, "decode: not a multiple of 4");
	is_int(dec("=?base64?Y=Bi?=", out, sizeof out), -1, "decode: padding inside");
	is_int(dec("=?base64?YQ=i?=", out, sizeof out), -1, "decode: data after padding");
	is_int(dec("a\x01" "b", out, sizeof out), -1, "decode: control character");
	is_int(dec("caf\xc3\xa9", out, sizeof out), -1, "decode: raw non-ASCII refused");

	/* header/body checks */
	static const char CALL[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"json\"}}";
	static const char LIST[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
	static const char NOTE[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}";
	is_int(check(CALL, 1, "tools/call", "json", &why), 0, "matching headers");
	is_int(check(CALL, 1, "tools/call", "=?base64?anNvbg==?=", &why), 0, "matching base64 name");
	is_int(check(CALL, 0, NULL, NULL, &why), 0, "no headers, not 2026-07-28: fine");
	is_int(check(CALL, 1, NULL, "json", &why), -1, "2026-07-28 without Mcp-Method");
	is_str(why, "Header mismatch: the Mcp-Method header is missing", "  said so");
	is_int(check(CALL, 1, "tools/call", NULL, &why), -1, "2026-07-28 without Mcp-Name");
	is_int(check(CALL, 0, "tools/call", "other", &why), -1, "name mismatch, any version");
	is_str(why, "Header mismatch: the Mcp-Name header does not match the body", "  said so");
	is_int(check(CALL, 0, "tools/list", NULL, &why), -1, "method mismatch");
	is_int(check(CALL, 0, "Tools/call", NULL, &why), -1, "method case differs");
	is_int(check(CALL, 0, NULL, "JSON", &why), -1, "name case differs");
	is_int(check(CALL, 0, NULL, "json ", &why), -1, "trailing space in the name");
	is_int(check(CALL, 0, NULL, "=?base64?anNvbgA=?=", &why), -1, "name with a NUL after it");
	is_int(check(CALL, 0, NULL, "=?base64?###?=", &why), -1, "undecodable name");
	is_int(check(LIST, 1, "tools/list", NULL, &why), 0, "tools/list: no Mcp-Name needed");
	is_int(check(LIST, 1, "tools/list", "json", &why), -1, "tools/list with an Mcp-Name");
	is_int(check(NOTE, 1, NULL, NULL, &why), 0, "notification: headers not required");
	is_int(check(NOTE, 1, "notifications/y", NULL, &why), -1, "notification: mismatch still refused");
	is_int(check("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"name\":\"b\"}}",
	    0, NULL, "a", &why), -1, "duplicate names in params: refused");
	is_int(check("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\\u0063all\",\"params\":{\"name\":\"json\"}}",
	    1, "tools/call", "json", &why), 0, "escaped method compared unescaped");

	/* MCP-Protocol-Version against _meta */
	static const char V26[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":"
	    "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}";
	parse(V26);
	is_int(mcpmeta_version_check(&m, "2026-07-28", 10, 1, &why), 0, "version: header equals _meta");
	is_int(mcpmeta_version_check(&m, "2025-11-25", 10, 1, &why), -1, "version: header differs");
	is_int(mcpmeta_version_check(&m, "", 0, 0, &why), 0, "version: no header");
	parse(LIST);
	is_int(mcpmeta_version_check(&m, "2026-07-28", 10, 1, &why), -1, "version: 2026 header, nothing in _meta");
	is_int(mcpmeta_version_check(&m, "2025-11-25", 10, 1, &why), 0, "version: 2025 header, nothing in _meta");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":"
	    "{\"io.modelcontextprotocol/protocolVersion\":7}}}");
	is_int(mcpmeta_version_check(&m, "", 0, 0, &why), -1, "version: not a string");

	/* _meta */
	is_str(meta(LIST), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}", "no params: added");
	is_str(meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}"),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}", "empty params: added");
	is_str(meta(CALL), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"json\"}}", "params: _meta first");
	is_str(meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{\"progressToken\":1}}}"),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{},\"progressToken\":1}}}", "_meta: keys added, token kept");
	is_str(meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{\"a\":{}}}}}"),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{\"a\":{}}}}}", "_meta: version replaced, capabilities kept");
	is_str(meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":5}}}"),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/clientCapabilities\":{},"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}", "_meta: a number for a version replaced");
	is_str(meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[1]}"), "(error)", "params an array: refused");
	is_str(meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"_meta\":3}}"), "(error)", "_meta not an object: refused");
	is_str(meta("{\"jsonrpc\":\"2.0\",\n\"id\":1,\"method\":\"x\"}"),
	    "{\"jsonrpc\":\"2.0\", \"id\":1,\"method\":\"x\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}", "raw newline becomes a space");
	rpc_toks_free(&tk);
	return done_testing();
}
