#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc.h"

void
rpc_toks_free(struct rpc_toks *tk)
{
	free(tk->t);
	tk->t = NULL;
	tk->cap = 0;
}

static int
key(const struct rpc_msg *m, const char *k, int *out)
{
	int v = json_get(m->js, m->t, 0, k);

	if (v == -2)
		return -1;
	*out = v;
	return 0;
}

static int
id_ok(const struct rpc_msg *m, int i)
{
	int64_t v;

	if (m->t[i].type == JSMN_STRING)
		return 1;
	return m->t[i].type == JSMN_PRIMITIVE && json_int(m->js, &m->t[i], &v) == 0;
}

int
rpc_parse(const char *js, size_t len, struct rpc_toks *tk, struct rpc_msg *m)
{
	jsmn_parser p;
	int n, v, id;

	memset(m, 0, sizeof *m);
	m->id = m->method = m->params = m->result = m->error = -1;
	m->js = js;
	m->len = len;
	if (len > JSON_MAX_LEN || !json_depth_ok(js, len, JSON_MAX_DEPTH))
		return RPC_INVALID_REQUEST;	/* before jsmn: its time is depth squared */
	/* count first, so token memory follows the message, bounded */
	jsmn_init(&p);
	n = jsmn_parse(&p, js, len, NULL, 0);
	if (n <= 0)
		return RPC_PARSE_ERROR;
	if ((unsigned)n > RPC_MAX_TOKENS)
		return RPC_INTERNAL_ERROR;
	if (tk->cap < (unsigned)n) {
		unsigned c = tk->cap ? tk->cap : 64;
		jsmntok_t *t;
		while (c < (unsigned)n)
			c *= 2;
		if ((t = realloc(tk->t, c * sizeof *t)) == NULL)
			return RPC_INTERNAL_ERROR;
		tk->t = t;
		tk->cap = c;
	}
	n = json_parse(js, len, tk->t, tk->cap);
	if (n < 0)
		return errno == ENOMEM ? RPC_INTERNAL_ERROR : errno == ELOOP ? RPC_INVALID_REQUEST : RPC_PARSE_ERROR;
	m->t = tk->t;
	m->n = n;
	if (m->t[0].type == JSMN_ARRAY)
		return RPC_INVALID_REQUEST;	/* batches: not in MCP */
	if (m->t[0].type != JSMN_OBJECT)
		return RPC_INVALID_REQUEST;
	if (key(m, "id", &id) < 0)
		return RPC_INVALID_REQUEST;
	if (id >= 0 && id_ok(m, id))
		m->id = id;
	if (key(m, "jsonrpc", &v) < 0 || v < 0 || !json_eq(js, &m->t[v], "2.0"))
		return RPC_INVALID_REQUEST;
	if (id >= 0 && m->id < 0)
		return RPC_INVALID_REQUEST;	/* null, fraction, object... */
	if (key(m, "method", &m->method) < 0 || key(m, "params", &m->params) < 0 ||
	    key(m, "result", &m->result) < 0 || key(m, "error", &m->error) < 0)
		return RPC_INVALID_REQUEST;
	if (m->method >= 0) {
		if (m->t[m->method].type != JSMN_STRING || m->t[m->method].end == m->t[m->method].start)
			return RPC_INVALID_REQUEST;
		if (m->result >= 0 || m->error >= 0)
			return RPC_INVALID_REQUEST;
		if (m->params >= 0 && m->t[m->params].type != JSMN_OBJECT)
			return RPC_INVALID_REQUEST;
		m->kind = m->id >= 0 ? RPC_REQUEST : RPC_NOTIFY;
		return 0;
	}
	if (m->id < 0 || m->params >= 0 || (m->result >= 0) == (m->error >= 0))
		return RPC_INVALID_REQUEST;
	if (m->error >= 0) {
		int c, s;
		int64_t code;
		if (m->t[m->error].type != JSMN_OBJECT)
			return RPC_INVALID_REQUEST;
		c = json_get(js, m->t, m->error, "code");
		s = json_get(js, m->t, m->error, "message");
		if (c < 0 || json_int(js, &m->t[c], &code) < 0 || s < 0 || m->t[s].type != JSMN_STRING)
			return RPC_INVALID_REQUEST;
	}
	m->kind = RPC_RESPONSE;
	return 0;
}

