#include <string.h>

#include "toolallow.h"

int
tool_name_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > TOOL_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

int
allow_has(const struct allowlist *a, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (strlen(a->names[i]) == len && memcmp(a->names[i], name, len) == 0)
			return 1;
	return 0;
}

int
call_tool_name(const struct rpc_msg *m, char *out, size_t cap)
{
	int v;

	if (m->params < 0)
		return -1;
	v = json_get(m->js, m->t, m->params, "name");
	if (v < 0 || m->t[v].type != JSMN_STRING)
		return -1;
	return json_str(m->js, &m->t[v], out, cap);
}

int
allow_prefix(const struct allowlist *a, const char *uri, size_t len)
{
	/* no way out of a prefix: dot segments (plain or percent-encoded),
	 * backslashes, control characters and NUL are never allowed */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)uri[i];
		if (c < 0x20 || c == 0x7f || c == '\\')
			return 0;
		if (c == '%' && i + 2 < len && uri[i + 1] == '2' && (uri[i + 2] == 'e' || uri[i + 2] == 'E'))
			return 0;
		if (c == '%' && i + 2 < len && uri[i + 1] == '2' && (uri[i + 2] == 'f' || uri[i + 2] == 'F'))
			return 0;
		if (c == '.' && (i == 0 || uri[i - 1] == '/') &&
		    (i + 1 == len || uri[i + 1] == '/' || uri[i + 1] == '?' || uri[i + 1] == '#' ||
		    (uri[i + 1] == '.' && (i + 2 == len || uri[i + 2] == '/' || uri[i + 2] == '?' || uri[i + 2] == '#'))))
			return 0;
	}
	for (size_t i = 0; i < a->n; i++) {
		size_t k = strlen(a->names[i]);
		if (k <= len && memcmp(a->names[i], uri, k) == 0)
			return 1;
	}
	return 0;
}

int
resource_prefix_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > URI_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] == 0x7f)
			return 0;
	return 1;
}

int
param_string(const struct rpc_msg *m, const char *key, char *out, size_t cap)
{
	int v;

	if (m->params < 0)
		return -1;
	v = json_get(m->js, m->t, m->params, key);
	if (v < 0 || m->t[v].type != JSMN_STRING)
		return -1;
	return json_str(m->js, &m->t[v], out, cap);
}

/* 1 when object t[i] has exactly one string member field and keep says
 * yes to its unescaped value. */
static int
elem_kept(const struct rpc_msg *m, int i, const char *field, list_keep_fn *keep, const void *ctx)
{
	char v[URI_MAX + 1];
	int f, n;

	if (m->t[i].type != JSMN_OBJECT)
		return 0;
	f = json_get(m->js, m->t, i, field);
	if (f < 0 || m->t[f].type != JSMN_STRING)
		return 0;
	n = json_str(m->js, &m->t[f], v, sizeof v);
	return n > 0 && !memchr(v, '\0', (size_t)n) && keep(v, (size_t)n, ctx);
}

static int
keep_tool(const char *v, size_t n, const void *ctx)
{
	return allow_has(ctx, v, n);
}

int
tools_list_filter(const struct rpc_msg *m, const struct allowlist *a, const char *id,
    size_t idn, struct buf *out, size_t *kept, size_t *dropped)
{
	return list_filter(m, "tools", "name", keep_tool, a, id, idn, out, kept, dropped);
}

int
list_filter(const struct rpc_msg *m, const char *member, const char *field, list_keep_fn *keep,
    const void *ctx, const char *id, size_t idn, struct buf *out, size_t *kept, size_t *dropped)
{
	const char *p;
	size_t n, start = out->len;
	int r = m->result, k, j, e, first, tools;

	*kept = *dropped = 0;
	if (m->kind != RPC_RESPONSE || r < 0 || m->t[r].type != JSMN_OBJECT)
		return -1;
	tools = json_get(m->js, m->t, r, member);
	if (tools < 0 || m->t[tools].type != JSMN_ARRAY)
		return -1;
	if (buf_adds(out, "{\"jsonrpc\":\"2.0\",\"id\":") < 0 || buf_add(out, id, idn) < 0 ||
	    buf_adds(out, ",\"result\":{") < 0)
		goto fail;
	first = 1;
	for (k = r + 1, j = 0; j < m->t[r].size; j++, k = json_next(m->t, k + 1)) {
		if (!first && buf_add(out, ",", 1) < 0)
			goto fail;
		first = 0;
		rpc_raw(m, k, &p, &n);
		if (buf_add(out, p, n) < 0 || buf_add(out, ":", 1) < 0)
			goto fail;
		if (k + 1 != tools) {
			rpc_raw(m, k + 1, &p, &n);
			if (buf_add(out, p, n) < 0)
				goto fail;
			continue;
		}
		if (buf_add(out, "[", 1) < 0)
			goto fail;
		int f2 = 1;
		for (e = tools + 1, n = 0; n < (size_t)m->t[tools].size; n++, e = json_next(m->t, e)) {
			const char *q;
			size_t qn;
			if (!elem_kept(m, e, field, keep, ctx)) {
				(*dropped)++;
				continue;
			}
			rpc_raw(m, e, &q, &qn);
			if ((!f2 && buf_add(out, ",", 1) < 0) || buf_add(out, q, qn) < 0)
				goto fail;
			f2 = 0;
			(*kept)++;
		}
		if (buf_add(out, "]", 1) < 0)
			goto fail;
	}
	if (buf_adds(out, "}}\n") < 0)
		goto fail;
	/* raw newlines are whitespace here: keep the output one line */
	for (n = start; n < out->len - 1; n++)
		if (out->p[n] == '\n' || out->p[n] == '\r')
			out->p[n] = ' ';
	return 0;
fail:
	out->len = start;
	return -1;
}
