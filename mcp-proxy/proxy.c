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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "execenv.h"
#include "fdio.h"
#include "http_up.h"
#include "httpd.h"
#include "listen.h"
#include "msg.h"
#include "proxy.h"
#include "version.h"
#include "modern.h"

enum { MAX_CONN = 64, MAX_PEND = 512, MAX_SREQ = 64, CHUNK = 65536 };

enum ckind { C_STDIO, C_UNIX, C_HTTP };

enum pkind { K_FREE, K_INTERNAL_INIT, K_INIT_WAIT, K_DISC_WAIT, K_LIST, K_CALL, K_OTHER };

struct conn {
	int used, in, out, eof, discard;
	enum ckind kind;
	struct buf rd, wr;
	/* C_HTTP: one request per connection */
	int started, closing, got;	/* SSE begun; close once flushed; message in */
	int keep;			/* keep-alive: another request may follow */
	struct httpd_in hin;		/* C_HTTP: the request being read */
	int64_t idle_at;		/* C_HTTP: waiting since then for a whole request */
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
	char *msg;		/* the held message */
	size_t msgn;
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
	struct buf rd, wr;
	struct http_up *http;	/* NULL: a stdio upstream */
	int expired_once;
	int64_t retry_at, backoff, last_rx, started;
	char *init_params, *init_result;
	size_t init_paramsn, init_resultn;
	int reinit;		/* the next handshake follows a restart */
	int era, probing;	/* ERA_*; a server/discover probe is in flight */
	char *caps;		/* the upstream's capabilities, raw JSON */
	int lunix, lhttp, http_port;
	int stopping;
};

enum { ERA_UNKNOWN, ERA_MODERN, ERA_LEGACY };

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
http_head(struct conn *k, int status, const char *ctype, size_t clen, int has_len)
{
	/* keep-alive only for a JSON answer or a 202, whose length is known */
	if (!has_len || status >= 400)
		k->keep = 0;
	if (httpd_head(&k->wr, status, ctype, clen, has_len, k->keep) < 0)
		msg_warn("out of memory queueing an answer to the client");
}

/* An HTTP answer with no MCP body, then close. */
static void
http_status(struct conn *k, int status)
{
	k->wr.len = 0;
	http_head(k, status, NULL, 0, 1);
	k->closing = 1;
	k->started = 1;
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
	} else if (k->closing) {
		return;
	} else if (final && !k->started) {
		/* the answer alone: plain JSON */
		http_head(k, 200, "application/json", n - 1, 1);
		bad = buf_add(&k->wr, s, n - 1) < 0;
		k->started = k->closing = 1;
	} else {
		/* notifications or requests first: an event stream, the answer last */
		if (!k->started)
			http_head(k, 200, "text/event-stream", 0, 0);
		k->started = 1;
		bad = httpd_sse_event(&k->wr, s, n - 1) < 0;
		if (final)
			k->closing = 1;
	}
	if (bad)
		msg_warn("out of memory queueing a message to the client (dropped)");
}

static void
conn_send(struct proxy *p, int c, const char *s, size_t n)
{
	conn_out(p, c, s, n, 0);
}

static void
conn_reply(struct proxy *p, int c, const char *s, size_t n)
{
	conn_out(p, c, s, n, 1);
}

static void
conn_error(struct proxy *p, int c, const char *id, size_t idn, int code, const char *text)
{
	p->tmp.len = 0;
	if (rpc_error(&p->tmp, id, idn, code, text) == 0)
		conn_reply(p, c, p->tmp.p, p->tmp.len);
}

static void
conn_result(struct proxy *p, int c, const char *id, size_t idn, const char *res)
{
	p->tmp.len = 0;
	if (rpc_result(&p->tmp, id, idn, res, strlen(res)) == 0)
		conn_reply(p, c, p->tmp.p, p->tmp.len);
}

static void
broadcast(struct proxy *p, const char *s, size_t n)
{
	for (int c = 0; c < MAX_CONN; c++)
		if (p->conn[c].kind != C_HTTP)
			conn_send(p, c, s, n);
}

static void up_fail(struct proxy *p, const char *why);
static void conn_close(struct proxy *p, int c);

