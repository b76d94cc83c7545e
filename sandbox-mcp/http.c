#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
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
};

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
	close(k->fd);
	httpd_in_free(&k->h.in);
	buf_free(&k->wr);
	memset(k, 0, sizeof *k);
	k->fd = -1;
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
	if (rpc_parse(body, bn, &tk, &m) == 0 && httpc_meta_check(&k->h, &m, &why) < 0) {
		if (m.kind == RPC_REQUEST)
			rpc_raw(&m, m.id, &id, &idn);
		if (rpc_error(out, id, idn, RPC_HEADER_MISMATCH, why) < 0 ||
		    httpc_json(&k->h, &k->wr, 400, out->p, out->len - 1) < 0)
			httpc_status(&k->h, &k->wr, 400);
		return;
	}
	serve_line(s, body, bn, out);
	if (out->len == 0)
		httpc_status(&k->h, &k->wr, 202);	/* a notification or a response */
	else if (httpc_json(&k->h, &k->wr, 200, out->p, out->len - 1) < 0)
		httpc_status(&k->h, &k->wr, 413);	/* no memory for the answer */
	else if (init)
		add_sid(&k->wr, e->sid);
	buf_free(&k->h.in.rd);
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
		if (c[i].fd < 0)
			continue;
		pf[n] = (struct pollfd){ .fd = c[i].fd };
		if (!c[i].h.got && !c[i].h.closing)
			pf[n].events |= POLLIN;
		if (c[i].wr.len)
			pf[n].events |= POLLOUT;
		at[i] = n++;
		if ((due = httpc_due(&c[i].h, HTTP_IDLE_MS)) && due < t)
			t = due;
	}
	*np = n;
	t -= now;
	return t < 0 ? 0 : (int)t + 1;
}

int
serve_http(struct sbx *s, int lfd, int port, const char *token)
{
	static struct hconn c[HTTP_CONN_MAX];
	struct httpd_endpoint ep = { port, token, SERVE_LINE_MAX };
	struct pollfd pf[HTTP_CONN_MAX + 1];
	struct sigaction sa;
	struct buf out = { 0 };
	int at[HTTP_CONN_MAX], n, t;
	int64_t polled;

	for (int i = 0; i < HTTP_CONN_MAX; i++)
		c[i].fd = -1;
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
	for (int i = 0; i < HTTP_CONN_MAX; i++)
		if (c[i].fd >= 0)
			conn_close(&c[i]);
	buf_free(&out);
	return 0;
}
