/* client: messages from a client, checked against the allowlist, then sent upstream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods.h"
#include "proxy_int.h"
#include "weburl.h"
#include "toolallow.h"

static void
forward_request(struct proxy *p, int c, const struct rpc_msg *m, enum pkind kind, enum lkind lk, const char *tool)
{
	const char *cid, *tok;
	size_t cidn, tokn;
	struct pend *e;
	char id[32];
	int t = -1;

	rpc_raw(m, m->id, &cid, &cidn);
	/* a key twice anywhere (arguments above all): which one would the
	 * upstream read? */
	if (json_unique_keys(m->js, m->t, m->n, 0) != 1) {
		conn_error(p, c, cid, cidn, RPC_INVALID_REQUEST, "Invalid Request: duplicate member");
		if (tool)
			audit(p, tool, strlen(tool), "denied");
		return;
	}
	if ((e = pend_new(p, kind, c, cid, cidn)) == NULL) {
		conn_error(p, c, cid, cidn, RPC_INTERNAL_ERROR, "too many requests in flight");
		if (tool)
			audit(p, tool, strlen(tool), "error");
		return;
	}
	e->list = lk;
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
		/* held until the handshake is done; kept before the handshake is
		 * begun, which builds its initialize in p->tmp */
		e->held = 1;
		e->msgn = p->tmp.len;
		if ((e->msg = dupn(p->tmp.p, p->tmp.len)) == NULL) {
			pend_fail(p, e, RPC_INTERNAL_ERROR, "out of memory", "error");
			return;
		}
		start_handshake(p);	/* a client that never initialized (2026-07-28) */
		return;
	}
	up_send(p, p->tmp.p, p->tmp.len, e->uid, 0);
}

/* The shape the handshake's params must have before they are kept and
 * repeated to every restarted upstream. */
static int
init_params_ok(const struct rpc_msg *m)
{
	int v, k;

	if (m->params < 0)
		return 0;
	v = json_get(m->js, m->t, m->params, "protocolVersion");
	if (v < 0 || m->t[v].type != JSMN_STRING || m->t[v].end == m->t[v].start)
		return 0;
	k = json_get(m->js, m->t, m->params, "capabilities");
	if (k == -2 || (k >= 0 && m->t[k].type != JSMN_OBJECT))
		return 0;
	k = json_get(m->js, m->t, m->params, "clientInfo");
	return k != -2 && (k < 0 || m->t[k].type == JSMN_OBJECT);
}

static void
client_initialize(struct proxy *p, int c, const struct rpc_msg *m)
{
	const char *cid, *s;
	size_t cidn, n;
	struct pend *e;
	int owner = 0;

	rpc_raw(m, m->id, &cid, &cidn);
	if (!init_params_ok(m)) {
		/* answered here: a bad handshake is this client's alone */
		conn_error(p, c, cid, cidn, RPC_INVALID_PARAMS, "Invalid params: initialize needs a protocolVersion "
		    "string, and capabilities and clientInfo objects");
		return;
	}
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
		owner = 1;
	}
	if ((e = pend_new(p, K_INIT_WAIT, c, cid, cidn)) == NULL) {
		conn_error(p, c, cid, cidn, RPC_INTERNAL_ERROR, "too many requests in flight");
		return;
	}
	if (owner)
		p->init_owner = e->uid;
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

/* A notification: the known ones are handled or forwarded, every other
 * one is dropped and audited (an upstream that dispatches on "method"
 * would otherwise run a tools/call sent without an id). */
