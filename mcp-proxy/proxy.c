/*
 * proxy: the event loop between downstream clients and one upstream.
 * Every message is parsed and validated before it is forwarded; ids are
 * rewritten both ways so clients can share the upstream. Each round:
 * recycle finished connections, build the poll set, wait, dispatch what
 * is ready, flush, run the timers. The parts are listed in proxy_int.h.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "http_up.h"
#include "listen.h"
#include "msg.h"
#include "narrow.h"
#include "proxy_int.h"

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

int64_t
now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

char *
dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
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
		if (e->held) {
			/* never reached the upstream: not an empty listing, a reason */
			pend_unready(p, e);
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
		int64_t due = http_due(p, &p->conn[c]);
		if (due && now >= due)
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
		int64_t due = http_due(p, &p->conn[c]);
		if (due && due < t)
			t = due;
	}
	t -= now;
	return t < 0 ? 0 : t > 60000 ? 60000 : (int)t + 1;
}

/* Where each descriptor of a round sits in the poll set (-1: not in it). */
struct round {
	struct pollfd pf[MAX_CONN * 2 + 8];
	int n, ui, uo, li, hi;
	int rd[MAX_CONN], wr[MAX_CONN];
	int hup[MAX_CONN];	/* an HTTP client waiting for its answer: gone? */
};

/* Listeners, the HTTP upstream's client, the first spawn. Returns 0, or an
 * exit status after saying why. */
static int
setup(struct proxy *p, const struct proxy_config *cfg)
{
	struct sigaction sa;
	char why[600];

	memset(p, 0, sizeof *p);
	p->cfg = cfg;
	p->lunix = p->lhttp = -1;
	for (int c = 0; c < MAX_CONN; c++)
		p->conn[c].in = p->conn[c].out = -1;
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

	if (launcher_start(&p->la, cfg->url ? NULL : cfg->up_argv, cfg->up_envp, cfg->listen_unix) < 0) {
		msg_fatal_sys("unable to start the upstream's launcher");
		return 2;
	}
	if (narrow(cfg, why, sizeof why) < 0) {
		msg_fatal("unable to narrow itself after set-up: %s", why);
		msg_hint("mcp-proxy needs Landlock and seccomp (Linux 6.7 or later); see mcp-proxy(1)");
		return 2;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!cfg->listen_unix && cfg->listen_http < 0) {
		p->conn[0].used = 1;
		p->conn[0].kind = C_STDIO;
		p->conn[0].in = 0;
		p->conn[0].out = 1;
	}
	up_spawn(p);
	return 0;
}

/* Connections that are done: an answered HTTP request on a kept-alive
 * connection waits for the next one; the others close. */
static void
recycle(struct proxy *p)
{
	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		if (!k->used || k->kind == C_STDIO)
			continue;
		if (k->kind == C_HTTP && !k->eof && k->wr.len == 0 && k->out >= 0 && conn_pending(p, c) == 0 &&
		    httpc_reuse(&k->h, now_ms()))
			continue;
		if ((k->h.closing && k->wr.len == 0) || k->out < 0 ||
		    (k->eof && k->kind == C_UNIX && conn_pending(p, c) == 0 && k->wr.len == 0))
			conn_close(p, c);
	}
}

static void
build(struct proxy *p, struct round *r)
{
	r->n = 0;
	r->ui = r->uo = r->li = r->hi = -1;
	if (p->lunix >= 0) {
		r->pf[r->n] = (struct pollfd){ .fd = p->lunix, .events = POLLIN };
		r->li = r->n++;
	}
	if (p->lhttp >= 0) {
		r->pf[r->n] = (struct pollfd){ .fd = p->lhttp, .events = POLLIN };
		r->hi = r->n++;
	}
	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		r->rd[c] = r->wr[c] = r->hup[c] = -1;
		if (!k->used)
			continue;
		if (!k->eof && !k->h.got && !k->h.closing) {
			r->pf[r->n] = (struct pollfd){ .fd = k->in, .events = POLLIN };
			r->rd[c] = r->n++;
		} else if (k->kind == C_HTTP && k->h.got && !k->h.closing && !k->eof) {
			/* not read while its request is in flight, but a hang-up is
			 * seen: the call is then cancelled upstream and the slot freed */
			r->pf[r->n] = (struct pollfd){ .fd = k->in, .events = POLLRDHUP };
			r->hup[c] = r->n++;
		} else if (k->eof && k->out >= 0 && k->kind != C_HTTP && conn_pending(p, c) > 0) {
			/* input ended, answers still owed: a unix client that only
			 * shut down its writing still wants them, one gone altogether
			 * (POLLHUP) does not; nor does a stdio client once nobody
			 * reads standard output (POLLERR on a pipe, POLLHUP on a
			 * socket). Then its calls are cancelled upstream at once. */
			r->pf[r->n] = (struct pollfd){ .fd = k->kind == C_STDIO ? k->out : k->in, .events = 0 };
			r->hup[c] = r->n++;
		}
		if (k->wr.len && k->out >= 0) {
			r->pf[r->n] = (struct pollfd){ .fd = k->out, .events = POLLOUT };
			r->wr[c] = r->n++;
		}
	}
	if (p->state == UP_RUNNING && !p->http) {
		r->pf[r->n] = (struct pollfd){ .fd = p->out, .events = POLLIN };
		r->ui = r->n++;
		if (p->wr.len) {
			r->pf[r->n] = (struct pollfd){ .fd = p->in, .events = POLLOUT };
			r->uo = r->n++;
		}
	}
}

/* Wait for the round. Returns 0, 1 to start the next round at once (a
 * signal), or -1 on failure. */
