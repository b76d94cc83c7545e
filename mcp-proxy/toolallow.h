/*
 * toolallow: the allowlists (tools and prompts by exact name, resources
 * by URI prefix) and the list results filtered to them. Pure: no I/O.
 * Names are compared byte for byte after JSON unescaping, so case, spaces,
 * NUL, escapes and Unicode lookalikes never match a listed name; a message
 * that names a tool twice (duplicate "name" keys) is refused outright.
 */
#ifndef MCP_TOOLALLOW_H
#define MCP_TOOLALLOW_H
#include <stddef.h>
#include "rpc.h"

enum { TOOL_NAME_MAX = 128, URI_MAX = 4096 };

struct allowlist {
	const char **names;
	size_t n;
};

/* 1 when s is a valid tool name to list: 1..128 of [A-Za-z0-9_.-]
 * (the MCP 2025-11-25 tool name charset), so a lookalike cannot be listed. */
int tool_name_valid(const char *s);
/* 1 when name[0..len) is exactly one of the listed names. */
int allow_has(const struct allowlist *a, const char *name, size_t len);

/* 1 when uri[0..len) begins with a listed prefix and has no dot segment
 * (".", "..", or either percent-encoded), encoded slash, backslash or
 * control character anywhere: a prefix cannot be left by a path trick. */
int allow_prefix(const struct allowlist *a, const char *uri, size_t len);
/* 1 when s may be listed as a resource prefix: 1..URI_MAX visible ASCII
 * bytes. */
int resource_prefix_valid(const char *s);
/* params.KEY of request m, a string, unescaped into out (cap bytes).
 * Returns its length, or -1 (absent, duplicated, not a string, too long). */
int param_string(const struct rpc_msg *m, const char *key, char *out, size_t cap);

/* The tool a tools/call request names: params.name, unescaped into out
 * (cap bytes). Returns its length, or -1 (no params, no name, duplicate
 * "name" or "params", not a string, too long). */
int call_tool_name(const struct rpc_msg *m, char *out, size_t cap);

/* A tools/list response filtered to the allowlist, with id replaced by
 * id[0..idn), appended to out as one line. Every other member of the
 * result (nextCursor above all) is kept, so pagination continues through a
 * page where every tool is filtered out. Returns 0, or -1 when the
 * response is not a well-formed tools/list result; kept and dropped
 * count the tools. */
typedef int list_keep_fn(const char *v, size_t n, const void *ctx);
/* The same for any list result: the array result.MEMBER keeps the
 * objects whose one string FIELD keep accepts (unescaped, no NUL). */
int list_filter(const struct rpc_msg *m, const char *member, const char *field, list_keep_fn *keep,
    const void *ctx, const char *id, size_t idn, struct buf *out, size_t *kept, size_t *dropped);
int tools_list_filter(const struct rpc_msg *m, const struct allowlist *a, const char *id,
    size_t idn, struct buf *out, size_t *kept, size_t *dropped);

#endif
