#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fdio.h"
#include "http.h"
#include "httpconn.h"
#include "mcpmeta.h"
#include "num.h"
#include "rnd.h"
#include "serve.h"

struct hconn {
	int fd;			/* -1: a free slot */
	struct httpc h;
	struct buf wr;
	uint64_t serial;	/* which connection has the slot */
	int busy;		/* a worker answers its request */
};

/* Each tools/call runs in a worker process of its own, so one client's
 * slow call (a command, a fetch that stalls) holds up no other client's:
 * the worker writes a struct wans then the answer's line on its pipe and
 * ends; the loop answers the connection at the pipe's end. At most
 * max_concurrent_calls at once; over it a call is refused. */
struct hwork {
	pid_t pid;		/* 0: a free slot */
	int fd;			/* the pipe's read end */
	int conn;		/* the connection waiting for it (c[conn] while serial matches) */
	uint64_t serial;
	char sid[33];		/* the MCP session it runs for ("" none) */
	char cur[SBX_ID_LEN + 1];	/* that session's current session when it began */
	struct buf rd;
	int at;			/* its place in the poll set */
};
struct wans {
	char cur[SBX_ID_LEN + 1];	/* the current session when it ended */
	char proven, cfg_seen;		/* what the call learnt, for the next ones */
};
static struct hwork wk[HTTP_WORKERS_MAX];
static struct hconn conns[HTTP_CONN_MAX];
static int listen_fd = -1;
static char *listen_token;	/* main's; a worker wipes its copy */

/* In a worker: none of the listener's descriptors (a command it starts
 * gets none either way: all are O_CLOEXEC), nor the listen token. */
static void
http_close_fds(void)
{
	close(listen_fd);
	if (listen_token)
		explicit_bzero(listen_token, strlen(listen_token));	/* no call needs it */
	for (int i = 0; i < HTTP_CONN_MAX; i++)
		if (conns[i].fd >= 0)
			close(conns[i].fd);
}

static volatile sig_atomic_t stop;

/* MCP sessions (Mcp-Session-Id): each HTTP client's current sandbox
 * session, as each stdio client has its own. The least recently used
 * gives way to a new one; an id not (or no longer) known is answered 404,
 * and the client initializes again. */
enum { HSESS_MAX = 64 };
struct hsess {
	char sid[33];
	char cur[SBX_ID_LEN + 1];
	int64_t used;
};
static struct hsess hs[HSESS_MAX];

static void
on_signal(int sig)
{
	stop = sig;
}

int
http_listen_arg(const char *arg, int *port, char *err, size_t errn)
{
	const char *c = strrchr(arg, ':');
	size_t hl = c ? (size_t)(c - arg) : 0;

	if (c == NULL)
		return snprintf(err, errn, "--listen %s: not ADDR:PORT", arg), -1;
	if (!((hl == 9 && strncmp(arg, "127.0.0.1", 9) == 0) || (hl == 9 && strncmp(arg, "localhost", 9) == 0)))
		return snprintf(err, errn, "--listen %s: only 127.0.0.1 (loopback) is served", arg), -1;
	if (num_parse_int(c + 1, 0, 65535, port) < 0)
		return snprintf(err, errn, "--listen %s: invalid port", arg), -1;
	return 0;
}

static void
conn_close(struct hconn *k)
{
	uint64_t serial = k->serial;

	close(k->fd);
	httpd_in_free(&k->h.in);
	buf_free(&k->wr);
	memset(k, 0, sizeof *k);
	k->fd = -1;
	k->serial = serial + 1;	/* a worker's answer for the old one is dropped */
}

/* The request head's Mcp-Session-Id into out ("" when absent). */
static void
req_sid(const struct hconn *k, char *out, size_t n)
{
	const char *p = k->h.in.rd.p, *end = p + (k->h.in.req ? k->h.in.req->head_len : 0);
	static const char name[] = "mcp-session-id:";

	out[0] = '\0';
	while (p && p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t l = e ? (size_t)(e - p) : (size_t)(end - p);
		if (l > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
			const char *v = p + sizeof name - 1;
			size_t vl = l - (sizeof name - 1);
			while (vl && (*v == ' ' || *v == '\t'))
				v++, vl--;
			while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
				vl--;
			snprintf(out, n, "%.*s", (int)(vl < n ? vl : n - 1), v);
			return;
		}
		p = e ? e + 1 : end;
	}
}

