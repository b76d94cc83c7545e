#include <string.h>

#include "httpconn.h"
#include "mcpmeta.h"

void
httpc_init(struct httpc *h, int64_t now)
{
	memset(h, 0, sizeof *h);
	h->idle_at = h->head_at = now;
}

int
httpc_feed(struct httpc *h, const void *p, size_t n, const struct httpd_endpoint *ep, int64_t now)
{
	int had = httpd_in_has_head(&h->in), st;

	if (!h->head_at)
		h->head_at = now;	/* the next request's head begins */
	st = httpd_in_feed(&h->in, p, n, ep);
	if ((st == HTTPD_MORE || st == HTTPD_READY) && !had && httpd_in_has_head(&h->in))
		h->keep = !h->in.req->close;
	if (st == HTTPD_READY)
		h->got = 1;
	return st;
}

int
httpc_head(struct httpc *h, struct buf *wr, int status, const char *ctype, size_t clen, int has_len)
{
	/* keep-alive only for a JSON answer or a 202, whose length is known */
	if (!has_len || status >= 400)
		h->keep = 0;
	return httpd_head(wr, status, ctype, clen, has_len, h->keep);
}

int
httpc_json(struct httpc *h, struct buf *wr, int status, const char *body, size_t n)
{
	int bad = httpc_head(h, wr, status, "application/json", n, 1) < 0 || buf_add(wr, body, n) < 0;

	h->started = h->closing = 1;
	return bad ? -1 : 0;
}

void
httpc_status(struct httpc *h, struct buf *wr, int status)
{
	wr->len = 0;
	httpc_head(h, wr, status, NULL, 0, 1);
	h->closing = 1;
	h->started = 1;
}

int
httpc_reuse(struct httpc *h, int64_t now)
{
	if (!h->closing || !h->keep)
		return 0;
	h->started = h->closing = h->got = h->keep = 0;
	h->idle_at = now;
	h->head_at = 0;
	httpd_in_reset(&h->in);
	return 1;
}

int64_t
httpc_due(const struct httpc *h, int64_t idle_ms)
{
	int64_t head = idle_ms < HTTPC_HEAD_MS ? idle_ms : HTTPC_HEAD_MS, due = 0;

	if (h->started)
		return 0;
	/* a whole request within the idle time (keep-alive, or one trickling in) */
	if (!h->got)
		due = h->idle_at + idle_ms;
	/* and its head within HTTPC_HEAD_MS of its first byte */
	if (h->head_at && !httpd_in_has_head(&h->in) && (!due || h->head_at + head < due))
		due = h->head_at + head;
	return due;
}

int
httpc_unproven(const struct httpc *h)
{
	return !httpd_in_has_head(&h->in) && !h->closing && !h->started;
}

void
httpc_oldest_add(struct httpc_oldest *o, const struct httpc *h, int i)
{
	if (!httpc_unproven(h))
		return;
	if (o->n++ == 0 || h->idle_at < o->since) {
		o->at = i;
		o->since = h->idle_at;
	}
}

int
httpc_evict(const struct httpc_oldest *o)
{
	return o->n >= HTTPC_MAX_PREAUTH ? o->at : -1;
}

int
httpc_meta_check(const struct httpc *h, const struct rpc_msg *m, const char **why)
{
	const struct http_req *r = h->in.req;
	int modern;

	*why = NULL;
	if (!r || m->kind == RPC_RESPONSE)
		return 0;
	modern = strcmp(r->mcp_version, REV_2026_07_28) == 0;
	if (mcpmeta_version_check(m, r->mcp_version, strlen(r->mcp_version), r->mcp_version[0] != '\0', why) < 0)
		return -1;
	return mcpmeta_check(m, modern, r->mcp_method, strlen(r->mcp_method), r->has_mcp_method,
	    r->mcp_name, strlen(r->mcp_name), r->has_mcp_name, why) < 0 ? -1 : 0;
}