static void
up_send(struct proxy *p, const char *s, size_t n, uint64_t uid, int init)
{
	if (p->state != UP_RUNNING)
		return;
	if (p->http) {
		if (n && s[n - 1] == '\n')
			n--;
		if (http_up_post(p->http, s, n, uid, init) < 0)
			msg_warn("unable to start a request to the upstream (dropped)");
		return;
	}
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
	free(e->msg);
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

/* server/discover from a client, answered from the proxy's view of the
 * upstream: both revisions (the proxy speaks 2025-11-25 to clients that
 * initialize and 2026-07-28 to those that do not), the upstream's
 * capabilities (tools always, with listChanged: the proxy sends it after a
 * restart), and the proxy as the server. The upstream's instructions are
 * left out: free text that may name tools the allowlist hides. */
static void
discover_answer(struct proxy *p, int c, const char *cid, size_t cidn)
{
	struct buf b = { 0 };

	if (buf_adds(&b, "{\"supportedVersions\":[\"" MODERN_VERSION "\",\"" LEGACY_VERSION "\"],"
	    "\"capabilities\":") < 0 || buf_adds(&b, p->caps ? p->caps : "{\"tools\":{\"listChanged\":true}}") < 0 ||
	    buf_adds(&b, ",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcp-proxy\","
	    "\"version\":\"" CORRAL_VERSION "\"}},\"resultType\":\"complete\"}") < 0 || buf_add(&b, "", 1) < 0) {
		conn_error(p, c, cid, cidn, RPC_INTERNAL_ERROR, "out of memory");
	} else {
		conn_result(p, c, cid, cidn, b.p);
	}
	buf_free(&b);
}

/* The capabilities member of result object r, with "tools" replaced by
 * {"listChanged":true} (added when absent), kept in p->caps. */
static void
keep_caps(struct proxy *p, const struct rpc_msg *m, int r)
{
	struct buf b = { 0 };
	int cp = r >= 0 ? json_get(m->js, m->t, r, "capabilities") : -1;

	free(p->caps);
	p->caps = NULL;
	if (buf_adds(&b, "{\"tools\":{\"listChanged\":true}") < 0)
		goto out;
	if (cp >= 0 && m->t[cp].type == JSMN_OBJECT) {
		int k = cp + 1;
		for (int i = 0; i < m->t[cp].size; i++) {
			int v = k + 1, nx = json_next(m->t, v);
			if (!json_eq(m->js, &m->t[k], "tools")) {
				if (buf_adds(&b, ",") < 0 ||
				    buf_add(&b, m->js + m->t[k].start - 1, (size_t)(m->t[k].end - m->t[k].start + 2)) < 0 ||
				    buf_adds(&b, ":") < 0)
					goto out;
				const char *s;
				size_t n;
				rpc_raw(m, v, &s, &n);
				if (buf_add(&b, s, n) < 0)
					goto out;
			}
			k = nx;
		}
	}
	if (buf_adds(&b, "}") < 0 || buf_add(&b, "", 1) < 0)
		goto out;
	for (char *q = b.p; *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
	p->caps = b.p;
	return;
out:
	buf_free(&b);
}

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
	case K_DISC_WAIT:
		discover_answer(p, e->conn, e->cid, e->cidn);
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
	p->rd.len = p->wr.len = 0;
	p->discard = 0;
}

static void
up_fail(struct proxy *p, const char *why)
{
	if (p->state == UP_DOWN)
		return;
	up_kill(p);
	up_close(p);
	if (p->http)
		http_up_reset(p->http);
	p->state = UP_DOWN;
	p->ready = 0;
	p->probing = 0;
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

	if (p->http) {
		p->state = UP_RUNNING;
		p->ready = 0;
		p->started = p->last_rx = now_ms();
		if (p->init_params)
			start_handshake(p);
		return;
	}
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

static const char DEFAULT_INIT[] = "{\"protocolVersion\":\"" LEGACY_VERSION "\",\"capabilities\":{},"
    "\"clientInfo\":{\"name\":\"mcp-proxy\",\"version\":\"" CORRAL_VERSION "\"}}";

/* The handshake with the upstream: server/discover first on an HTTP
 * upstream whose era is not known yet (2026-07-28), else initialize with
 * the first client's parameters (the proxy's own for a client that never
 * initializes). */
static void
start_handshake(struct proxy *p)
{
	struct pend *e;
	char id[32];

	if (!p->init_params) {
		if ((p->init_params = dupn(DEFAULT_INIT, sizeof DEFAULT_INIT - 1)) == NULL)
			return;
		p->init_paramsn = sizeof DEFAULT_INIT - 1;
	}
	if (p->state != UP_RUNNING || p->ready)
		return;
	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind == K_INTERNAL_INIT)
			return;
	if ((e = pend_new(p, K_INTERNAL_INIT, -1, NULL, 0)) == NULL)
		return;
	snprintf(id, sizeof id, "%llu", (unsigned long long)e->uid);
	p->tmp.len = 0;
	p->probing = p->http && p->era != ERA_LEGACY && p->cfg->protocol != PROTO_LEGACY;
	if (p->probing) {
		if (buf_adds(&p->tmp, "{\"jsonrpc\":\"2.0\",\"id\":") < 0 || buf_adds(&p->tmp, id) < 0 ||
		    buf_adds(&p->tmp, ",\"method\":\"server/discover\",\"params\":{\"_meta\":{"
		    "\"io.modelcontextprotocol/protocolVersion\":\"" MODERN_VERSION "\","
		    "\"io.modelcontextprotocol/clientCapabilities\":{},"
		    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"mcp-proxy\",\"version\":\""
		    CORRAL_VERSION "\"}}}}\n") < 0)
			return;
		up_send(p, p->tmp.p, p->tmp.len, e->uid, 2);
		return;
	}
	if (buf_adds(&p->tmp, "{\"jsonrpc\":\"2.0\",\"id\":") < 0 || buf_adds(&p->tmp, id) < 0 ||
	    buf_adds(&p->tmp, ",\"method\":\"initialize\",\"params\":") < 0 ||
	    buf_add(&p->tmp, p->init_params, p->init_paramsn) < 0 || buf_adds(&p->tmp, "}\n") < 0)
		return;
	up_send(p, p->tmp.p, p->tmp.len, e->uid, 1);
}

/* server/discover was refused (an error, a 4xx, no answer): the upstream
 * is of the initialize era, remembered for this process (spec 2026-07-28,
 * versioning: "cache the result ... for the lifetime of the origin"). */
static void
probe_failed(struct proxy *p, const char *why)
{
	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind == K_INTERNAL_INIT)
			pend_free(&p->pend[i]);
	p->probing = 0;
	if (p->cfg->protocol == PROTO_MODERN) {
		up_fail(p, "does not speak 2026-07-28 (server/discover refused)");
		return;
	}
	msg_warn("upstream %s; falling back to initialize (" LEGACY_VERSION ")", why);
	p->era = ERA_LEGACY;
	start_handshake(p);
}