static void
client_notify(struct proxy *p, int c, const struct rpc_msg *m, const char *line, size_t len)
{
	char meth[METHOD_MAX + 1], name[TOOL_NAME_MAX * 4 + 8];
	int nl;

	switch (method_of(m, meth, sizeof meth)) {
	case N_INITIALIZED:
		return;		/* the proxy sends its own, once per upstream */
	case N_CANCELLED:
		client_cancel(p, c, m);
		return;
	case N_PROGRESS:
	case N_ROOTS_LIST_CHANGED:
		if (json_unique_keys(m->js, m->t, m->n, 0) != 1)
			break;
		p->tmp.len = 0;
		if (p->ready && buf_add(&p->tmp, line, len) == 0 && buf_add(&p->tmp, "\n", 1) == 0)
			up_send(p, p->tmp.p, p->tmp.len, 0, 0);
		return;
	default:
		break;
	}
	nl = strcmp(meth, "tools/call") == 0 ? call_tool_name(m, name, sizeof name) : -1;
	audit_method(p, meth, nl < 0 ? NULL : name, nl < 0 ? 0 : (size_t)nl, "dropped");
}

/* What a resource, prompt, completion or task request may reach: 1 to
 * forward it (kind and list set), 0 when refused (why set). */
static int
gate(struct proxy *p, const struct rpc_msg *m, enum method mt, enum pkind *kind, enum lkind *lk, const char **why)
{
	const struct proxy_config *cfg = p->cfg;
	char v[URI_MAX + 1];
	int n, r;

	*kind = K_OTHER;
	*why = "not allowed by the proxy";
	switch (mt) {
	case M_RESOURCES_LIST: *kind = K_LIST; *lk = L_RESOURCES; return 1;
	case M_RESOURCE_TEMPLATES_LIST: *kind = K_LIST; *lk = L_TEMPLATES; return 1;
	case M_PROMPTS_LIST: *kind = K_LIST; *lk = L_PROMPTS; return 1;
	case M_TASKS_LIST: *kind = K_LIST; *lk = L_TASKS; return 1;
	case M_RESOURCES_READ:
	case M_RESOURCES_SUBSCRIBE:
	case M_RESOURCES_UNSUBSCRIBE:
		*why = "Unknown resource: not allowed by the proxy";
		n = param_string(m, "uri", v, sizeof v);
		return n > 0 && allow_prefix(&cfg->resources, v, (size_t)n);
	case M_PROMPTS_GET:
		*why = "Unknown prompt: not allowed by the proxy";
		n = param_string(m, "name", v, sizeof v);
		return n > 0 && allow_has(&cfg->prompts, v, (size_t)n);
	case M_TASKS_GET:
	case M_TASKS_RESULT:
	case M_TASKS_CANCEL:
		*why = "Unknown task: not created by an allowed tool call";
		n = param_string(m, "taskId", v, sizeof v);
		return n > 0 && task_known(p, v, (size_t)n);
	case M_COMPLETE:
		*why = "Unknown reference: not allowed by the proxy";
		if (m->params < 0 || (r = json_get(m->js, m->t, m->params, "ref")) < 0 ||
		    m->t[r].type != JSMN_OBJECT || (n = json_get(m->js, m->t, r, "type")) < 0)
			return 0;
		if (json_eq(m->js, &m->t[n], "ref/prompt")) {
			int k = json_get(m->js, m->t, r, "name");
			int l = k >= 0 && m->t[k].type == JSMN_STRING ? json_str(m->js, &m->t[k], v, sizeof v) : -1;
			return l > 0 && allow_has(&cfg->prompts, v, (size_t)l);
		}
		if (json_eq(m->js, &m->t[n], "ref/resource")) {
			int k = json_get(m->js, m->t, r, "uri");
			int l = k >= 0 && m->t[k].type == JSMN_STRING ? json_str(m->js, &m->t[k], v, sizeof v) : -1;
			return l > 0 && allow_prefix(&cfg->resources, v, (size_t)l);
		}
		return 0;
	case M_SET_LEVEL:
	case M_PING:
		return 1;
	default:
		*why = "Method not found";
		return 0;
	}
}

/* --web-urls: 1 when an argument named "url" (its key unescaped) is not
 * a web URL (weburl.c), or not a string. */
