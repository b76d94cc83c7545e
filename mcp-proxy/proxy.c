/*
 * The event loop. One upstream (a stdio server we spawn), downstream
 * clients (stdio now). Every message is parsed and validated before it is
 * forwarded; ids are rewritten both ways so clients can share the upstream.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "execenv.h"
#include "fdio.h"
#include "msg.h"
#include "proxy.h"
#include "version.h"

enum { MAX_CONN = 1, MAX_PEND = 512, MAX_SREQ = 64, CHUNK = 65536 };

enum pkind { K_FREE, K_INTERNAL_INIT, K_INIT_WAIT, K_LIST, K_CALL, K_OTHER };

struct conn {
	int used, in, out, eof, discard;
	struct buf rd, wr;
};

struct pend {
	enum pkind kind;
	uint64_t uid;		/* id upstream */
	int conn;
	char *cid;		/* the client's id, raw JSON */
	size_t cidn;
	char *ptok;		/* progress token, raw JSON */
	size_t ptokn;
	char tool[TOOL_NAME_MAX + 1];
	int64_t deadline;
	int held;		/* queued until the upstream is ready */
};

struct sreq {			/* a request from the upstream to a client */
	int used, conn;
	uint64_t did;		/* id downstream */
	char *uid;		/* the upstream's id, raw JSON */
	size_t uidn;
};

enum { UP_DOWN, UP_RUNNING };

struct proxy {
	const struct proxy_config *cfg;
	struct conn conn[MAX_CONN];
	struct pend pend[MAX_PEND];
	struct sreq sreq[MAX_SREQ];
	uint64_t next_uid, next_did;
	struct rpc_toks tk;
	struct buf tmp;
	/* upstream */
	int state, ready, in, out, discard;
	pid_t pid;
	struct buf rd, wr, hold;
	int64_t retry_at, backoff, last_rx, started;
	char *init_params, *init_result;
	size_t init_paramsn, init_resultn;
	int reinit;		/* the next handshake follows a restart */
	int stopping;
};

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *
dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* ---- audit log: one JSON line per tools/call, name and outcome only ---- */

static void
audit(struct proxy *p, const char *tool, size_t tooln, const char *outcome)
{
	char line[1024], q[600], ts[32];
	struct timespec now;
	struct tm tm;
	int qn, n;

	if (p->cfg->audit_fd < 0)
		return;
	if (tooln > 128)
		tooln = 128;	/* a refused name can be anything: bound it */
	if ((qn = json_quote(tool, tooln, q, sizeof q)) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(line, sizeof line, "{\"time\":\"%s\",\"tool\":%.*s,\"outcome\":\"%s\"}\n",
	    ts, qn, q, outcome);
	if (n > 0 && (size_t)n < sizeof line && fd_write_all(p->cfg->audit_fd, line, (size_t)n) < 0)
		msg_warn_sys("unable to write the audit log");
}

/* ---- sending ---- */

static void
conn_send(struct proxy *p, int c, const char *s, size_t n)
{
	if (c < 0 || c >= MAX_CONN || !p->conn[c].used || p->conn[c].out < 0)
		return;
	if (buf_add(&p->conn[c].wr, s, n) < 0)
		msg_warn("out of memory queueing a message to the client (dropped)");
}

static void
conn_error(struct proxy *p, int c, const char *id, size_t idn, int code, const char *text)
{
	p->tmp.len = 0;
	if (rpc_error(&p->tmp, id, idn, code, text) == 0)
		conn_send(p, c, p->tmp.p, p->tmp.len);
}

static void
conn_result(struct proxy *p, int c, const char *id, size_t idn, const char *res)
{
	p->tmp.len = 0;
	if (rpc_result(&p->tmp, id, idn, res, strlen(res)) == 0)
		conn_send(p, c, p->tmp.p, p->tmp.len);
}

static void
broadcast(struct proxy *p, const char *s, size_t n)
{
	for (int c = 0; c < MAX_CONN; c++)
		conn_send(p, c, s, n);
}

static void up_fail(struct proxy *p, const char *why);

static void
up_write(struct proxy *p, const char *s, size_t n)
{
	if (p->state != UP_RUNNING)
		return;
	if (p->wr.len + n > 4 * p->cfg->max_msg + CHUNK) {
		up_fail(p, "stopped reading its input");
		return;
	}
	if (buf_add(&p->wr, s, n) < 0)
		up_fail(p, "could not be written to (out of memory)");
}

/* ---- pending requests ---- */

static struct pend *
pend_new(struct proxy *p, enum pkind kind, int c, const char *cid, size_t cidn)
{
	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind != K_FREE)
			continue;
		memset(e, 0, sizeof *e);
		if (cid && (e->cid = dupn(cid, cidn)) == NULL)
			return NULL;
		e->cidn = cidn;
		e->kind = kind;
		e->conn = c;
		e->uid = p->next_uid++;
		e->deadline = now_ms() + p->cfg->timeout_ms;
		return e;
	}
	return NULL;
}