/* The handshake is done: release held requests, answer waiting clients. */
static void
up_ready(struct proxy *p)
{
	static const char changed[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n";
	static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

	p->ready = 1;
	if (p->era != ERA_MODERN)
		up_send(p, initialized, sizeof initialized - 1, 0, 0);
	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind == K_INIT_WAIT) {
			conn_result(p, e->conn, e->cid, e->cidn, p->init_result);
			pend_free(e);
		} else if (e->kind == K_DISC_WAIT) {
			discover_answer(p, e->conn, e->cid, e->cidn);
			pend_free(e);
		}
	}
	/* held requests, in the order they came */
	for (;;) {
		struct pend *first = NULL;
		for (int i = 0; i < MAX_PEND; i++)
			if (p->pend[i].kind != K_FREE && p->pend[i].held &&
			    (!first || p->pend[i].uid < first->uid))
				first = &p->pend[i];
		if (!first)
			break;
		first->held = 0;
		up_send(p, first->msg, first->msgn, first->uid, 0);
		free(first->msg);
		first->msg = NULL;
		if (p->state != UP_RUNNING)
			break;
	}
	if (p->http && p->era != ERA_MODERN)
		http_up_listen(p->http);
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

/* ---- messages from the upstream ---- */

/* The answer to server/discover: a 2026-07-28 upstream, or a fallback. */
static void
up_discovered(struct proxy *p, const struct rpc_msg *m)
{
	struct buf b = { 0 };
	const char *s;
	size_t n;
	int sv, ok = 0, si;

	p->probing = 0;
	if (m->result < 0 || m->t[m->result].type != JSMN_OBJECT) {
		probe_failed(p, "answered server/discover with an error");
		return;
	}
	sv = json_get(m->js, m->t, m->result, "supportedVersions");
	if (sv >= 0 && m->t[sv].type == JSMN_ARRAY)
		for (int i = 0, k = sv + 1; i < m->t[sv].size; i++, k = json_next(m->t, k))
			if (m->t[k].type == JSMN_STRING && json_eq(m->js, &m->t[k], MODERN_VERSION))
				ok = 1;
	if (!ok) {
		probe_failed(p, "does not list " MODERN_VERSION " in server/discover");
		return;
	}
	keep_caps(p, m, m->result);
	/* what a client that initializes gets: the upstream as discovered */
	si = json_pointer(m->js, m->t, m->n, m->result, "/_meta/io.modelcontextprotocol~1serverInfo");
	if (si >= 0 && m->t[si].type == JSMN_OBJECT)
		rpc_raw(m, si, &s, &n);
	else
		s = "{\"name\":\"mcp-proxy\",\"version\":\"" CORRAL_VERSION "\"}", n = strlen(s);
	if (!p->caps || buf_adds(&b, "{\"protocolVersion\":\"" LEGACY_VERSION "\",\"capabilities\":") < 0 ||
	    buf_adds(&b, p->caps) < 0 || buf_adds(&b, ",\"serverInfo\":") < 0 || buf_add(&b, s, n) < 0 ||
	    buf_adds(&b, "}") < 0 || buf_add(&b, "", 1) < 0) {
		buf_free(&b);
		up_fail(p, "handshake could not be stored (out of memory)");
		return;
	}
	for (char *q = b.p; *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
	free(p->init_result);
	p->init_result = b.p;
	p->init_resultn = strlen(b.p);
	if (p->era != ERA_MODERN)
		msg_warn("upstream speaks " MODERN_VERSION " (server/discover)");
	p->era = ERA_MODERN;
	http_up_set_modern(p->http, 1);
	p->expired_once = 0;
	up_ready(p);
}

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
		if (p->probing) {
			up_discovered(p, m);
			return;
		}
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
		} else if (tools_list_filter(m, &p->cfg->allow, e->cid, e->cidn, &p->tmp, &kept, &dropped) == 0) {
			conn_reply(p, e->conn, p->tmp.p, p->tmp.len);
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
		    !p->conn[e->conn].closing && (!best || e->uid > best->uid))
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
		if (e->kind == K_INTERNAL_INIT && p->probing) {
			probe_failed(p, "did not answer server/discover in time");
			continue;
		}
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
	/* an HTTP connection that has not delivered a whole request in time
	 * (idle keep-alive, or a head or body trickling in) gives its slot back */
	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		if (k->used && k->kind == C_HTTP && !k->got && !k->started &&
		    now - k->idle_at >= p->cfg->http_idle_ms)
			conn_close(p, c);
	}
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
	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		if (k->used && k->kind == C_HTTP && !k->got && !k->started &&
		    k->idle_at + p->cfg->http_idle_ms < t)
			t = k->idle_at + p->cfg->http_idle_ms;
	}
	t -= now;
	return t < 0 ? 0 : t > 60000 ? 60000 : (int)t + 1;
}

