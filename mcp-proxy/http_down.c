/* http_down: the downstream Streamable HTTP endpoint over lib/httpd. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mcpmeta.h"
#include "msg.h"
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
	struct rpc_msg m;
	const char *why = NULL, *cid = NULL;
	size_t cidn = 0;

	if (rpc_parse(body, n, &p->tk, &m) < 0 || httpc_meta_check(&k->h, &m, &why) == 0)
		return 0;	/* client_line answers what does not parse */
	if (m.kind == RPC_REQUEST)
		rpc_raw(&m, m.id, &cid, &cidn);
	p->tmp.len = 0;
	if (rpc_error(&p->tmp, cid, cidn, RPC_HEADER_MISMATCH, why) < 0) {
		http_status(k, 400);
		return 1;
	}
	k->wr.len = 0;
	if (httpc_json(&k->h, &k->wr, 400, p->tmp.p, p->tmp.len - 1) < 0)
		msg_warn("out of memory queueing an answer to the client");
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
	int st;

	n = read(k->in, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		k->eof = 1;
		k->h.closing = 1;
		k->h.keep = 0;
		return;
	}
	st = httpc_feed(&k->h, chunk, (size_t)n, &ep, now_ms());
	if (st == HTTPD_MORE)
		return;
	if (st != HTTPD_READY) {
		http_status(k, st);
		return;
	}
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

void
http_make_room(struct proxy *p)
{
	struct httpc_oldest o = { 0 };
	int c;

	for (c = 0; c < MAX_CONN; c++)
		if (p->conn[c].used && p->conn[c].kind == C_HTTP)
			httpc_oldest_add(&o, &p->conn[c].h, c);
	if ((c = httpc_evict(&o)) >= 0)
		conn_close(p, c);
}

int64_t
http_due(const struct proxy *p, const struct conn *k)
{
	return k->used && k->kind == C_HTTP ? httpc_due(&k->h, p->cfg->http_idle_ms) : 0;
}