static int
wait_round(struct proxy *p, struct round *r)
{
	if (p->http) {
		int t = next_timeout(p);
		/* short waits: a signal does not interrupt curl's */
		if (http_up_wait(p->http, r->pf, r->n, t > 500 ? 500 : t) < 0) {
			msg_warn("waiting on the upstream failed");
			return -1;
		}
		/* curl hands back only POLLIN, POLLPRI and POLLOUT: a hang-up
		 * (POLLHUP, POLLERR, POLLRDHUP) is seen by a poll of our own */
		if (poll(r->pf, (nfds_t)r->n, 0) < 0 && errno != EINTR) {
			msg_warn_sys("poll");
			return -1;
		}
		http_events(p);
		return 0;
	}
	if (poll(r->pf, (nfds_t)r->n, next_timeout(p)) < 0) {
		if (errno == EINTR)
			return 1;
		msg_warn_sys("poll");
		return -1;
	}
	return 0;
}

static void
client_gone(struct conn *k)
{
	k->out = -1;
	k->eof = 1;
	k->wr.len = 0;
}

static void
accept_on(struct proxy *p, int lfd, enum ckind kind)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd >= 0 && kind == C_HTTP)
		http_make_room(p);
	if (fd >= 0 && conn_new(p, fd, kind) < 0)
		msg_warn("too many clients: connection refused");
}

static void
dispatch(struct proxy *p, struct round *r)
{
	struct pollfd *pf = r->pf;

	if (r->ui >= 0 && pf[r->ui].revents) {
		int rc = feed(p, p->out, &p->rd, &p->discard, p->cfg->max_msg, up_feed_line, -1);
		if (rc == FEED_EOF || (rc == FEED_ERR && p->state == UP_RUNNING))
			up_gone(p, "closed its output");
	}
	if (r->uo >= 0 && p->state == UP_RUNNING && pf[r->uo].revents && flush(p->in, &p->wr) < 0)
		up_gone(p, "closed its input");
	if (r->li >= 0 && (pf[r->li].revents & POLLIN))
		accept_on(p, p->lunix, C_UNIX);
	if (r->hi >= 0 && (pf[r->hi].revents & POLLIN))
		accept_on(p, p->lhttp, C_HTTP);
	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		if (r->rd[c] >= 0 && k->used && pf[r->rd[c]].revents) {
			if (k->kind == C_HTTP)
				http_read(p, c);
			else if (feed(p, k->in, &k->rd, &k->discard, p->cfg->max_msg, client_feed_line, c) != FEED_OK)
				k->eof = 1;
			if (k->kind == C_UNIX && k->eof && (pf[r->rd[c]].revents & POLLHUP))
				conn_close(p, c);	/* gone, not half-closed */
		}
		if (r->wr[c] >= 0 && k->used && pf[r->wr[c]].revents && flush(k->out, &k->wr) < 0)
			client_gone(k);
		if (r->hup[c] >= 0 && k->used && (pf[r->hup[c]].revents & (POLLRDHUP | POLLHUP | POLLERR))) {
			if (k->kind != C_STDIO) {
				conn_close(p, c);
			} else {
				conn_cancel(p, c);	/* then the loop ends */
				client_gone(k);
			}
		}
	}
	/* write at once what the reads produced: one poll round less per hop */
	if (p->state == UP_RUNNING && !p->http && p->wr.len && flush(p->in, &p->wr) < 0)
		up_gone(p, "closed its input");
	for (int c = 0; c < MAX_CONN; c++) {
		struct conn *k = &p->conn[c];
		if (k->used && k->wr.len && k->out >= 0 && flush(k->out, &k->wr) < 0)
			client_gone(k);
	}
}

static void
teardown(struct proxy *p, int stdio)
{
	if (stdio)
		flush(p->conn[0].out, &p->conn[0].wr);
	p->stopping = 1;
	/* cancellations of a client that went away go out before the end:
	 * written to a stdio upstream, posted (for at most 2 s) to an HTTP one */
	if (p->state == UP_RUNNING && !p->http && p->wr.len)
		flush(p->in, &p->wr);
	for (int64_t end = now_ms() + 2000; p->http && http_up_sending(p->http) && now_ms() < end;)
		if (http_up_wait(p->http, NULL, 0, 50) < 0)
			break;
	up_kill(p);
	up_close(p);
	for (int c = 0; c < MAX_CONN; c++)
		if (p->conn[c].used && p->conn[c].kind != C_STDIO)
			conn_close(p, c);
	if (p->lunix >= 0)
		close(p->lunix);
	if (p->lhttp >= 0)
		close(p->lhttp);
	if (p->http)
		http_up_free(p->http);
	launcher_stop(&p->la);	/* it removes the unix socket */
}

int
proxy_run(const struct proxy_config *cfg)
{
	static struct proxy px;
	static struct round r;
	struct proxy *p = &px;
	int rc, stdio = !cfg->listen_unix && cfg->listen_http < 0;

	if ((rc = setup(p, cfg)) != 0)
		return rc;
	while (!got_signal) {
		if (stdio) {
			struct conn *c = &p->conn[0];
			/* stdin closed: finish what is in flight, then leave */
			if ((c->eof && conn_pending(p, 0) == 0 && c->wr.len == 0) || c->out < 0)
				break;
		}
		recycle(p);
		build(p, &r);
		if ((rc = wait_round(p, &r)) < 0) {
			rc = 2;
			break;
		}
		if (rc > 0) {
			rc = 0;
			continue;
		}
		dispatch(p, &r);
		check_timers(p);
	}
	teardown(p, stdio);
	return rc;
}
