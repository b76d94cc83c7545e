/* client: messages from a client, checked against the allowlist, then sent upstream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_int.h"
#include "toolallow.h"

static void
forward_request(struct proxy *p, int c, const struct rpc_msg *m, enum pkind kind, const char *tool)
{
	const char *cid, *tok;
	size_t cidn, tokn;
	struct pend *e;
	char id[32];
	int t = -1;

	rpc_raw(m, m->id, &cid, &cidn);
	if ((e = pend_new(p, kind, c, cid, cidn)) == NULL) {
		conn_error(p, c, cid, cidn, RPC_INTERNAL_ERROR, "too many requests in flight");
		if (tool)
			audit(p, tool, strlen(tool), "error");
		return;
	}
	if (tool)
		snprintf(e->tool, sizeof e->tool, "%s", tool);
	if (m->params >= 0 && (t = json_pointer(m->js, m->t, m->n, m->params, "/_meta/progressToken")) >= 0) {
		rpc_raw(m, t, &tok, &tokn);
		e->ptok = dupn(tok, tokn);
		e->ptokn = tokn;
	}
	snprintf(id, sizeof id, "%llu", (unsigned long long)e->uid);
	p->tmp.len = 0;
	/* the progress token too becomes ours (the upstream id), so clients
	 * that pick the same token never get each other's progress */
	if ((t >= 0 && e->ptok ? rpc_splice2(&p->tmp, m, m->id, id, strlen(id), t, id, strlen(id)) :
	    rpc_splice(&p->tmp, m, m->id, id, strlen(id))) < 0) {
		pend_fail(p, e, RPC_INTERNAL_ERROR, "out of memory", "error");
		return;
	}
	if (p->state != UP_RUNNING) {
		pend_fail(p, e, RPC_UPSTREAM_DOWN, "upstream unavailable", "unavailable");
		return;
	}
	if (!p->ready) {
		start_handshake(p);	/* a client that never initialized (2026-07-28) */
		e->held = 1;
		if ((e->msg = dupn(p->tmp.p, p->tmp.len)) == NULL)
			pend_fail(p, e, RPC_INTERNAL_ERROR, "out of memory", "error");
		e->msgn = p->tmp.len;
		return;
	}
	up_send(p, p->tmp.p, p->tmp.len, e->uid, 0);
}

static void
client_initialize(struct proxy *p, int c, const struct rpc_msg *m)
{
	const char *cid, *s;
	size_t cidn, n;
	struct pend *e;

	rpc_raw(m, m->id, &cid, &cidn);
	if (p->init_result) {
		conn_result(p, c, cid, cidn, p->init_result);
		return;
	}
	if (!p->init_params) {
		if (m->params >= 0) {
			rpc_raw(m, m->params, &s, &n);
		} else {
			s = "{}";
			n = 2;
		}
		/* kept as one line: it is sent again after a restart */
		if ((p->init_params = dupn(s, n)) == NULL) {
			conn_error(p, c, cid, cidn, RPC_INTERNAL_ERROR, "out of memory");
			return;
		}
		for (size_t i = 0; i < n; i++)
			if (p->init_params[i] == '\n' || p->init_params[i] == '\r')
				p->init_params[i] = ' ';
		p->init_paramsn = n;
	}
	if ((e = pend_new(p, K_INIT_WAIT, c, cid, cidn)) == NULL) {
		conn_error(p, c, cid, cidn, RPC_INTERNAL_ERROR, "too many requests in flight");
		return;
	}
	if (p->state != UP_RUNNING) {
		pend_fail(p, e, 0, NULL, NULL);
		return;
	}
	start_handshake(p);
}

static void
client_discover(struct proxy *p, int c, const struct rpc_msg *m)
{
	const char *cid;
	size_t cidn;
	struct pend *e;

	rpc_raw(m, m->id, &cid, &cidn);
	if (p->ready || p->state != UP_RUNNING) {
		discover_answer(p, c, cid, cidn);
		return;
	}
	if ((e = pend_new(p, K_DISC_WAIT, c, cid, cidn)) == NULL) {
		conn_error(p, c, cid, cidn, RPC_INTERNAL_ERROR, "too many requests in flight");
		return;
	}
	start_handshake(p);
}