static void
pend_free(struct pend *e)
{
	free(e->cid);
	free(e->ptok);
	memset(e, 0, sizeof *e);
}

static struct pend *
pend_by_uid(struct proxy *p, uint64_t uid)
{
	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind != K_FREE && p->pend[i].uid == uid)
			return &p->pend[i];
	return NULL;
}

static const char EMPTY_TOOLS[] = "{\"tools\":[]}";

/* Answer a request the upstream will not: zero tools for a listing, a
 * stand-in handshake, an error for anything else. */
static void
pend_fail(struct proxy *p, struct pend *e, int code, const char *text, const char *outcome)
{
	char res[256];

	switch (e->kind) {
	case K_LIST:
		conn_result(p, e->conn, e->cid, e->cidn, EMPTY_TOOLS);
		break;
	case K_INIT_WAIT:
		snprintf(res, sizeof res, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
		    "{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"mcp-proxy\","
		    "\"version\":\"%s\"}}", CORRAL_VERSION);
		conn_result(p, e->conn, e->cid, e->cidn, res);
		break;
	case K_CALL:
		audit(p, e->tool, strlen(e->tool), outcome);
		/* fall through */
	case K_OTHER:
		conn_error(p, e->conn, e->cid, e->cidn, code, text);
		break;
	default:
		break;
	}
	pend_free(e);
}

/* ---- upstream process ---- */

static void
up_kill(struct proxy *p)
{
	if (p->pid > 0) {
		kill(-p->pid, SIGKILL);	/* the whole group: no orphans */
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
		p->pid = -1;
	}
}

static void
up_close(struct proxy *p)
{
	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0)
		close(p->out);
	p->in = p->out = -1;
	p->rd.len = p->wr.len = p->hold.len = 0;
	p->discard = 0;
}

static void
up_fail(struct proxy *p, const char *why)
{
	if (p->state == UP_DOWN)
		return;
	up_kill(p);
	up_close(p);
	p->state = UP_DOWN;
	p->ready = 0;
	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind != K_FREE)
			pend_fail(p, &p->pend[i], RPC_UPSTREAM_DOWN, "upstream unavailable", "unavailable");
	for (int i = 0; i < MAX_SREQ; i++)
		if (p->sreq[i].used) {
			free(p->sreq[i].uid);
			memset(&p->sreq[i], 0, sizeof p->sreq[i]);
		}
	if (p->stopping)
		return;
	p->retry_at = now_ms() + p->backoff;
	msg_warn("upstream %s; retrying in %lld ms", why, (long long)p->backoff);
	p->backoff = p->backoff * 2 > p->cfg->backoff_max_ms ? p->cfg->backoff_max_ms : p->backoff * 2;
	p->reinit = 1;
}

static void start_handshake(struct proxy *p);