static int
conn_pending(struct proxy *p, int c)
{
	int n = 0;

	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind != K_FREE && p->pend[i].kind != K_INTERNAL_INIT && p->pend[i].conn == c)
			n++;
	return n;
}

/* A client is gone: cancel what it left in flight, upstream too. */
static void
conn_close(struct proxy *p, int c)
{
	struct conn *k = &p->conn[c];
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
	if (k->kind != C_STDIO && k->in >= 0)
		close(k->in);
	buf_free(&k->rd);
	buf_free(&k->wr);
	httpd_in_free(&k->hin);
	memset(k, 0, sizeof *k);
	k->in = k->out = -1;
}

static int
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
		k->idle_at = now_ms();
		return c;
	}
	close(fd);
	return -1;
}

/* The Mcp-Method and Mcp-Name headers must say what the body says (spec
 * 2026-07-28, streamable-http "Server Validation"): a gateway that routes
 * or meters on the header would otherwise be told one thing while the
 * proxy acts on another. A mismatch is answered 400 with HeaderMismatch
 * (-32020) and nothing reaches the upstream. Returns 1 when refused. */
static int
http_meta_refused(struct proxy *p, int c, const char *body, size_t n)
{
	struct conn *k = &p->conn[c];
	struct http_req *r = k->hin.req;
	struct rpc_msg m;
	const char *why = NULL, *cid = NULL;
	size_t cidn = 0;
	int modern;

	if (!r || rpc_parse(body, n, &p->tk, &m) < 0 || m.kind == RPC_RESPONSE)
		return 0;	/* client_line answers what does not parse */
	modern = strcmp(r->mcp_version, MODERN_VERSION) == 0;
	if (modern_version_check(&m, r->mcp_version, strlen(r->mcp_version), r->mcp_version[0] != '\0', &why) == 0 &&
	    modern_check(&m, modern, r->mcp_method, strlen(r->mcp_method), r->has_mcp_method,
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
	k->started = k->closing = 1;
	if (m.kind == RPC_REQUEST && rpc_is(&m, "tools/call")) {
		char name[TOOL_NAME_MAX * 4 + 8];
		int nl = call_tool_name(&m, name, sizeof name);
		audit(p, nl < 0 ? "" : name, nl < 0 ? 0 : (size_t)nl, "denied");
	}
	return 1;
}

/* One HTTP request at a time per connection: head, checks, body, then the
 * message. */
static void
http_read(struct proxy *p, int c)
{
	struct conn *k = &p->conn[c];
	struct httpd_endpoint ep = { p->http_port, p->cfg->listen_token, p->cfg->max_msg };
	char chunk[CHUNK];
	const char *body;
	size_t bn;
	ssize_t n;
	int st, had = httpd_in_has_head(&k->hin);

	n = read(k->in, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		k->eof = 1;
		k->closing = 1;
		k->keep = 0;
		return;
	}
	st = httpd_in_feed(&k->hin, chunk, (size_t)n, &ep);
	if (st == HTTPD_MORE) {
		if (!had && httpd_in_has_head(&k->hin))
			k->keep = !k->hin.req->close;
		return;
	}
	if (st != HTTPD_READY) {
		http_status(k, st);
		return;
	}
	if (!had)
		k->keep = !k->hin.req->close;
	k->got = 1;
	body = httpd_in_body(&k->hin, &bn);
	if (http_meta_refused(p, c, body, bn)) {
		buf_free(&k->hin.rd);
		return;
	}
	client_line(p, c, body, bn);
	if (!k->started && conn_pending(p, c) == 0)
		http_status(k, 202);	/* a notification or a response */
	buf_free(&k->hin.rd);
}

/* What the HTTP upstream reported while curl ran. */
static void
http_events(struct proxy *p)
{
	struct http_ev ev;
	struct pend *e;

	while (http_up_next(p->http, &ev)) {
		e = ev.uid ? pend_by_uid(p, ev.uid) : NULL;
		switch (ev.kind) {
		case HEV_MSG:
			if (p->state == UP_RUNNING)
				up_line(p, ev.data, ev.n);
			break;
		case HEV_EXPIRED:
			if (!p->expired_once && p->state == UP_RUNNING) {
				/* the session is gone: a new handshake, then this again */
				msg_warn("upstream %s; initializing again", ev.why);
				p->expired_once = 1;
				p->ready = 0;
				if (e && !e->msg) {
					e->held = 1;
					e->msg = ev.data;
					e->msgn = ev.n;
					ev.data = NULL;
				}
				start_handshake(p);
				break;
			}
			/* expired again right after a new session: a failure */
			/* fall through */
		case HEV_FAIL:
			if (ev.init == 2 && p->probing && e && e->kind == K_INTERNAL_INIT) {
				probe_failed(p, ev.why);
			} else if (ev.init || (e && e->kind == K_INTERNAL_INIT)) {
				up_fail(p, ev.why);
			} else {
				msg_warn("upstream %s", ev.why);
				if (e)
					pend_fail(p, e, RPC_UPSTREAM_DOWN, "upstream unavailable", "unavailable");
			}
			break;
		case HEV_DONE:
			if (e && e->kind == K_INTERNAL_INIT && p->probing)
				probe_failed(p, "ended server/discover without an answer");
			else if (e && e->kind == K_INTERNAL_INIT)
				up_fail(p, "ended the initialize stream without an answer");
			else if (e && !e->held)
				pend_fail(p, e, RPC_UPSTREAM_DOWN, "upstream ended the stream without an answer",
				    "unavailable");
			break;
		}
		free(ev.data);
	}
}


/* The stdio upstream closed a pipe: it is usually exiting; give it 200 ms
 * to say how, so the log names the status rather than the pipe. */
static void
up_gone(struct proxy *p, const char *pipe_why)
{
	int st;
	char why[64];
	pid_t w = 0;

	for (int k = 0; p->pid > 0 && k < 40 && w == 0; k++) {
		w = waitpid(p->pid, &st, WNOHANG);
		if (w == 0)
			nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	if (p->pid > 0 && w == p->pid) {
		p->pid = -1;
		if (WIFEXITED(st))
			snprintf(why, sizeof why, "exited with status %d", WEXITSTATUS(st));
		else
			snprintf(why, sizeof why, "was killed by signal %d", WTERMSIG(st));
	} else {
		snprintf(why, sizeof why, "%s", pipe_why);
	}
	up_fail(p, why);
}

int
proxy_run(const struct proxy_config *cfg)
{
	static struct proxy px;
	struct proxy *p = &px;
	struct sigaction sa;
	static struct pollfd pf[MAX_CONN * 2 + 8];
	int rc = 0, stdio;

	memset(p, 0, sizeof *p);
	p->cfg = cfg;
	p->lunix = p->lhttp = -1;
	for (int c = 0; c < MAX_CONN; c++)
		p->conn[c].in = p->conn[c].out = -1;
	stdio = !cfg->listen_unix && cfg->listen_http < 0;
	if (cfg->listen_unix && (p->lunix = listen_unix(cfg->listen_unix)) < 0) {
		msg_fatal_sys("unable to listen on %s", cfg->listen_unix);
		if (errno == EADDRINUSE)
			msg_hint("remove the stale socket, or use a fresh path");
		return 2;
	}
	if (cfg->listen_http >= 0) {
		if ((p->lhttp = listen_loopback(cfg->listen_http, &p->http_port)) < 0) {
			msg_fatal_sys("unable to listen on 127.0.0.1:%d", cfg->listen_http);
			if (p->lunix >= 0)
				unlink(cfg->listen_unix);
			return 2;
		}
		/* where to connect, for whoever started us (port 0 picks one) */
		printf("http://127.0.0.1:%d/mcp\n", p->http_port);
		fflush(stdout);
	}
	if (cfg->url) {
		static struct http_config hc;
		hc = (struct http_config){ .url = cfg->url, .token = cfg->token,
			.cacert = cfg->cacert, .max_msg = cfg->max_msg };
		if ((p->http = http_up_new(&hc)) == NULL) {
			msg_fatal("unable to set up the HTTP client");
			return 2;
		}
	}
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

	if (stdio) {
		p->conn[0].used = 1;
		p->conn[0].kind = C_STDIO;
		p->conn[0].in = 0;
		p->conn[0].out = 1;
	}

	up_spawn(p);
	for (;;) {
		int n = 0, ui = -1, uo = -1, li = -1, hi = -1;
		int rd[MAX_CONN], wr[MAX_CONN];

		if (got_signal)
			break;
		if (stdio) {
			struct conn *c = &p->conn[0];
			/* stdin closed: finish what is in flight, then leave */
			if (c->eof && conn_pending(p, 0) == 0 && c->wr.len == 0)
				break;
			if (c->out < 0)
				break;
		}
		for (int c = 0; c < MAX_CONN; c++) {
			struct conn *k = &p->conn[c];
			rd[c] = wr[c] = -1;
			if (!k->used || k->kind == C_STDIO)
				continue;
			if (k->kind == C_HTTP && k->closing && k->keep && !k->eof && k->wr.len == 0 && k->out >= 0 &&
			    conn_pending(p, c) == 0) {
				/* answered: ready for the next request on this connection */
				k->started = k->closing = k->got = k->keep = 0;
				k->idle_at = now_ms();
				httpd_in_reset(&k->hin);
				continue;
			}
			if ((k->closing && k->wr.len == 0) || k->out < 0 ||
			    (k->eof && k->kind == C_UNIX && conn_pending(p, c) == 0 && k->wr.len == 0))
				conn_close(p, c);
		}
		if (p->lunix >= 0) {
			pf[n] = (struct pollfd){ .fd = p->lunix, .events = POLLIN };
			li = n++;
		}
		if (p->lhttp >= 0) {
			pf[n] = (struct pollfd){ .fd = p->lhttp, .events = POLLIN };
			hi = n++;
		}
		for (int c = 0; c < MAX_CONN; c++) {
			struct conn *k = &p->conn[c];
			if (!k->used)
				continue;
			if (!k->eof && !k->got && !k->closing) {
				pf[n] = (struct pollfd){ .fd = k->in, .events = POLLIN };
				rd[c] = n++;
			}
			if (k->wr.len && k->out >= 0) {
				pf[n] = (struct pollfd){ .fd = k->out, .events = POLLOUT };
				wr[c] = n++;
			}
		}
		if (p->state == UP_RUNNING && !p->http) {
			pf[n] = (struct pollfd){ .fd = p->out, .events = POLLIN };
			ui = n++;
			if (p->wr.len) {
				pf[n] = (struct pollfd){ .fd = p->in, .events = POLLOUT };
				uo = n++;
			}
		}
		if (p->http) {
			int t = next_timeout(p);
			/* short waits: a signal does not interrupt curl's */
			if (http_up_wait(p->http, pf, n, t > 500 ? 500 : t) < 0) {
				msg_warn("waiting on the upstream failed");
				rc = 2;
				break;
			}
			http_events(p);
		} else if (poll(pf, (nfds_t)n, next_timeout(p)) < 0) {
			if (errno == EINTR)
				continue;
			msg_warn_sys("poll");
			rc = 2;
			break;
		}
		if (ui >= 0 && pf[ui].revents) {
			int r = feed(p, p->out, &p->rd, &p->discard, cfg->max_msg, up_feed_line, -1);
			if (r == FEED_EOF || (r == FEED_ERR && p->state == UP_RUNNING))
				up_gone(p, "closed its output");
		}
		if (uo >= 0 && p->state == UP_RUNNING && pf[uo].revents) {
			if (flush(p->in, &p->wr) < 0)
				up_gone(p, "closed its input");
		}
		if (li >= 0 && (pf[li].revents & POLLIN)) {
			int fd = accept4(p->lunix, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0 && conn_new(p, fd, C_UNIX) < 0)
				msg_warn("too many clients: connection refused");
		}
		if (hi >= 0 && (pf[hi].revents & POLLIN)) {
			int fd = accept4(p->lhttp, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0 && conn_new(p, fd, C_HTTP) < 0)
				msg_warn("too many clients: connection refused");
		}
		for (int c = 0; c < MAX_CONN; c++) {
			struct conn *k = &p->conn[c];
			if (rd[c] >= 0 && k->used && pf[rd[c]].revents) {
				if (k->kind == C_HTTP) {
					http_read(p, c);
				} else if (feed(p, k->in, &k->rd, &k->discard, cfg->max_msg, client_feed_line, c) != FEED_OK) {
					k->eof = 1;
				}
			}
			if (wr[c] >= 0 && k->used && pf[wr[c]].revents) {
				if (flush(k->out, &k->wr) < 0) {
					k->out = -1;	/* the client went away */
					k->eof = 1;
					k->wr.len = 0;
				}
			}
		}
		/* write at once what the reads produced: one poll round less per hop */
		if (p->state == UP_RUNNING && !p->http && p->wr.len && flush(p->in, &p->wr) < 0)
			up_gone(p, "closed its input");
		for (int c = 0; c < MAX_CONN; c++) {
			struct conn *k = &p->conn[c];
			if (k->used && k->wr.len && k->out >= 0 && flush(k->out, &k->wr) < 0) {
				k->out = -1;
				k->eof = 1;
				k->wr.len = 0;
			}
		}
		check_timers(p);
	}
	if (stdio)
		flush(p->conn[0].out, &p->conn[0].wr);
	p->stopping = 1;
	up_kill(p);
	up_close(p);
	for (int c = 0; c < MAX_CONN; c++)
		if (p->conn[c].used && p->conn[c].kind != C_STDIO)
			conn_close(p, c);
	if (p->lunix >= 0) {
		close(p->lunix);
		unlink(cfg->listen_unix);
	}
	if (p->lhttp >= 0)
		close(p->lhttp);
	if (p->http)
		http_up_free(p->http);
	return rc;
}
