/* upmsg: messages from the upstream, ids mapped back, dispatched to clients. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_up.h"
#include "methods.h"
#include "msg.h"
#include "proxy_int.h"
#include "toolallow.h"

/* The initialize result without its "instructions": free text that may
 * name the tools the allowlist hides (server/discover leaves them out too).
 * A fresh string, *n its length; NULL when out of memory. */
static char *
result_sans_instructions(const struct rpc_msg *m, size_t *n)
{
	struct buf b = { 0 };
	const char *s;
	size_t sn;
	int r = m->result, k = r + 1, first = 1;

	if (buf_add(&b, "{", 1) < 0)
		goto fail;
	for (int i = 0; i < m->t[r].size; i++, k = json_next(m->t, k + 1)) {
		if (json_eq(m->js, &m->t[k], "instructions"))
			continue;
		rpc_raw(m, k, &s, &sn);
		if ((!first && buf_add(&b, ",", 1) < 0) || buf_add(&b, s, sn) < 0 || buf_add(&b, ":", 1) < 0)
			goto fail;
		rpc_raw(m, k + 1, &s, &sn);
		if (buf_add(&b, s, sn) < 0)
			goto fail;
		first = 0;
	}
	if (buf_add(&b, "}", 1) < 0)
		goto fail;
	*n = b.len;
	return b.p;
fail:
	buf_free(&b);
	return NULL;
}

/* The upstream refused the handshake made with a client's params: that
 * client gets the refusal, the params are dropped, and the handshake is
 * made again with the proxy's own, for everyone else. */
static void
init_refused(struct proxy *p, const struct rpc_msg *m)
{
	struct pend *e = pend_by_uid(p, p->init_owner);

	p->init_owner = 0;
	free(p->init_params);
	p->init_params = NULL;
	p->init_paramsn = 0;
	msg_warn("upstream refused a client's initialize; that client is answered, the handshake is made again");
	if (e && e->kind == K_INIT_WAIT) {
		p->tmp.len = 0;
		if (m->error >= 0 && rpc_splice(&p->tmp, m, m->id, e->cid, e->cidn) == 0)
			conn_reply(p, e->conn, p->tmp.p, p->tmp.len);
		else
			conn_error(p, e->conn, e->cid, e->cidn, RPC_INVALID_PARAMS, "initialize refused by the upstream");
		pend_free(e);
	}
	start_handshake(p);
}

static void
up_response(struct proxy *p, const struct rpc_msg *m)
{
	struct pend *e;
	int64_t uid;
	size_t n;

	if (json_int(m->js, &m->t[m->id], &uid) < 0 || uid < 0 ||
	    (e = pend_by_uid(p, (uint64_t)uid)) == NULL) {
		msg_warn("upstream answered an unknown request (dropped)");
		return;
	}
	switch (e->kind) {
	case K_INTERNAL_INIT:
		pend_free(e);
		if (p->probing) {
			up_discovered(p, m);
			return;
		}
		if (m->result < 0 || m->t[m->result].type != JSMN_OBJECT) {
			if (p->init_owner) {
				init_refused(p, m);
				return;
			}
			up_fail(p, "refused the initialize handshake");
			return;
		}
		free(p->init_result);
		if ((p->init_result = result_sans_instructions(m, &n)) == NULL) {
			up_fail(p, "handshake could not be stored (out of memory)");
			return;
		}
		for (size_t i = 0; i < n; i++)
			if (p->init_result[i] == '\n' || p->init_result[i] == '\r')
				p->init_result[i] = ' ';
		keep_caps(p, m, m->result);
		if (p->http) {
			int v = json_get(m->js, m->t, m->result, "protocolVersion");
			if (v >= 0 && m->t[v].type == JSMN_STRING)
				http_up_set_version(p->http, m->js + m->t[v].start,
				    (size_t)(m->t[v].end - m->t[v].start));
		}
		p->expired_once = 0;
		up_ready(p);
		return;
	case K_LIST:
		p->tmp.len = 0;
		if (m->error >= 0) {
			if (rpc_splice(&p->tmp, m, m->id, e->cid, e->cidn) == 0)
				conn_reply(p, e->conn, p->tmp.p, p->tmp.len);
		} else if (list_filter_kind(p, e->list, m, e->cid, e->cidn, &p->tmp) == 0) {
			conn_reply(p, e->conn, p->tmp.p, p->tmp.len);
		} else {
			msg_warn("upstream sent a malformed listing (an empty one given)");
			conn_result(p, e->conn, e->cid, e->cidn, list_empty(e->list));
		}
		break;
	case K_CALL: {
		const char *outcome = "ok";
		int ie;
		if (m->error >= 0)
			outcome = "error";
		else if ((ie = json_get(m->js, m->t, m->result, "isError")) >= 0 &&
		    m->t[ie].type == JSMN_PRIMITIVE && m->js[m->t[ie].start] == 't')
			outcome = "tool_error";
		audit(p, e->tool, strlen(e->tool), outcome);
		/* a task this allowed call created may be asked about later */
		if (m->result >= 0 && (ie = json_pointer(m->js, m->t, m->n, m->result, "/task/taskId")) >= 0 &&
		    m->t[ie].type == JSMN_STRING) {
			char tid[256];
			int tn = json_str(m->js, &m->t[ie], tid, sizeof tid);
			if (tn > 0)
				task_add(p, tid, (size_t)tn);
		}
	}
		/* fall through */
	default:
		p->tmp.len = 0;
		if (rpc_splice(&p->tmp, m, m->id, e->cid, e->cidn) == 0)
			conn_reply(p, e->conn, p->tmp.p, p->tmp.len);
		break;
	}
	pend_free(e);
}

