/* rpc_parse and what mcp-proxy does with a message it accepted: method
 * classification, the tool name, duplicate keys at any depth, listings
 * filtered to the allowlists, ids spliced. Any bytes: a clean answer,
 * never a crash, and every output one line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "methods.h"
#include "rpc.h"
#include "toolallow.h"

static int
keep_all(const char *v, size_t n, const void *ctx)
{
	return n % 2;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpc_toks tk;
	static const char *names[] = { "echo", "a" }, *pref[] = { "file:///srv/", "x:" };
	const struct allowlist tools = { names, 2 }, res = { pref, 2 };
	struct rpc_msg m;
	struct buf out = { 0 };
	char name[METHOD_MAX + 1], tool[TOOL_NAME_MAX * 4 + 8], uri[URI_MAX + 1];
	size_t kept, dropped;
	int n;

	if (rpc_parse((const char *)data, size, &tk, &m) < 0)
		return 0;
	if (m.kind != RPC_RESPONSE) {
		(void)method_of(&m, name, sizeof name);
		(void)method_family_known(name);
		if ((n = call_tool_name(&m, tool, sizeof tool)) >= 0)
			(void)allow_has(&tools, tool, (size_t)n);
		if ((n = param_string(&m, "uri", uri, sizeof uri)) >= 0)
			(void)allow_prefix(&res, uri, (size_t)n);
	}
	if (json_unique_keys(m.js, m.t, m.n, 0) < 0)
		return 0;
	if (m.kind == RPC_RESPONSE) {
		if (tools_list_filter(&m, &tools, "7", 1, &out, &kept, &dropped) == 0 &&
		    memchr(out.p, '\n', out.len - 1))
			abort();
		out.len = 0;
		if (list_filter(&m, "resources", "uri", keep_all, NULL, "\"x\"", 3, &out, &kept, &dropped) == 0 &&
		    memchr(out.p, '\n', out.len - 1))
			abort();
	}
	out.len = 0;
	if (m.id >= 0 && rpc_splice(&out, &m, m.id, "42", 2) == 0 && memchr(out.p, '\n', out.len - 1))
		abort();
	buf_free(&out);
	return 0;
}