static struct hsess *
hs_find(const char *sid)
{
	for (int i = 0; i < HSESS_MAX; i++)
		if (hs[i].sid[0] && strcmp(hs[i].sid, sid) == 0)
			return &hs[i];
	return NULL;
}

static struct hsess *
hs_new(void)
{
	struct hsess *e = &hs[0];

	for (int i = 1; i < HSESS_MAX; i++)
		if (hs[i].used < e->used)
			e = &hs[i];
	memset(e, 0, sizeof *e);
	rnd_hex(e->sid, 16);
	return e;
}

/* The answer's head gains "Mcp-Session-Id: sid" (before its blank line). */
static void
add_sid(struct buf *wr, const char *sid)
{
	char *p = wr->p ? strstr(wr->p, "\r\n\r\n") : NULL;
	struct buf b = { 0 };

	if (p == NULL)
		return;
	if (buf_add(&b, wr->p, (size_t)(p - wr->p) + 2) < 0 || buf_adds(&b, "Mcp-Session-Id: ") < 0 ||
	    buf_adds(&b, sid) < 0 || buf_add(&b, p, wr->len - (size_t)(p - wr->p)) < 0) {
		buf_free(&b);
		return;
	}
	buf_free(wr);
	*wr = b;
}

/* The answer (a JSON-RPC line in out, or none: 202) queued on k; init:
 * the MCP session an initialize began. */
static void
reply(struct hconn *k, struct buf *out, const struct hsess *init)
{
	if (out->len == 0)
		httpc_status(&k->h, &k->wr, 202);	/* a notification or a response */
	else if (httpc_json(&k->h, &k->wr, 200, out->p, out->len - 1) < 0)
		httpc_status(&k->h, &k->wr, 413);	/* no memory for the answer */
	else if (init)
		add_sid(&k->wr, init->sid);
	buf_free(&k->h.in.rd);
}

static void
refuse(struct hconn *k, const struct rpc_msg *m, struct buf *out, const char *why)
{
	const char *id;
	size_t idn;

	rpc_raw(m, m->id, &id, &idn);
	out->len = 0;
	if (rpc_error(out, id, idn, SBX_RPC_BUSY, why) < 0)
		out->len = 0;
	reply(k, out, NULL);
}

