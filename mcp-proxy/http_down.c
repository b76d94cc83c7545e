/* http_down: the downstream Streamable HTTP endpoint over lib/httpd. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mcpmeta.h"
#include "proxy_int.h"
#include "toolallow.h"

/* The Mcp-Method and Mcp-Name headers must say what the body says (spec
 * 2026-07-28, streamable-http "Server Validation"): a gateway that routes
 * or meters on the header would otherwise be told one thing while the
 * proxy acts on another. A mismatch is answered 400 with HeaderMismatch
 * (-32020) and nothing reaches the upstream. Returns 1 when refused. */
static int
http_meta_refused(struct proxy *p, int c, const char *body, size_t n)
{
	struct conn *k = &p->conn[c];
	struct http_req *r = k->h.in.req;
	struct rpc_msg m;
	const char *why = NULL, *cid = NULL;
	size_t cidn = 0;
	int modern;

	if (!r || rpc_parse(body, n, &p->tk, &m) < 0 || m.kind == RPC_RESPONSE)
		return 0;	/* client_line answers what does not parse */
	modern = strcmp(r->mcp_version, REV_2026_07_28) == 0;
	if (mcpmeta_version_check(&m, r->mcp_version, strlen(r->mcp_version), r->mcp_version[0] != '\0', &why) == 0 &&
	    mcpmeta_check(&m, modern, r->mcp_method, strlen(r->mcp_method), r->has_mcp_method,
	    r->mcp_name, strlen(r->mcp_name), r->has_mcp_name, &why) == 0)
		return 0;
	if (m.kind == RPC_REQUEST)
		rpc_raw(&m, m.id, &cid, &cidn);
	p->tmp.len = 0;
	if (rpc_error(&p->tmp, cid, cidn, RPC_HEADER_MISMATCH, why) < 0) {
		http_status(k, 400);
		return 1;
	}
	k->wr.len = 0;
	http_head(k, 400, "application/json", p->tmp.len - 1, 1);
	buf_add(&k->wr, p->tmp.p, p->tmp.len - 1);
	k->h.started = k->h.closing = 1;
	if (m.kind == RPC_REQUEST && rpc_is(&m, "tools/call")) {
		char name[TOOL_NAME_MAX * 4 + 8];
		int nl = call_tool_name(&m, name, sizeof name);
		audit(p, nl < 0 ? "" : name, nl < 0 ? 0 : (size_t)nl, "denied");
	}
	return 1;
}

/* One HTTP request at a time per connection: head, checks, body, then the
 * message. */
void
http_read(struct proxy *p, int c)
{
	struct conn *k = &p->conn[c];
	struct httpd_endpoint ep = { p->http_port, p->cfg->listen_token, p->cfg->max_msg };
	char chunk[CHUNK];
	const char *body;
	size_t bn;
	ssize_t n;
	int st, had = httpd_in_has_head(&k->h.in);

	n = read(k->in, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		k->eof = 1;
		k->h.closing = 1;
		k->h.keep = 0;
		return;
	}
	if (!k->h.head_at)
		k->h.head_at = now_ms();	/* the next request's head begins */
	st = httpd_in_feed(&k->h.in, chunk, (size_t)n, &ep);
	if (st == HTTPD_MORE) {
		if (!had && httpd_in_has_head(&k->h.in))
			k->h.keep = !k->h.in.req->close;
		return;
	}
	if (st != HTTPD_READY) {
		http_status(k, st);
		return;
	}
	if (!had)
		k->h.keep = !k->h.in.req->close;
	k->h.got = 1;
	body = httpd_in_body(&k->h.in, &bn);
	if (http_meta_refused(p, c, body, bn)) {
		buf_free(&k->h.in.rd);
		return;
	}
	client_line(p, c, body, bn);
	if (!k->h.started && conn_pending(p, c) == 0)
		http_status(k, 202);	/* a notification or a response */
	buf_free(&k->h.in.rd);
}

static int
unproven(const struct conn *k)
{
	return k->used && k->kind == C_HTTP && !httpd_in_has_head(&k->h.in) && !k->h.closing && !k->h.started;
}

void
http_make_room(struct proxy *p)
{
	int n = 0, oldest = -1;

	for (int c = 0; c < MAX_CONN; c++) {
		const struct conn *k = &p->conn[c];
		if (!unproven(k))
			continue;
		n++;
		if (oldest < 0 || k->h.idle_at < p->conn[oldest].h.idle_at)
			oldest = c;
	}
	if (n >= MAX_PREAUTH && oldest >= 0)
		conn_close(p, oldest);
}

int64_t
http_head_due(const struct proxy *p, const struct conn *k)
{
	int64_t ms = p->cfg->http_idle_ms < HEAD_MS ? p->cfg->http_idle_ms : HEAD_MS;

	if (!k->used || k->kind != C_HTTP || !k->h.head_at || httpd_in_has_head(&k->h.in) || k->h.started)
		return 0;
	return k->h.head_at + ms;
}