static void
up_spawn(struct proxy *p)
{
	int a[2], b[2];
	pid_t pid;

	if (pipe2(a, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(b, O_CLOEXEC) < 0) {
		close(a[0]);
		close(a[1]);
		goto fail;
	}
	pid_t parent = getpid();
	pid = fork();
	if (pid < 0) {
		close(a[0]); close(a[1]); close(b[0]); close(b[1]);
		goto fail;
	}
	if (pid == 0) {
		sigset_t none;
		int keep[1] = { 2 };
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(a[0], 0) < 0 || dup2(b[1], 1) < 0)
			_exit(127);
		fd_close_from(3, keep, 0);
		exec_env(p->cfg->up_argv, p->cfg->up_envp);
		_exit(exec_status(errno));
	}
	setpgid(pid, pid);
	close(a[0]);
	close(b[1]);
	p->pid = pid;
	p->in = a[1];
	p->out = b[0];
	fcntl(p->in, F_SETFL, O_NONBLOCK);
	fcntl(p->out, F_SETFL, O_NONBLOCK);
	p->state = UP_RUNNING;
	p->ready = 0;
	p->started = p->last_rx = now_ms();
	if (p->init_params)
		start_handshake(p);
	return;
fail:
	msg_warn_sys("unable to start the upstream");
	p->state = UP_RUNNING;	/* so up_fail schedules the retry */
	p->pid = -1;
	up_fail(p, "did not start");
}

static void
start_handshake(struct proxy *p)
{
	struct pend *e;
	char id[32];

	if (p->state != UP_RUNNING || p->ready || !p->init_params)
		return;
	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind == K_INTERNAL_INIT)
			return;
	if ((e = pend_new(p, K_INTERNAL_INIT, -1, NULL, 0)) == NULL)
		return;
	snprintf(id, sizeof id, "%llu", (unsigned long long)e->uid);
	p->tmp.len = 0;
	if (buf_adds(&p->tmp, "{\"jsonrpc\":\"2.0\",\"id\":") < 0 || buf_adds(&p->tmp, id) < 0 ||
	    buf_adds(&p->tmp, ",\"method\":\"initialize\",\"params\":") < 0 ||
	    buf_add(&p->tmp, p->init_params, p->init_paramsn) < 0 || buf_adds(&p->tmp, "}\n") < 0)
		return;
	up_write(p, p->tmp.p, p->tmp.len);
}

/* The handshake is done: release held requests, answer waiting clients. */
static void
up_ready(struct proxy *p)
{
	static const char changed[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n";
	static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

	p->ready = 1;
	up_write(p, initialized, sizeof initialized - 1);
	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind == K_INIT_WAIT) {
			conn_result(p, e->conn, e->cid, e->cidn, p->init_result);
			pend_free(e);
		}
		e->held = 0;
	}
	if (p->hold.len) {
		up_write(p, p->hold.p, p->hold.len);
		p->hold.len = 0;
	}
	if (p->reinit)
		broadcast(p, changed, sizeof changed - 1);
	p->reinit = 0;
}

/* ---- messages from a client ---- */

static void
forward_request(struct proxy *p, int c, const struct rpc_msg *m, enum pkind kind, const char *tool)
{
	const char *cid, *tok;
	size_t cidn, tokn;
	struct pend *e;
	char id[32];
	int t;

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
	if (rpc_splice(&p->tmp, m, m->id, id, strlen(id)) < 0) {
		pend_fail(p, e, RPC_INTERNAL_ERROR, "out of memory", "error");
		return;
	}
	if (p->state != UP_RUNNING) {
		pend_fail(p, e, RPC_UPSTREAM_DOWN, "upstream unavailable", "unavailable");
		return;
	}
	if (!p->ready) {
		e->held = 1;
		if (buf_add(&p->hold, p->tmp.p, p->tmp.len) < 0)
			pend_fail(p, e, RPC_INTERNAL_ERROR, "out of memory", "error");
		return;
	}
	up_write(p, p->tmp.p, p->tmp.len);
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
		p->tmp.len = 0;
		if (buf_add(&p->tmp, s, n) < 0 || (p->init_params = dupn(s, n)) == NULL) {
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
				up_write(p, p->tmp.p, p->tmp.len);
		}
		/* held requests are in p->hold: their late answer is dropped */
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
		if (!s->used || s->conn != c || s->did != (uint64_t)did)
			continue;
		p->tmp.len = 0;
		if (p->ready && rpc_splice(&p->tmp, m, m->id, s->uid, s->uidn) == 0)
			up_write(p, p->tmp.p, p->tmp.len);
		free(s->uid);
		memset(s, 0, sizeof *s);
		return;
	}
}