static void
client_cancel(struct proxy *p, int c, const struct rpc_msg *m)
{
	const char *rid;
	size_t ridn;
	char id[32];
	int t;

	if (m->params < 0 || (t = json_get(m->js, m->t, m->params, "requestId")) < 0)
		return;
	rpc_raw(m, t, &rid, &ridn);
	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind == K_FREE || e->kind == K_INTERNAL_INIT || e->conn != c ||
		    e->cidn != ridn || memcmp(e->cid, rid, ridn) != 0)
			continue;
		if (e->kind == K_CALL)
			audit(p, e->tool, strlen(e->tool), "cancelled");
		if (p->ready && !e->held) {
			snprintf(id, sizeof id, "%llu", (unsigned long long)e->uid);
			p->tmp.len = 0;
			if (rpc_splice(&p->tmp, m, t, id, strlen(id)) == 0)
				up_send(p, p->tmp.p, p->tmp.len, 0, 0);
		}
		pend_free(e);
		return;
	}
}

static void
client_response(struct proxy *p, int c, const struct rpc_msg *m)
{
	int64_t did;

	if (json_int(m->js, &m->t[m->id], &did) < 0)
		return;
	for (int i = 0; i < MAX_SREQ; i++) {
		struct sreq *s = &p->sreq[i];
		/* over HTTP the answer comes on another connection */
		if (!s->used || s->did != (uint64_t)did ||
		    (s->conn != c && !(p->conn[c].kind == C_HTTP && p->conn[s->conn].kind == C_HTTP)))
			continue;
		p->tmp.len = 0;
		if (p->ready && rpc_splice(&p->tmp, m, m->id, s->uid, s->uidn) == 0)
			up_send(p, p->tmp.p, p->tmp.len, 0, 0);
		free(s->uid);
		memset(s, 0, sizeof *s);
		return;
	}
}

void
client_line(struct proxy *p, int c, const char *line, size_t len)
{
	struct rpc_msg m;
	const char *cid = NULL;
	size_t cidn = 0;
	char name[TOOL_NAME_MAX * 4 + 8];
	int rc, nl;

	rc = rpc_parse(line, len, &p->tk, &m);
	if (rc < 0) {
		if (m.id >= 0)
			rpc_raw(&m, m.id, &cid, &cidn);
		conn_error(p, c, cid, cidn, rc, rc == RPC_PARSE_ERROR ? "Parse error" :
		    rc == RPC_INVALID_REQUEST ? "Invalid Request" : "Internal error");
		return;
	}
	if (m.kind == RPC_RESPONSE) {
		client_response(p, c, &m);
		return;
	}
	if (m.kind == RPC_NOTIFY) {
		if (rpc_is(&m, "notifications/initialized"))
			return;		/* the proxy sends its own, once per upstream */
		if (rpc_is(&m, "notifications/cancelled")) {
			client_cancel(p, c, &m);
			return;
		}
		p->tmp.len = 0;
		if (p->ready && buf_add(&p->tmp, line, len) == 0 && buf_add(&p->tmp, "\n", 1) == 0)
			up_send(p, p->tmp.p, p->tmp.len, 0, 0);
		return;
	}
	rpc_raw(&m, m.id, &cid, &cidn);
	if (rpc_is(&m, "initialize")) {
		client_initialize(p, c, &m);
	} else if (rpc_is(&m, "server/discover")) {
		client_discover(p, c, &m);
	} else if (rpc_is(&m, "tools/call")) {
		nl = call_tool_name(&m, name, sizeof name);
		if (nl < 0 || !allow_has(&p->cfg->allow, name, (size_t)nl)) {
			audit(p, nl < 0 ? "" : name, nl < 0 ? 0 : (size_t)nl, "denied");
			conn_error(p, c, cid, cidn, RPC_INVALID_PARAMS, "Unknown tool: not allowed by the proxy");
			return;
		}
		forward_request(p, c, &m, K_CALL, name);
	} else if (rpc_is(&m, "tools/list")) {
		if (p->state != UP_RUNNING)
			conn_result(p, c, cid, cidn, EMPTY_TOOLS);
		else
			forward_request(p, c, &m, K_LIST, NULL);
	} else if (m.t[m.method].end - m.t[m.method].start >= 6 &&
	    memcmp(m.js + m.t[m.method].start, "tools/", 6) == 0) {
		conn_error(p, c, cid, cidn, RPC_METHOD_NOT_FOUND, "Method not found");
	} else if (rpc_is(&m, "ping") && (p->state != UP_RUNNING || !p->ready)) {
		conn_result(p, c, cid, cidn, "{}");
	} else {
		forward_request(p, c, &m, K_OTHER, NULL);
	}
}