/* In the worker: the call, its answer on fd, then the end. */
static void __attribute__((noreturn))
worker(struct sbx *s, const char *cur, const char *body, size_t bn, int fd)
{
	static char wcur[SBX_ID_LEN + 1];
	struct wans h;
	struct buf out = { 0 };

	snprintf(wcur, sizeof wcur, "%s", cur);
	s->cur = wcur;
	/* the store's lock on a descriptor of its own: flock is per open file,
	 * and the one inherited is every worker's */
	close(s->lockfd);
	if ((s->lockfd = openat(s->storefd, ".lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
		_exit(1);	/* answered as a worker that ended without an answer */
	serve_line(s, body, bn, &out);
	memset(&h, 0, sizeof h);
	memcpy(h.cur, wcur, sizeof h.cur);
	h.proven = (char)s->proven;
	h.cfg_seen = (char)s->cfg_seen;
	if (fd_write_all(fd, &h, sizeof h) < 0 || (out.len && fd_write_all(fd, out.p, out.len) < 0))
		_exit(1);
	_exit(0);
}

/* A tools/call: to a worker, or refused over the bound. */
static void
dispatch(struct sbx *s, struct hconn *k, struct hsess *e, const char *body, size_t bn,
    const struct rpc_msg *m, struct buf *out)
{
	struct config cf;
	struct hwork *w = NULL;
	char why[SBX_ERR_MAX];
	int p[2], n = 0;
	pid_t parent = getpid(), pid;

	/* the bound as the file says now (a broken file: the last one read;
	 * the call itself then says what is wrong) */
	if (config_load(s->cfgpath, s->home[0] ? s->home : NULL, &cf, why, sizeof why) == 0) {
		s->cfg.max_concurrent_calls = cf.max_concurrent_calls;
		config_free(&cf);
	}
	for (int i = 0; i < HTTP_WORKERS_MAX; i++) {
		if (wk[i].pid)
			n++;
		else if (w == NULL)
			w = &wk[i];
	}
	if (w == NULL || n >= s->cfg.max_concurrent_calls) {
		snprintf(why, sizeof why, "sandbox-mcp: %d tool calls are running, max_concurrent_calls: refused; call again when one has answered", n);
		refuse(k, m, out, why);
		return;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, sizeof why, "sandbox-mcp: unable to start the call: %s", strerror(errno));
		refuse(k, m, out, why);
		return;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, sizeof why, "sandbox-mcp: unable to start the call: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		refuse(k, m, out, why);
		return;
	}
	if (pid == 0) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		/* never outlives the server (keeper, in turn, ends the command's
		 * tree when its worker goes); the subreaper of what it starts */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
			_exit(1);
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		close(p[0]);
		for (int i = 0; i < HTTP_WORKERS_MAX; i++)
			if (wk[i].pid)
				close(wk[i].fd);
		http_close_fds();
		worker(s, e ? e->cur : "", body, bn, p[1]);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	memset(w, 0, sizeof *w);
	w->pid = pid;
	w->fd = p[0];
	w->conn = (int)(k - conns);
	w->serial = k->serial;
	if (e) {
		snprintf(w->sid, sizeof w->sid, "%s", e->sid);
		snprintf(w->cur, sizeof w->cur, "%s", e->cur);
	}
	k->busy = 1;
}

/* Worker w's pipe has ended: its answer to its connection. */
static void
work_done(struct sbx *s, struct hwork *w, struct buf *out)
{
	struct wans h;
	struct hsess *e;
	struct hconn *k = &conns[w->conn];
	int st = 0;

	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	close(w->fd);
	out->len = 0;
	if (w->rd.len > sizeof h) {
		memcpy(&h, w->rd.p, sizeof h);
		h.cur[SBX_ID_LEN] = '\0';
		s->proven |= h.proven;
		s->cfg_seen |= h.cfg_seen;
		/* what the call made current (create_session, session_switch...),
		 * for its MCP session if it still has that */
		if (w->sid[0] && strcmp(h.cur, w->cur) != 0 && (e = hs_find(w->sid)) != NULL)
			memcpy(e->cur, h.cur, sizeof e->cur);
		buf_add(out, w->rd.p + sizeof h, w->rd.len - sizeof h);
	}
	if (k->fd >= 0 && k->serial == w->serial && k->busy) {
		k->busy = 0;
		if (out->len == 0) {
			/* a worker that ended without an answer: killed, out of memory */
			static struct rpc_toks tk;
			struct rpc_msg m;
			const char *body, *id = NULL;
			size_t bn, idn = 0;
			char why[128];
			body = httpd_in_body(&k->h.in, &bn);
			snprintf(why, sizeof why, "sandbox-mcp: the call ended without an answer (%s %d)",
			    WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			if (rpc_parse(body, bn, &tk, &m) == 0)
				rpc_raw(&m, m.id, &id, &idn);
			rpc_error(out, id, idn, RPC_INTERNAL_ERROR, why);
		}
		reply(k, out, NULL);
	}
	buf_free(&w->rd);
	memset(w, 0, sizeof *w);
}

static void
work_read(struct sbx *s, struct hwork *w, struct buf *out)
{
	char chunk[65536];
	ssize_t n = read(w->fd, chunk, sizeof chunk);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0 && w->rd.len <= (size_t)SERVE_LINE_MAX * 2 && buf_add(&w->rd, chunk, (size_t)n) == 0)
		return;
	if (n > 0)
		kill(w->pid, SIGKILL);	/* no memory for it, or far over any answer */
	work_done(s, w, out);
}

/* What the server started and lost: an orphan of a killed worker is ours
 * (the subreaper's) to reap; a worker is reaped at its pipe's end. */
static void
reap_orphans(void)
{
	for (;;) {
		siginfo_t si;
		int worker = 0;
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
			return;
		for (int i = 0; i < HTTP_WORKERS_MAX; i++)
			if (wk[i].pid == si.si_pid)
				worker = 1;
		if (worker)
			return;
		waitpid(si.si_pid, NULL, WNOHANG);
	}
}

/* A whole request: the headers against the body, then the message. */
static void
answer(struct sbx *s, struct hconn *k, struct buf *out)
{
	static struct rpc_toks tk;
	static char none[SBX_ID_LEN + 1];
	struct rpc_msg m;
	struct hsess *e = NULL;
	const char *body, *why, *id = NULL;
	char sid[64];
	size_t bn, idn = 0;
	int init;

	body = httpd_in_body(&k->h.in, &bn);
	out->len = 0;
	req_sid(k, sid, sizeof sid);
	init = rpc_parse(body, bn, &tk, &m) == 0 && m.kind == RPC_REQUEST && rpc_is(&m, "initialize");
	if (init)
		e = hs_new();
	else if (sid[0] && (e = hs_find(sid)) == NULL) {
		httpc_status(&k->h, &k->wr, 404);	/* unknown session: initialize again */
		return;
	}
	if (e)
		e->used = clock_ms(CLOCK_MONOTONIC);
	none[0] = '\0';
	s->cur = e ? e->cur : none;	/* no session id: no current session */
	if (rpc_parse(body, bn, &tk, &m) < 0) {
		serve_line(s, body, bn, out);	/* the parse error's answer */
		reply(k, out, NULL);
		return;
	}
	if (httpc_meta_check(&k->h, &m, &why) < 0) {
		if (m.kind == RPC_REQUEST)
			rpc_raw(&m, m.id, &id, &idn);
		if (rpc_error(out, id, idn, RPC_HEADER_MISMATCH, why) < 0 ||
		    httpc_json(&k->h, &k->wr, 400, out->p, out->len - 1) < 0)
			httpc_status(&k->h, &k->wr, 400);
		return;
	}
	if (m.kind == RPC_REQUEST && rpc_is(&m, "tools/call")) {
		dispatch(s, k, e, body, bn, &m, out);
		return;
	}
	serve_line(s, body, bn, out);
	reply(k, out, init ? e : NULL);
}

static void
conn_read(struct sbx *s, struct hconn *k, const struct httpd_endpoint *ep, struct buf *out)
{
	char chunk[65536];
	ssize_t n = read(k->fd, chunk, sizeof chunk);
	int st;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		conn_close(k);
		return;
	}
	st = httpc_feed(&k->h, chunk, (size_t)n, ep, clock_ms(CLOCK_MONOTONIC));
	if (st == HTTPD_READY)
		answer(s, k, out);
	else if (st != HTTPD_MORE)
		httpc_status(&k->h, &k->wr, st);
}

static void
conn_write(struct hconn *k)
{
	ssize_t n = send(k->fd, k->wr.p, k->wr.len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		conn_close(k);
		return;
	}
	buf_consume(&k->wr, (size_t)n);
	/* answered: the next request on a kept-alive connection, or close */
	if (k->wr.len == 0 && k->h.closing && !httpc_reuse(&k->h, clock_ms(CLOCK_MONOTONIC)))
		conn_close(k);
}

static void
conn_accept(int lfd, struct hconn *c)
{
	struct httpc_oldest o = { 0 };
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), i, free_at = -1;

	if (fd < 0)
		return;
	for (i = 0; i < HTTP_CONN_MAX; i++)
		if (c[i].fd >= 0)
			httpc_oldest_add(&o, &c[i].h, i);
	if ((i = httpc_evict(&o)) >= 0)
		conn_close(&c[i]);	/* tokenless ones give way to a new one */
	for (i = 0; i < HTTP_CONN_MAX && free_at < 0; i++)
		if (c[i].fd < 0)
			free_at = i;
	if (free_at < 0) {
		close(fd);
		return;
	}
	c[free_at].fd = fd;
	httpc_init(&c[free_at].h, clock_ms(CLOCK_MONOTONIC));
}