static int
call_url_refused(const struct rpc_msg *m)
{
	char key[8], v[8192];
	int a, i, j, n;

	if (m->params < 0 || (a = json_get(m->js, m->t, m->params, "arguments")) < 0 ||
	    m->t[a].type != JSMN_OBJECT)
		return 0;
	for (i = a + 1, j = 0; j < m->t[a].size; j++, i = json_next(m->t, i + 1)) {
		if (m->t[i].end - m->t[i].start > (int)sizeof key * 6 ||
		    json_str(m->js, &m->t[i], key, sizeof key) < 0 || strcmp(key, "url") != 0)
			continue;
		if (m->t[i + 1].type != JSMN_STRING || (n = json_str(m->js, &m->t[i + 1], v, sizeof v)) < 0 ||
		    !web_url_ok(v, (size_t)n))
			return 1;
	}
	return 0;
}

static void
client_call(struct proxy *p, int c, const struct rpc_msg *m, const char *cid, size_t cidn)
{
	char name[TOOL_NAME_MAX * 4 + 8];
	int nl = call_tool_name(m, name, sizeof name);

	if (nl < 0 || !allow_has(&p->cfg->allow, name, (size_t)nl)) {
		audit(p, nl < 0 ? "" : name, nl < 0 ? 0 : (size_t)nl, "denied");
		conn_error(p, c, cid, cidn, RPC_INVALID_PARAMS, "Unknown tool: not allowed by the proxy");
		return;
	}
	if (p->cfg->web_urls && call_url_refused(m)) {
		audit(p, name, (size_t)nl, "refused-url");
		conn_error(p, c, cid, cidn, RPC_INVALID_PARAMS, "URL refused by the proxy: the browser "
		    "opens http:, https: and about:blank only (no file:, filesystem:, view-source:, "
		    "chrome: or other local state)");
		return;
	}
	forward_request(p, c, m, K_CALL, L_TOOLS, name);
}

static void
client_request(struct proxy *p, int c, const struct rpc_msg *m)
{
	char meth[METHOD_MAX + 1];
	const char *cid, *why;
	size_t cidn;
	enum method mt = method_of(m, meth, sizeof meth);
	enum pkind kind;
	enum lkind lk = L_TOOLS;

	rpc_raw(m, m->id, &cid, &cidn);
	switch (mt) {
	case M_INITIALIZE: client_initialize(p, c, m); return;
	case M_DISCOVER: client_discover(p, c, m); return;
	case M_TOOLS_CALL: client_call(p, c, m, cid, cidn); return;
	case M_TOOLS_LIST:
		if (p->state != UP_RUNNING)
			conn_result(p, c, cid, cidn, EMPTY_TOOLS);
		else
			forward_request(p, c, m, K_LIST, L_TOOLS, NULL);
		return;
	case M_PING:
		if (p->state != UP_RUNNING || !p->ready) {
			conn_result(p, c, cid, cidn, "{}");
			return;
		}
		break;
	default:
		break;
	}
	if (!gate(p, m, mt, &kind, &lk, &why)) {
		audit_method(p, meth, NULL, 0, "denied");
		conn_error(p, c, cid, cidn, mt == M_UNKNOWN ? RPC_METHOD_NOT_FOUND : RPC_INVALID_PARAMS, why);
		return;
	}
	if (kind == K_LIST && p->state != UP_RUNNING) {
		conn_result(p, c, cid, cidn, list_empty(lk));
		return;
	}
	forward_request(p, c, m, kind, lk, NULL);
}

void
client_line(struct proxy *p, int c, const char *line, size_t len)
{
	struct rpc_msg m;
	const char *cid = NULL;
	size_t cidn = 0;
	int rc;

	rc = rpc_parse(line, len, &p->tk, &m);
	if (rc < 0) {
		if (m.id >= 0)
			rpc_raw(&m, m.id, &cid, &cidn);
		conn_error(p, c, cid, cidn, rc, rc == RPC_PARSE_ERROR ? "Parse error" :
		    rc == RPC_INVALID_REQUEST ? "Invalid Request" : "Internal error");
		return;
	}
	if (m.kind == RPC_RESPONSE)
		client_response(p, c, &m);
	else if (m.kind == RPC_NOTIFY)
		client_notify(p, c, &m, line, len);
	else
		client_request(p, c, &m);
}
