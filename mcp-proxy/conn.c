/* conn: downstream connections: queueing messages and answers, accept, close. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "proxy_int.h"

void
http_head(struct conn *k, int status, const char *ctype, size_t clen, int has_len)
{
	if (httpc_head(&k->h, &k->wr, status, ctype, clen, has_len) < 0)
		msg_warn("out of memory queueing an answer to the client");
}

/* An HTTP answer with no MCP body, then close. */
void
http_status(struct conn *k, int status)
{
	httpc_status(&k->h, &k->wr, status);
}

/* s[0..n) is one line ending in \n. final: it answers the client's request. */
static void
conn_out(struct proxy *p, int c, const char *s, size_t n, int final)
{
	struct conn *k;
	int bad = 0;

	if (c < 0 || c >= MAX_CONN || !p->conn[c].used || p->conn[c].out < 0)
		return;
	k = &p->conn[c];
	if (k->kind != C_HTTP) {
		bad = buf_add(&k->wr, s, n) < 0;
	} else if (k->h.closing) {
		return;
	} else if (final && !k->h.started) {
		/* the answer alone: plain JSON */
		bad = httpc_json(&k->h, &k->wr, 200, s, n - 1) < 0;
	} else {
		/* notifications or requests first: an event stream, the answer last */
		if (!k->h.started)
			http_head(k, 200, "text/event-stream", 0, 0);
		k->h.started = 1;
		bad = httpd_sse_event(&k->wr, s, n - 1) < 0;
		if (final)
			k->h.closing = 1;
	}
	if (bad)
		msg_warn("out of memory queueing a message to the client (dropped)");
}

void
conn_send(struct proxy *p, int c, const char *s, size_t n)
{
	conn_out(p, c, s, n, 0);
}

void
conn_reply(struct proxy *p, int c, const char *s, size_t n)
{
	conn_out(p, c, s, n, 1);
}

void
conn_error(struct proxy *p, int c, const char *id, size_t idn, int code, const char *text)
{
	p->tmp.len = 0;
	if (rpc_error(&p->tmp, id, idn, code, text) == 0)
		conn_reply(p, c, p->tmp.p, p->tmp.len);
}

void
conn_result(struct proxy *p, int c, const char *id, size_t idn, const char *res)
{
	p->tmp.len = 0;
	if (rpc_result(&p->tmp, id, idn, res, strlen(res)) == 0)
		conn_reply(p, c, p->tmp.p, p->tmp.len);
}

void
broadcast(struct proxy *p, const char *s, size_t n)
{
	for (int c = 0; c < MAX_CONN; c++)
		if (p->conn[c].kind != C_HTTP)
			conn_send(p, c, s, n);
}

int
conn_pending(struct proxy *p, int c)
{
	int n = 0;

	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind != K_FREE && p->pend[i].kind != K_INTERNAL_INIT && p->pend[i].conn == c)
			n++;
	return n;
}

/* A client is gone: cancel what it left in flight, upstream too. */
void
conn_cancel(struct proxy *p, int c)
{
	char line[128];

	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind == K_FREE || e->kind == K_INTERNAL_INIT || e->conn != c)
			continue;
		if (e->kind == K_CALL)
			audit(p, e->tool, strlen(e->tool), "cancelled");
		if (e->kind != K_INIT_WAIT && !e->held && p->ready) {
			snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
			    "\"params\":{\"requestId\":%llu,\"reason\":\"client disconnected\"}}\n",
			    (unsigned long long)e->uid);
			up_send(p, line, strlen(line), 0, 0);
		}
		pend_free(e);
	}
	for (int i = 0; i < MAX_SREQ; i++) {
		struct sreq *r = &p->sreq[i];
		if (!r->used || r->conn != c)
			continue;
		p->tmp.len = 0;
		if (rpc_error(&p->tmp, r->uid, r->uidn, RPC_INTERNAL_ERROR, "client disconnected") == 0)
			up_send(p, p->tmp.p, p->tmp.len, 0, 0);
		free(r->uid);
		memset(r, 0, sizeof *r);
	}
}

void
conn_close(struct proxy *p, int c)
{
	struct conn *k = &p->conn[c];

	conn_cancel(p, c);
	if (k->kind != C_STDIO && k->in >= 0)
		close(k->in);
	buf_free(&k->rd);
	buf_free(&k->wr);
	httpd_in_free(&k->h.in);
	memset(k, 0, sizeof *k);
	k->in = k->out = -1;
}

int
conn_new(struct proxy *p, int fd, enum ckind kind)
{
	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		if (k->used)
			continue;
		memset(k, 0, sizeof *k);
		k->used = 1;
		k->in = k->out = fd;
		k->kind = kind;
		if (kind == C_HTTP)
			httpc_init(&k->h, now_ms());
		return c;
	}
	close(fd);
	return -1;
}
