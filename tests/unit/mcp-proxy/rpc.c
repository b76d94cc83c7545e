/* mcp-proxy: JSON-RPC parsing, errors, splicing; allowlist and tools/list filtering. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../../mcp-proxy/toolallow.h"
#include "rpc.h"

static struct rpc_toks tk;

static int
parse(const char *s, struct rpc_msg *m)
{
	return rpc_parse(s, strlen(s), &tk, m);
}

static int
code(const char *s)
{
	struct rpc_msg m;
	return parse(s, &m);
}

int
main(void)
{
	struct rpc_msg m;
	struct buf b = { 0 };
	const char *p;
	size_t n, kept, dropped;
	char name[64];
	static const char *names[] = { "echo", "add" };
	struct allowlist a = { names, 2 };

	/* classification */
	is_int(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", &m), 0, "request parses");
	is_int(m.kind, RPC_REQUEST, "request kind");
	is_int(parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}", &m), 0, "notification parses");
	is_int(m.kind, RPC_NOTIFY, "notification kind");
	is_int(parse("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}", &m), 0, "response parses");
	is_int(m.kind, RPC_RESPONSE, "response kind");
	is_int(parse("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-1,\"message\":\"x\"}}", &m), 0, "error response parses");

	/* bad input */
	is_int(code("{"), RPC_PARSE_ERROR, "truncated: parse error");
	is_int(code("nope"), RPC_PARSE_ERROR, "garbage: parse error");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}"), RPC_PARSE_ERROR, "invalid UTF-8: parse error");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\nb\"}"), RPC_PARSE_ERROR, "raw newline in a string: parse error");
	is_int(rpc_parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\0\"}", 30, &tk, &m), RPC_PARSE_ERROR, "raw NUL: parse error");
	is_int(code("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"), RPC_INVALID_REQUEST, "batch: invalid request");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}"), RPC_INVALID_REQUEST, "id null: invalid request");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}"), RPC_INVALID_REQUEST, "fractional id: invalid request");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}"), RPC_INVALID_REQUEST, "object id: invalid request");
	is_int(code("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}"), RPC_INVALID_REQUEST, "wrong version");
	is_int(code("{\"id\":1,\"method\":\"ping\"}"), RPC_INVALID_REQUEST, "no version");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}"), RPC_INVALID_REQUEST, "duplicate id");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"b\"}"), RPC_INVALID_REQUEST, "duplicate method");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"params\":[1]}"), RPC_INVALID_REQUEST, "array params");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"result\":{}}"), RPC_INVALID_REQUEST, "method and result");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"\"}}"), RPC_INVALID_REQUEST, "result and error");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1}"), RPC_INVALID_REQUEST, "neither");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"x\"}}"), RPC_INVALID_REQUEST, "error without code");
	is_int(code("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}"), RPC_INVALID_REQUEST, "empty method");
	/* an invalid request still yields its id for the error */
	is_int(parse("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", &m), RPC_INVALID_REQUEST, "bad version, id 7");
	ok(m.id > 0, "id kept for the error reply");

	/* errors and splicing */
	rpc_error(&b, "7", 1, RPC_INVALID_PARAMS, "bad \"x\"");
	is_str(b.p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"bad \\\"x\\\"\"}}\n", "error line");
	b.len = 0;
	rpc_error(&b, NULL, 0, RPC_PARSE_ERROR, "Parse error");
	is_str(b.p, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n", "error with null id");
	b.len = 0;
	parse("{ \"jsonrpc\":\"2.0\",\r\n\"id\":\"abc\",\"method\":\"ping\"}", &m);
	rpc_raw(&m, m.id, &p, &n);
	is_int(n, 5, "raw string id includes quotes");
	rpc_splice(&b, &m, m.id, "42", 2);
	is_str(b.p, "{ \"jsonrpc\":\"2.0\",  \"id\":42,\"method\":\"ping\"}\n", "id spliced, raw newlines flattened");

	b.len = 0;
	parse("{\"jsonrpc\":\"2.0\",\"params\":{\"_meta\":{\"progressToken\":\"tok\"}},\"id\":\"abc\",\"method\":\"x\"}", &m);
	{
		int t = json_pointer(m.js, m.t, m.n, m.params, "/_meta/progressToken");
		is_int(rpc_splice2(&b, &m, m.id, "7", 1, t, "7", 1), 0, "two tokens spliced");
		is_str(b.p, "{\"jsonrpc\":\"2.0\",\"params\":{\"_meta\":{\"progressToken\":7}},\"id\":7,\"method\":\"x\"}\n",
		    "token before the id: both replaced in order");
		b.len = 0;
		is_int(rpc_splice2(&b, &m, m.params, "{}", 2, t, "7", 1), -1, "nested tokens refused");
	}

	/* tool names */
	ok(tool_name_valid("get-sum_2.x"), "valid name");
	ok(!tool_name_valid(""), "empty name invalid");
	ok(!tool_name_valid("a b"), "space invalid");
	ok(!tool_name_valid("\xd0\xb5" "cho"), "non-ASCII invalid");
	ok(allow_has(&a, "echo", 4), "listed");
	ok(!allow_has(&a, "echo\0", 5), "trailing NUL not listed");
	ok(!allow_has(&a, "Echo", 4), "case not listed");
	ok(!allow_has(&a, "ech", 3), "prefix not listed");

	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\\u0065cho\"}}", &m);
	is_int(call_tool_name(&m, name, sizeof name), 4, "escaped name unescaped");
	is_str(name, "echo", "name");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\\u0000x\"}}", &m);
	is_int(call_tool_name(&m, name, sizeof name), 6, "embedded NUL kept in length");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"name\":\"x\"}}", &m);
	is_int(call_tool_name(&m, name, sizeof name), -1, "duplicate name refused");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":1}}", &m);
	is_int(call_tool_name(&m, name, sizeof name), -1, "non-string name refused");
	parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}", &m);
	is_int(call_tool_name(&m, name, sizeof name), -1, "no params refused");

	/* filtering */
	b.len = 0;
	parse("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"tools\":[{\"name\":\"echo\",\"x\":[1,{\"name\":\"y\"}]},"
	    "{\"name\":\"ECHO\"},{\"name\":\"add\",\"name\":\"rm\"},{\"name\":\"rm\"},\"junk\",{\"name\":\"add\"}],"
	    "\"nextCursor\":\"c2\",\"_meta\":{}}}", &m);
	is_int(tools_list_filter(&m, &a, "\"q\"", 3, &b, &kept, &dropped), 0, "filter ok");
	is_str(b.p, "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"result\":{\"tools\":[{\"name\":\"echo\",\"x\":[1,{\"name\":\"y\"}]},"
	    "{\"name\":\"add\"}],\"nextCursor\":\"c2\",\"_meta\":{}}}\n", "filtered page keeps cursor and other members");
	is_int(kept, 2, "kept");
	is_int(dropped, 4, "dropped");
	b.len = 0;
	parse("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"tools\":[{\"name\":\"rm\"}],\"nextCursor\":\"c3\"}}", &m);
	tools_list_filter(&m, &a, "5", 1, &b, &kept, &dropped);
	is_str(b.p, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"tools\":[],\"nextCursor\":\"c3\"}}\n", "all-filtered page keeps its cursor");
	b.len = 0;
	parse("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"tools\":[],\"tools\":[{\"name\":\"rm\"}]}}", &m);
	is_int(tools_list_filter(&m, &a, "5", 1, &b, &kept, &dropped), -1, "duplicate tools member refused");
	parse("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"tools\":{}}}", &m);
	is_int(tools_list_filter(&m, &a, "5", 1, &b, &kept, &dropped), -1, "tools not an array refused");
	is_int(b.len, 0, "nothing appended on refusal");

	buf_free(&b);
	rpc_toks_free(&tk);
	{
		static char deep[300000];
		size_t dn = (size_t)sprintf(deep, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":{\"a\":");
		for (int d = 0; d < 40000; d++)
			dn += (size_t)sprintf(deep + dn, "{\"a\":");
		deep[dn++] = '1';
		for (int d = 0; d < 40002; d++)
			deep[dn++] = '}';
		is_int(rpc_parse(deep, dn, &tk, &m), RPC_INVALID_REQUEST, "40000 deep: invalid request, before jsmn runs");
		is_int(m.id, -1, "no id looked for");
	}
	return done_testing();
}