void
rpc_raw(const struct rpc_msg *m, int i, const char **p, size_t *n)
{
	int s = m->t[i].start, e = m->t[i].end;

	if (m->t[i].type == JSMN_STRING)
		s--, e++;
	*p = m->js + s;
	*n = (size_t)(e - s);
}

int
rpc_is(const struct rpc_msg *m, const char *s)
{
	return m->method >= 0 && json_eq(m->js, &m->t[m->method], s);
}

static int
add_id(struct buf *out, const char *id, size_t idn)
{
	return id ? buf_add(out, id, idn) : buf_adds(out, "null");
}

int
rpc_error(struct buf *out, const char *id, size_t idn, int code, const char *msg)
{
	char q[512], c[32];
	int qn = json_quote(msg, strlen(msg), q, sizeof q);

	if (qn < 0)
		return -1;
	snprintf(c, sizeof c, "%d", code);
	if (buf_adds(out, "{\"jsonrpc\":\"2.0\",\"id\":") < 0 || add_id(out, id, idn) < 0 ||
	    buf_adds(out, ",\"error\":{\"code\":") < 0 || buf_adds(out, c) < 0 ||
	    buf_adds(out, ",\"message\":") < 0 || buf_add(out, q, (size_t)qn) < 0 ||
	    buf_adds(out, "}}\n") < 0)
		return -1;
	return 0;
}

int
rpc_result(struct buf *out, const char *id, size_t idn, const char *result, size_t rn)
{
	if (buf_adds(out, "{\"jsonrpc\":\"2.0\",\"id\":") < 0 || add_id(out, id, idn) < 0 ||
	    buf_adds(out, ",\"result\":") < 0 || buf_add(out, result, rn) < 0 ||
	    buf_adds(out, "}\n") < 0)
		return -1;
	return 0;
}

static int
add_flat(struct buf *out, const char *s, size_t n)
{
	size_t start = out->len, i;

	if (buf_add(out, s, n) < 0)
		return -1;
	for (i = start; i < out->len; i++)
		if (out->p[i] == '\n' || out->p[i] == '\r')
			out->p[i] = ' ';
	return 0;
}

int
rpc_splice(struct buf *out, const struct rpc_msg *m, int i, const char *rep, size_t repn)
{
	const char *p;
	size_t n, a, b;

	rpc_raw(m, i, &p, &n);
	a = (size_t)(p - m->js);
	b = a + n;
	if (add_flat(out, m->js, a) < 0 || buf_add(out, rep, repn) < 0 ||
	    add_flat(out, m->js + b, m->len - b) < 0 || buf_add(out, "\n", 1) < 0)
		return -1;
	return 0;
}

int
rpc_splice2(struct buf *out, const struct rpc_msg *m, int i, const char *rep, size_t repn,
    int j, const char *rep2, size_t rep2n)
{
	const char *p, *q;
	size_t n, k, a, b, c, d;

	if (m->t[j].start < m->t[i].start) {
		int ti = i; const char *tr = rep; size_t tn = repn;
		i = j; rep = rep2; repn = rep2n;
		j = ti; rep2 = tr; rep2n = tn;
	}
	rpc_raw(m, i, &p, &n);
	rpc_raw(m, j, &q, &k);
	a = (size_t)(p - m->js);
	b = a + n;
	c = (size_t)(q - m->js);
	d = c + k;
	if (c < b)
		return -1;	/* nested: never for an id and a token */
	if (add_flat(out, m->js, a) < 0 || buf_add(out, rep, repn) < 0 ||
	    add_flat(out, m->js + b, c - b) < 0 || buf_add(out, rep2, rep2n) < 0 ||
	    add_flat(out, m->js + d, m->len - d) < 0 || buf_add(out, "\n", 1) < 0)
		return -1;
	return 0;
}