/* Who gets a request from the upstream: the client whose call is the
 * latest in flight (it most likely caused it), else a streaming client. */
static int
pick_conn(struct proxy *p)
{
	struct pend *best = NULL;

	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind == K_CALL && e->conn >= 0 && p->conn[e->conn].used &&
		    !p->conn[e->conn].h.closing && (!best || e->uid > best->uid))
			best = e;
	}
	if (best)
		return best->conn;
	for (int c = 0; c < MAX_CONN; c++)
		if (p->conn[c].used && p->conn[c].out >= 0 && p->conn[c].kind != C_HTTP)
			return c;
	return -1;
}

static void
up_request(struct proxy *p, const struct rpc_msg *m)
{
	const char *uid;
	size_t uidn;
	char id[32];
	int c = pick_conn(p);

	rpc_raw(m, m->id, &uid, &uidn);
	for (int i = 0; c >= 0 && i < MAX_SREQ; i++) {
		struct sreq *s = &p->sreq[i];
		if (s->used)
			continue;
		if ((s->uid = dupn(uid, uidn)) == NULL)
			break;
		s->used = 1;
		s->conn = c;
		s->uidn = uidn;
		s->did = ++p->next_did;
		snprintf(id, sizeof id, "%llu", (unsigned long long)s->did);
		p->tmp.len = 0;
		if (rpc_splice(&p->tmp, m, m->id, id, strlen(id)) == 0)
			conn_send(p, c, p->tmp.p, p->tmp.len);
		return;
	}
	p->tmp.len = 0;
	if (rpc_error(&p->tmp, uid, uidn, RPC_INTERNAL_ERROR, "no client can take this request") == 0)
		up_send(p, p->tmp.p, p->tmp.len, 0, 0);
}

/* An HTTP client has no stream but that of its request in flight (no GET
 * stream is offered): a notification (a log message above all) goes on
 * the stream of the request whose upstream answer stream carried it (an
 * HTTP upstream), else on that of every HTTP request then in flight (a
 * stdio upstream says nothing of what caused it). With none, it is lost. */
static void
to_http_streams(struct proxy *p, const char *s, size_t n)
{
	struct pend *e = p->via_uid ? pend_by_uid(p, p->via_uid) : NULL;

	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		if (!k->used || k->kind != C_HTTP || !k->h.got || k->h.closing || k->out < 0 ||
		    (e ? e->conn != c : conn_pending(p, c) == 0))
			continue;
		conn_send(p, c, s, n);
	}
}