static void
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
			up_write(p, p->tmp.p, p->tmp.len);
		return;
	}
	rpc_raw(&m, m.id, &cid, &cidn);
	if (rpc_is(&m, "initialize")) {
		client_initialize(p, c, &m);
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

/* ---- messages from the upstream ---- */

static void
up_response(struct proxy *p, const struct rpc_msg *m)
{
	struct pend *e;
	int64_t uid;
	size_t kept, dropped;
	const char *s;
	size_t n;

	if (json_int(m->js, &m->t[m->id], &uid) < 0 || uid < 0 ||
	    (e = pend_by_uid(p, (uint64_t)uid)) == NULL) {
		msg_warn("upstream answered an unknown request (dropped)");
		return;
	}
	p->backoff = p->cfg->backoff_min_ms;
	switch (e->kind) {
	case K_INTERNAL_INIT:
		pend_free(e);
		if (m->result < 0 || m->t[m->result].type != JSMN_OBJECT) {
			up_fail(p, "refused the initialize handshake");
			return;
		}
		rpc_raw(m, m->result, &s, &n);
		free(p->init_result);
		if ((p->init_result = dupn(s, n)) == NULL) {
			up_fail(p, "handshake could not be stored (out of memory)");
			return;
		}
		for (size_t i = 0; i < n; i++)
			if (p->init_result[i] == '\n' || p->init_result[i] == '\r')
				p->init_result[i] = ' ';
		p->init_resultn = n;
		up_ready(p);
		return;
	case K_LIST:
		p->tmp.len = 0;
		if (m->error >= 0) {
			if (rpc_splice(&p->tmp, m, m->id, e->cid, e->cidn) == 0)
				conn_send(p, e->conn, p->tmp.p, p->tmp.len);
		} else if (tools_list_filter(m, &p->cfg->allow, e->cid, e->cidn, &p->tmp, &kept, &dropped) == 0) {
			conn_send(p, e->conn, p->tmp.p, p->tmp.len);
		} else {
			msg_warn("upstream sent a malformed tools/list result (zero tools given)");
			conn_result(p, e->conn, e->cid, e->cidn, EMPTY_TOOLS);
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
	}
		/* fall through */
	default:
		p->tmp.len = 0;
		if (rpc_splice(&p->tmp, m, m->id, e->cid, e->cidn) == 0)
			conn_send(p, e->conn, p->tmp.p, p->tmp.len);
		break;
	}
	pend_free(e);
}

static int
pick_conn(struct proxy *p)
{
	for (int c = 0; c < MAX_CONN; c++)
		if (p->conn[c].used && p->conn[c].out >= 0)
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
		up_write(p, p->tmp.p, p->tmp.len);
}

static void
up_notify(struct proxy *p, const struct rpc_msg *m, const char *line, size_t len)
{
	const char *v;
	size_t vn;
	char id[32];
	int t;

	if (rpc_is(m, "notifications/progress")) {
		if (m->params < 0 || (t = json_get(m->js, m->t, m->params, "progressToken")) < 0)
			return;
		rpc_raw(m, t, &v, &vn);
		for (int i = 0; i < MAX_PEND; i++) {
			struct pend *e = &p->pend[i];
			if (e->kind != K_FREE && e->ptok && e->ptokn == vn && memcmp(e->ptok, v, vn) == 0) {
				e->deadline = now_ms() + p->cfg->timeout_ms;	/* alive */
				p->tmp.len = 0;
				if (buf_add(&p->tmp, line, len) == 0 && buf_add(&p->tmp, "\n", 1) == 0)
					conn_send(p, e->conn, p->tmp.p, p->tmp.len);
				return;
			}
		}
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
	p->tmp.len = 0;
	if (buf_add(&p->tmp, line, len) == 0 && buf_add(&p->tmp, "\n", 1) == 0)
		broadcast(p, p->tmp.p, p->tmp.len);
}

static void
up_line(struct proxy *p, const char *line, size_t len)
{
	struct rpc_msg m;

	if (rpc_parse(line, len, &p->tk, &m) < 0) {
		msg_warn("upstream sent a malformed message (dropped)");
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

/* ---- framing: newline-delimited, bounded ---- */

enum { FEED_OK, FEED_EOF, FEED_ERR };

/* Read what fd has, hand complete lines to fn. A line longer than max is
 * dropped whole (memory stays bounded) and reported once with len 0 and
 * line NULL. */
static int
feed(struct proxy *p, int fd, struct buf *rd, int *discard, size_t max,
    void (*fn)(struct proxy *, int, const char *, size_t), int who)
{
	char chunk[CHUNK];
	ssize_t n = read(fd, chunk, sizeof chunk);
	size_t i, start;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? FEED_OK : FEED_ERR;
	if (n == 0)
		return FEED_EOF;
	for (start = 0, i = 0; i < (size_t)n; i++) {
		if (chunk[i] != '\n')
			continue;
		if (*discard) {
			*discard = 0;
		} else if (rd->len + (i - start) > max) {
			rd->len = 0;
			fn(p, who, NULL, 0);
		} else if (rd->len) {
			if (buf_add(rd, chunk + start, i - start) < 0) {
				rd->len = 0;
				fn(p, who, NULL, 0);
			} else {
				fn(p, who, rd->p, rd->len);
				rd->len = 0;
			}
		} else {
			fn(p, who, chunk + start, i - start);
		}
		start = i + 1;
		if (p->state == UP_DOWN && who < 0)
			return FEED_ERR;	/* the upstream was dropped meanwhile */
	}
	if (start < (size_t)n && !*discard) {
		if (rd->len + ((size_t)n - start) > max) {
			rd->len = 0;
			*discard = 1;
			fn(p, who, NULL, 0);
		} else if (buf_add(rd, chunk + start, (size_t)n - start) < 0) {
			rd->len = 0;
			*discard = 1;
			fn(p, who, NULL, 0);
		}
	}
	if (rd->len == 0 && rd->cap > 4 * CHUNK)
		buf_free(rd);
	return FEED_OK;
}

static void
client_feed_line(struct proxy *p, int c, const char *line, size_t len)
{
	if (line == NULL) {
		conn_error(p, c, NULL, 0, RPC_INVALID_REQUEST, "message too large");
		return;
	}
	if (len && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return;		/* blank lines are keep-alives */
	client_line(p, c, line, len);
}

static void
up_feed_line(struct proxy *p, int who, const char *line, size_t len)
{
	(void)who;
	if (line == NULL) {
		msg_warn("upstream sent a message over the size limit (dropped)");
		return;
	}
	if (len && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return;
	up_line(p, line, len);
}

static int
flush(int fd, struct buf *b)
{
	ssize_t n;

	while (b->len) {
		n = write(fd, b->p, b->len);
		if (n < 0)
			return errno == EINTR ? 0 : errno == EAGAIN ? 0 : -1;
		buf_consume(b, (size_t)n);
	}
	if (b->cap > 4 * CHUNK)
		buf_free(b);
	return 0;
}

static void
check_timers(struct proxy *p)
{
	int64_t now = now_ms();
	int hung = 0;

	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind == K_FREE || e->deadline > now)
			continue;
		if (e->kind == K_INTERNAL_INIT) {
			pend_free(e);
			hung = 1;
			continue;
		}
		pend_fail(p, e, RPC_UPSTREAM_TIMEOUT, "upstream timed out", "timeout");
		/* nothing at all from the upstream for a whole timeout: hung */
		if (now - p->last_rx >= p->cfg->timeout_ms)
			hung = 1;
	}
	if (hung && p->state == UP_RUNNING)
		up_fail(p, "did not answer in time (hung)");
	if (p->state == UP_DOWN && !p->stopping && now >= p->retry_at)
		up_spawn(p);
}

static int
next_timeout(struct proxy *p)
{
	int64_t now = now_ms(), t = now + 60000;

	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind != K_FREE && p->pend[i].deadline < t)
			t = p->pend[i].deadline;
	if (p->state == UP_DOWN && !p->stopping && p->retry_at < t)
		t = p->retry_at;
	t -= now;
	return t < 0 ? 0 : t > 60000 ? 60000 : (int)t + 1;
}

static int
pending_count(struct proxy *p)
{
	int n = 0;

	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind != K_FREE && p->pend[i].kind != K_INTERNAL_INIT)
			n++;
	return n;
}

int
proxy_run(const struct proxy_config *cfg)
{
	static struct proxy px;
	struct proxy *p = &px;
	struct sigaction sa;
	struct pollfd pf[4];
	int rc = 0;

	memset(p, 0, sizeof *p);
	p->cfg = cfg;
	p->in = p->out = -1;
	p->pid = -1;
	p->next_uid = 1;
	p->backoff = cfg->backoff_min_ms;
	p->state = UP_DOWN;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	p->conn[0].used = 1;
	p->conn[0].in = 0;
	p->conn[0].out = 1;

	up_spawn(p);
	for (;;) {
		struct conn *c = &p->conn[0];
		int n = 0, ci = -1, co = -1, ui = -1, uo = -1;

		if (got_signal)
			break;
		/* stdin closed: finish what is in flight, then leave */
		if (c->eof && pending_count(p) == 0 && c->wr.len == 0)
			break;
		if (c->out < 0 && c->eof)
			break;
		if (!c->eof) {
			pf[n] = (struct pollfd){ .fd = c->in, .events = POLLIN };
			ci = n++;
		}
		if (c->wr.len && c->out >= 0) {
			pf[n] = (struct pollfd){ .fd = c->out, .events = POLLOUT };
			co = n++;
		}
		if (p->state == UP_RUNNING) {
			pf[n] = (struct pollfd){ .fd = p->out, .events = POLLIN };
			ui = n++;
			if (p->wr.len) {
				pf[n] = (struct pollfd){ .fd = p->in, .events = POLLOUT };
				uo = n++;
			}
		}
		if (poll(pf, (nfds_t)n, next_timeout(p)) < 0) {
			if (errno == EINTR)
				continue;
			msg_warn_sys("poll");
			rc = 2;
			break;
		}
		if (ui >= 0 && pf[ui].revents) {
			int r = feed(p, p->out, &p->rd, &p->discard, cfg->max_msg, up_feed_line, -1);
			if (r == FEED_EOF || (r == FEED_ERR && p->state == UP_RUNNING)) {
				int st;
				char why[64];
				pid_t w = waitpid(p->pid, &st, WNOHANG);
				if (w == p->pid) {
					p->pid = -1;
					if (WIFEXITED(st))
						snprintf(why, sizeof why, "exited with status %d", WEXITSTATUS(st));
					else
						snprintf(why, sizeof why, "was killed by signal %d", WTERMSIG(st));
				} else {
					snprintf(why, sizeof why, "closed its output");
				}
				up_fail(p, why);
			}
		}
		if (uo >= 0 && p->state == UP_RUNNING && pf[uo].revents) {
			if (flush(p->in, &p->wr) < 0)
				up_fail(p, "closed its input");
		}
		if (ci >= 0 && pf[ci].revents) {
			int r = feed(p, c->in, &c->rd, &c->discard, cfg->max_msg, client_feed_line, 0);
			if (r != FEED_OK)
				c->eof = 1;
		}
		if (co >= 0 && pf[co].revents) {
			if (flush(c->out, &c->wr) < 0) {
				c->out = -1;	/* the client went away */
				c->eof = 1;
				break;
			}
		}
		check_timers(p);
	}
	flush(p->conn[0].out, &p->conn[0].wr);
	p->stopping = 1;
	up_kill(p);
	up_close(p);
	return rc;
}
