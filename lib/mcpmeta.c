/* The MCP 2026-07-28 request metadata: header values, checks, _meta. */
#include <string.h>

#include "base64.h"
#include "mcpmeta.h"

int
mcpmeta_name(const struct rpc_msg *m, char *out, size_t cap)
{
	const char *key;
	int v;

	if (rpc_is(m, "tools/call") || rpc_is(m, "prompts/get"))
		key = "name";
	else if (rpc_is(m, "resources/read"))
		key = "uri";
	else
		return -2;
	if (m->params < 0 || m->t[m->params].type != JSMN_OBJECT)
		return -1;
	v = json_get(m->js, m->t, m->params, key);
	if (v < 0 || m->t[v].type != JSMN_STRING)
		return -1;
	return json_str(m->js, &m->t[v], out, cap);
}

static int
sentinel(const char *v, size_t n)
{
	return n >= 11 && memcmp(v, "=?base64?", 9) == 0 && memcmp(v + n - 2, "?=", 2) == 0;
}

int
mcpmeta_hdr_encode(const char *v, size_t n, char *out, size_t cap)
{
	size_t i, o = 0;
	int plain = n > 0 && v[0] != ' ' && v[n - 1] != ' ' && !sentinel(v, n);

	for (i = 0; plain && i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			plain = 0;
	if (plain) {
		if (n + 1 > cap)
			return -1;
		memcpy(out, v, n);
		out[n] = '\0';
		return (int)n;
	}
	if (9 + B64_LEN(n) + 2 + 1 > cap)
		return -1;
	memcpy(out, "=?base64?", 9);
	o = 9 + (size_t)b64_encode(v, n, out + 9, cap - 9);
	out[o++] = '?';
	out[o++] = '=';
	out[o] = '\0';
	return (int)o;
}

int
mcpmeta_hdr_decode(const char *v, size_t n, char *out, size_t cap)
{
	size_t i;
	long l;

	for (i = 0; i < n; i++)
		if (((unsigned char)v[i] < 0x20 && v[i] != '\t') || (unsigned char)v[i] > 0x7e)
			return -1;
	if (!sentinel(v, n)) {
		if (n + 1 > cap)
			return -1;
		memcpy(out, v, n);
		out[n] = '\0';
		return (int)n;
	}
	/* an empty payload is the empty value (what encode gives "") */
	if (cap < 1 || (l = b64_decode(v + 9, n - 11, out, cap - 1)) < 0)
		return -1;
	out[l] = '\0';
	return (int)l;
}

int
mcpmeta_check(const struct rpc_msg *m, int modern, const char *method, size_t methodn,
    int has_method, const char *name, size_t namen, int has_name, const char **why)
{
	char body[MCPMETA_NAME_MAX + 1], hdr[MCPMETA_NAME_MAX + 1];
	const char *bm = m->js + m->t[m->method].start + 1;
	size_t bmn = (size_t)(m->t[m->method].end - m->t[m->method].start - 2);
	int bn, hn;

	/* the method token is a string; compare it unescaped */
	bn = json_str(m->js, &m->t[m->method], body, sizeof body);
	if (bn >= 0) {
		bm = body;
		bmn = (size_t)bn;
	}
	if (!has_method) {
		if (modern && m->kind == RPC_REQUEST) {
			*why = "Header mismatch: the Mcp-Method header is missing";
			return -1;
		}
	} else if (methodn != bmn || memcmp(method, bm, bmn) != 0) {
		*why = "Header mismatch: the Mcp-Method header does not match the body";
		return -1;
	}
	bn = mcpmeta_name(m, body, sizeof body);
	if (bn == -2) {
		if (has_name) {
			*why = "Header mismatch: an Mcp-Name header on a method that names nothing";
			return -1;
		}
		return 0;
	}
	if (!has_name) {
		if (modern && m->kind == RPC_REQUEST) {
			*why = "Header mismatch: the Mcp-Name header is missing";
			return -1;
		}
		return 0;
	}
	hn = mcpmeta_hdr_decode(name, namen, hdr, sizeof hdr);
	if (bn < 0 || hn < 0 || hn != bn || memcmp(hdr, body, (size_t)bn) != 0) {
		*why = "Header mismatch: the Mcp-Name header does not match the body";
		return -1;
	}
	return 0;
}

int
mcpmeta_version_check(const struct rpc_msg *m, const char *hv, size_t hvn, int has, const char **why)
{
	char body[64];
	int v = -1, n = -1;

	if (m->params >= 0 && m->t[m->params].type == JSMN_OBJECT) {
		int meta = json_get(m->js, m->t, m->params, "_meta");
		if (meta >= 0 && m->t[meta].type == JSMN_OBJECT)
			v = json_get(m->js, m->t, meta, "io.modelcontextprotocol/protocolVersion");
		else if (meta == -2)
			v = -2;
	}
	if (v == -2) {
		*why = "Header mismatch: the protocol version is given twice";
		return -1;
	}
	if (v >= 0 && (m->t[v].type != JSMN_STRING || (n = json_str(m->js, &m->t[v], body, sizeof body)) < 0)) {
		*why = "Header mismatch: the body's protocol version is malformed";
		return -1;
	}
	if (!has)
		return 0;
	if (v < 0) {
		if (hvn == sizeof REV_2026_07_28 - 1 && memcmp(hv, REV_2026_07_28, hvn) == 0) {
			*why = "Header mismatch: MCP-Protocol-Version 2026-07-28 without the version in _meta";
			return -1;
		}
		return 0;
	}
	if ((size_t)n != hvn || memcmp(body, hv, hvn) != 0) {
		*why = "Header mismatch: MCP-Protocol-Version does not match the body";
		return -1;
	}
	return 0;
}

static const char META_V[] = "\"io.modelcontextprotocol/protocolVersion\":\"" REV_2026_07_28 "\"";
static const char META_C[] = "\"io.modelcontextprotocol/clientCapabilities\":{}";

/* Copy js[from..to) with raw newlines as spaces. */
static int
copy(struct buf *out, const char *js, size_t from, size_t to)
{
	size_t s = from;
	for (size_t i = from; i < to; i++) {
		if (js[i] != '\n' && js[i] != '\r')
			continue;
		if (buf_add(out, js + s, i - s) < 0 || buf_add(out, " ", 1) < 0)
			return -1;
		s = i + 1;
	}
	return buf_add(out, js + s, to - s);
}

int
mcpmeta_add(const struct rpc_msg *m, struct buf *out)
{
	const char *js = m->js;
	size_t at, end = m->len;
	int meta, v, c;

	if (m->params < 0) {
		/* {"jsonrpc":...} -> insert ,"params":{...} before the last } */
		at = (size_t)m->t[0].end - 1;
		if (copy(out, js, 0, at) < 0 || buf_adds(out, ",\"params\":{\"_meta\":{") < 0 ||
		    buf_adds(out, META_V) < 0 || buf_adds(out, ",") < 0 || buf_adds(out, META_C) < 0 ||
		    buf_adds(out, "}}") < 0 || copy(out, js, at, end) < 0)
			return -1;
		return 0;
	}
	if (m->t[m->params].type != JSMN_OBJECT)
		return -1;
	meta = json_get(js, m->t, m->params, "_meta");
	if (meta == -2 || (meta >= 0 && m->t[meta].type != JSMN_OBJECT))
		return -1;
	if (meta < 0) {
		at = (size_t)m->t[m->params].start + 1;
		if (copy(out, js, 0, at) < 0 || buf_adds(out, "\"_meta\":{") < 0 ||
		    buf_adds(out, META_V) < 0 || buf_adds(out, ",") < 0 || buf_adds(out, META_C) < 0 ||
		    buf_adds(out, m->t[m->params].size ? "}," : "}") < 0 || copy(out, js, at, end) < 0)
			return -1;
		return 0;
	}
	v = json_get(js, m->t, meta, "io.modelcontextprotocol/protocolVersion");
	c = json_get(js, m->t, meta, "io.modelcontextprotocol/clientCapabilities");
	if (v == -2 || c == -2)
		return -1;
	at = (size_t)m->t[meta].start + 1;
	if (v >= 0) {
		/* the version is ours to say: replace its value */
		size_t vs = (size_t)m->t[v].start - (m->t[v].type == JSMN_STRING ? 1 : 0);
		size_t ve = (size_t)m->t[v].end + (m->t[v].type == JSMN_STRING ? 1 : 0);
		if (copy(out, js, 0, at) < 0)
			return -1;
		if (c < 0 && (buf_adds(out, META_C) < 0 || buf_adds(out, ",") < 0))
			return -1;
		if (copy(out, js, at, vs) < 0 || buf_adds(out, "\"" REV_2026_07_28 "\"") < 0 ||
		    copy(out, js, ve, end) < 0)
			return -1;
		return 0;
	}
	if (copy(out, js, 0, at) < 0 || buf_adds(out, META_V) < 0 ||
	    (c < 0 && (buf_adds(out, ",") < 0 || buf_adds(out, META_C) < 0)) ||
	    buf_adds(out, m->t[meta].size ? "," : "") < 0 || copy(out, js, at, end) < 0)
		return -1;
	return 0;
}