static void
up_notify(struct proxy *p, const struct rpc_msg *m, const char *line, size_t len)
{
	const char *v;
	size_t vn;
	char id[32], meth[METHOD_MAX + 1];
	int t;

	if (rpc_is(m, "notifications/progress")) {
		if (m->params < 0 || (t = json_get(m->js, m->t, m->params, "progressToken")) < 0)
			return;
		int64_t tok;
		struct pend *e;
		if (json_int(m->js, &m->t[t], &tok) < 0 || tok < 0 || (e = pend_by_uid(p, (uint64_t)tok)) == NULL ||
		    !e->ptok)
			return;		/* not a token we gave out */
		e->deadline = now_ms() + p->cfg->timeout_ms;	/* alive */
		p->tmp.len = 0;
		if (rpc_splice(&p->tmp, m, t, e->ptok, e->ptokn) == 0)
			conn_send(p, e->conn, p->tmp.p, p->tmp.len);
		return;
	}
	if (rpc_is(m, "notifications/cancelled")) {
		int64_t rid;
		if (m->params < 0 || (t = json_get(m->js, m->t, m->params, "requestId")) < 0)
			return;
		rpc_raw(m, t, &v, &vn);
		for (int i = 0; i < MAX_SREQ; i++) {
			struct sreq *s = &p->sreq[i];
			if (!s->used || s->uidn != vn || memcmp(s->uid, v, vn) != 0)
				continue;
			rid = (int64_t)s->did;
			snprintf(id, sizeof id, "%lld", (long long)rid);
			p->tmp.len = 0;
			if (rpc_splice(&p->tmp, m, t, id, strlen(id)) == 0)
				conn_send(p, s->conn, p->tmp.p, p->tmp.len);
			free(s->uid);
			memset(s, 0, sizeof *s);
			return;
		}
		return;
	}
	if (method_of(m, meth, sizeof meth) == M_UNKNOWN && strcmp(meth, "notifications/resources/updated") == 0) {
		/* a resource the allowlist hides is not the agent's business,
		 * nor that it changed */
		char uri[URI_MAX + 1];
		int n = param_string(m, "uri", uri, sizeof uri);
		if (n <= 0 || !allow_prefix(&p->cfg->resources, uri, (size_t)n)) {
			audit_uri(p, meth, n > 0 ? uri : "", n > 0 ? (size_t)n : 0, "dropped");
			return;
		}
	}
	p->tmp.len = 0;
	if (buf_add(&p->tmp, line, len) == 0 && buf_add(&p->tmp, "\n", 1) == 0) {
		broadcast(p, p->tmp.p, p->tmp.len);
		to_http_streams(p, p->tmp.p, p->tmp.len);
	}
}

void
up_line(struct proxy *p, const char *line, size_t len)
{
	struct rpc_msg m;

	if (rpc_parse(line, len, &p->tk, &m) < 0) {
		/* garbage comes by the line: say so a few times, not forever */
		if (++p->malformed <= MALFORMED_SAID)
			msg_warn("upstream sent a malformed message (dropped)%s",
			    p->malformed == MALFORMED_SAID ? "; further ones are dropped silently" : "");
		return;
	}
	p->last_rx = now_ms();
	/* line has no raw newline (it was split on them); \r is whitespace */
	switch (m.kind) {
	case RPC_RESPONSE: up_response(p, &m); break;
	case RPC_REQUEST: up_request(p, &m); break;
	case RPC_NOTIFY: up_notify(p, &m, line, len); break;
	}
}

void
up_oversized(struct proxy *p, const char *s, size_t n)
{
	static const char key[] = "\"id\":";
	size_t lim = n < 8192 ? n : 8192;

	p->last_rx = now_ms();	/* it is alive, only too talkative */
	for (size_t i = 0; s && i + sizeof key - 1 < lim; i++) {
		size_t k = i + sizeof key - 1;
		uint64_t uid = 0;
		int digits = 0;
		struct pend *e;
		if (memcmp(s + i, key, sizeof key - 1) != 0)
			continue;
		while (k < lim && s[k] == ' ')
			k++;
		while (k < lim && s[k] >= '0' && s[k] <= '9' && digits < 19)
			uid = uid * 10 + (uint64_t)(s[k++] - '0'), digits++;
		if (!digits || (e = pend_by_uid(p, uid)) == NULL || e->kind == K_INTERNAL_INIT)
			continue;
		msg_warn("upstream answered a request with a message over the size limit; the caller is told");
		pend_fail(p, e, RPC_INTERNAL_ERROR, "upstream answer over the size limit (--max-message)", "error");
		return;
	}
	msg_warn("upstream sent a message over the size limit (dropped)");
}