/* The poll set: the listener first, then each connection (at[i]: where
 * connection i sits, -1 not in it). Returns the timeout. */
static int
build(int lfd, struct hconn *c, struct pollfd *pf, int *np, int *at)
{
	int64_t now = clock_ms(CLOCK_MONOTONIC), t = now + 60000;
	int n = 0;

	pf[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	for (int i = 0; i < HTTP_CONN_MAX; i++) {
		int64_t due;
		at[i] = -1;
		if (c[i].fd < 0 || c[i].busy)
			continue;	/* busy: nothing to read or write until its worker ends */
		pf[n] = (struct pollfd){ .fd = c[i].fd };
		if (!c[i].h.got && !c[i].h.closing)
			pf[n].events |= POLLIN;
		if (c[i].wr.len)
			pf[n].events |= POLLOUT;
		at[i] = n++;
		if ((due = httpc_due(&c[i].h, HTTP_IDLE_MS)) && due < t)
			t = due;
	}
	for (int i = 0; i < HTTP_WORKERS_MAX; i++)
		if (wk[i].pid) {
			wk[i].at = n;
			pf[n++] = (struct pollfd){ .fd = wk[i].fd, .events = POLLIN };
		}
	*np = n;
	t -= now;
	return t < 0 ? 0 : (int)t + 1;
}

int
serve_http(struct sbx *s, int lfd, int port, char *token)
{
	struct hconn *c = conns;
	struct httpd_endpoint ep = { port, token, SERVE_LINE_MAX };
	struct pollfd pf[HTTP_CONN_MAX + 1 + HTTP_WORKERS_MAX];
	struct sigaction sa;
	struct buf out = { 0 };
	int at[HTTP_CONN_MAX], n, t;
	int64_t polled;

	for (int i = 0; i < HTTP_CONN_MAX; i++)
		c[i].fd = -1;
	listen_fd = lfd;
	listen_token = token;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (!stop) {
		t = build(lfd, c, pf, &n, at);
		if (poll(pf, (nfds_t)n, t) < 0) {
			if (errno == EINTR)
				continue;
			buf_free(&out);
			return -1;
		}
		polled = clock_ms(CLOCK_MONOTONIC);
		if (pf[0].revents & (POLLERR | POLLNVAL)) {
			buf_free(&out);
			return errno = EIO, -1;
		}
		/* the workers' answers first: their connections are written below */
		for (int i = 0; i < HTTP_WORKERS_MAX; i++)
			if (wk[i].pid && wk[i].at > 0 && (pf[wk[i].at].revents & (POLLIN | POLLHUP | POLLERR)))
				work_read(s, &wk[i], &out);
		reap_orphans();
		for (int i = 0; i < HTTP_CONN_MAX; i++) {
			short ev = at[i] >= 0 ? pf[at[i]].revents : 0;
			if (c[i].fd >= 0 && (ev & (POLLIN | POLLHUP | POLLERR)) && !c[i].h.got && !c[i].h.closing)
				conn_read(s, &c[i], &ep, &out);
			if (c[i].fd >= 0 && c[i].wr.len)
				conn_write(&c[i]);	/* at once: a poll round less */
		}
		/* slow or idle: the slot goes back. Judged at the poll's time: what
		 * arrived while a call ran is read in the next round first */
		for (int i = 0; i < HTTP_CONN_MAX; i++) {
			int64_t due = c[i].fd >= 0 ? httpc_due(&c[i].h, HTTP_IDLE_MS) : 0;
			if (due && polled >= due)
				conn_close(&c[i]);
		}
		if (pf[0].revents & POLLIN)
			conn_accept(lfd, c);
	}
	/* the calls still running end with the server: a worker's keeper ends
	 * its command's tree when the worker goes */
	for (int i = 0; i < HTTP_WORKERS_MAX; i++)
		if (wk[i].pid)
			kill(wk[i].pid, SIGKILL);
	for (int i = 0; i < HTTP_WORKERS_MAX; i++)
		if (wk[i].pid) {
			while (waitpid(wk[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
			close(wk[i].fd);
			buf_free(&wk[i].rd);
			wk[i].pid = 0;
		}
	for (int i = 0; i < HTTP_CONN_MAX; i++)
		if (c[i].fd >= 0)
			conn_close(&c[i]);
	buf_free(&out);
	return 0;
}
