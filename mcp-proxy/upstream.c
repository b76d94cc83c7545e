/* upstream: the upstream's life cycle (spawn, failure, back-off) and the handshake. */
#include <errno.h>
#include <fcntl.h>
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
#include "launcher.h"
#include "http_up.h"
#include "mcpmeta.h"
#include "msg.h"
#include "proxy_int.h"
#include "version.h"

static const char DEFAULT_INIT[] = "{\"protocolVersion\":\"" REV_2025_11_25 "\",\"capabilities\":{},"
    "\"clientInfo\":{\"name\":\"mcp-proxy\",\"version\":\"" CORRAL_VERSION "\"}}";

void
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

void
up_kill(struct proxy *p)
{
	if (p->pid > 0) {
		launcher_kill(&p->la, p->pid);	/* its whole group, reaped */
		p->pid = -1;
	}
}

void
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

void
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
	if (p->init_owner) {
		/* it failed on a client's handshake: the next one is ours, so one
		 * client's params cannot keep the upstream down for everyone */
		free(p->init_params);
		p->init_params = dupn(DEFAULT_INIT, sizeof DEFAULT_INIT - 1);
		p->init_paramsn = p->init_params ? sizeof DEFAULT_INIT - 1 : 0;
		p->init_owner = 0;
	}
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

void
up_spawn(struct proxy *p)
{
	pid_t pid;

	if (p->http) {
		p->state = UP_RUNNING;
		p->ready = 0;
		p->last_rx = now_ms();
		if (p->init_params)
			start_handshake(p);
		return;
	}
	if (launcher_spawn(&p->la, &pid, &p->in, &p->out) < 0)
		goto fail;
	p->pid = pid;
	p->malformed = 0;
	fcntl(p->in, F_SETFL, O_NONBLOCK);
	fcntl(p->out, F_SETFL, O_NONBLOCK);
	p->state = UP_RUNNING;
	p->ready = 0;
	p->last_rx = now_ms();
	if (p->init_params)
		start_handshake(p);
	return;
fail:
	msg_warn_sys("unable to start the upstream");
	p->state = UP_RUNNING;	/* so up_fail schedules the retry */
	p->pid = -1;
	up_fail(p, "did not start");
}


/* The handshake with the upstream: server/discover first on an HTTP
 * upstream whose era is not known yet (2026-07-28), else initialize with
 * the first client's parameters (the proxy's own for a client that never
 * initializes). */
void
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
		    "\"io.modelcontextprotocol/protocolVersion\":\"" REV_2026_07_28 "\","
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
void
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
	msg_warn("upstream %s; falling back to initialize (" REV_2025_11_25 ")", why);
	p->era = ERA_LEGACY;
	start_handshake(p);
}

/* The handshake is done: release held requests, answer waiting clients. */
void
up_ready(struct proxy *p)
{
	static const char changed[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n";
	static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

	p->ready = 1;
	p->init_owner = 0;
	p->backoff = p->cfg->backoff_min_ms;	/* only a whole handshake proves it works */
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

/* server/discover from a client, answered from the proxy's view of the
 * upstream: both revisions (the proxy speaks 2025-11-25 to clients that
 * initialize and 2026-07-28 to those that do not), the upstream's
 * capabilities (tools always, with listChanged: the proxy sends it after a
 * restart), and the proxy as the server. The upstream's instructions are
 * left out: free text that may name tools the allowlist hides. */
void
discover_answer(struct proxy *p, int c, const char *cid, size_t cidn)
{
	struct buf b = { 0 };

	if (buf_adds(&b, "{\"supportedVersions\":[\"" REV_2026_07_28 "\",\"" REV_2025_11_25 "\"],"
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
void
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

/* The answer to server/discover: a 2026-07-28 upstream, or a fallback. */
void
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
			if (m->t[k].type == JSMN_STRING && json_eq(m->js, &m->t[k], REV_2026_07_28))
				ok = 1;
	if (!ok) {
		probe_failed(p, "does not list " REV_2026_07_28 " in server/discover");
		return;
	}
	keep_caps(p, m, m->result);
	/* what a client that initializes gets: the upstream as discovered */
	si = json_pointer(m->js, m->t, m->n, m->result, "/_meta/io.modelcontextprotocol~1serverInfo");
	if (si >= 0 && m->t[si].type == JSMN_OBJECT)
		rpc_raw(m, si, &s, &n);
	else
		s = "{\"name\":\"mcp-proxy\",\"version\":\"" CORRAL_VERSION "\"}", n = strlen(s);
	if (!p->caps || buf_adds(&b, "{\"protocolVersion\":\"" REV_2025_11_25 "\",\"capabilities\":") < 0 ||
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
	if (p->era != ERA_MODERN)
		msg_warn("upstream speaks " REV_2026_07_28 " (server/discover)");
	p->era = ERA_MODERN;
	http_up_set_modern(p->http, 1);
	p->expired_once = 0;
	up_ready(p);
}

/* The stdio upstream closed a pipe: it is usually exiting; give it 200 ms
 * to say how, so the log names the status rather than the pipe. */
void
up_gone(struct proxy *p, const char *pipe_why)
{
	int st;
	char why[256];
	pid_t w = 0;

	for (int k = 0; p->pid > 0 && k < 40 && w == 0; k++) {
		w = launcher_poll(&p->la, p->pid, &st);
		if (w == 0)
			nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	if (p->pid > 0 && w == 1) {
		p->pid = -1;
		if (WIFEXITED(st) && (WEXITSTATUS(st) == 127 || WEXITSTATUS(st) == 126))
			/* the exec failed: name the command (only argv[0]: arguments may be secret) */
			snprintf(why, sizeof why, "exited with status %d (%.120s: %s)", WEXITSTATUS(st),
			    p->cfg->up_argv[0], WEXITSTATUS(st) == 127 ? "command not found" : "not executable");
		else if (WIFEXITED(st))
			snprintf(why, sizeof why, "exited with status %d", WEXITSTATUS(st));
		else
			snprintf(why, sizeof why, "was killed by signal %d", WTERMSIG(st));
	} else {
		snprintf(why, sizeof why, "%s", pipe_why);
	}
	up_fail(p, why);
}

/* What the HTTP upstream reported while curl ran. */
void
http_events(struct proxy *p)
{
	struct http_ev ev;
	struct pend *e;

	while (http_up_next(p->http, &ev)) {
		e = ev.uid ? pend_by_uid(p, ev.uid) : NULL;
		switch (ev.kind) {
		case HEV_MSG:
			p->via_uid = ev.uid;
			if (p->state == UP_RUNNING)
				up_line(p, ev.data, ev.n);
			p->via_uid = 0;
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
			else if (e && !e->held && ev.resumable && e->resumes < MAX_RESUMES &&
			    http_up_resume(p->http, e->uid, ev.last_id, ev.retry) == 0)
				e->resumes++;	/* SSE reconnection: GET, Last-Event-ID */
			else if (e && !e->held)
				pend_fail(p, e, RPC_UPSTREAM_DOWN, "upstream ended the stream without an answer",
				    "unavailable");
			break;
		}
		free(ev.data);
	}
}
