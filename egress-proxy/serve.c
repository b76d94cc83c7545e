/* serve: see serve.h.
 *
 * The proxy resolves a listed name itself and connects only to an address
 * it has checked: not loopback (nor one of this machine's own addresses),
 * link-local or metadata, nor private with --deny-private. When any address
 * the name resolves to is blocked, the request is refused, so a name that
 * rebinds to loopback or metadata fails however it is timed. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auditline.h"
#include "fdio.h"
#include "ipaddr.h"
#include "request.h"
#include "serve.h"

#define IO_TIMEOUT_MS 30000

volatile sig_atomic_t egress_stop;

int
egress_listed(const struct egress *g, const char *host)
{
	for (size_t i = 0; i < g->nallow; i++)
		if (host_match(g->allow[i], host))
			return 0;
	return -1;
}

static void
audit(const struct egress *g, const struct ereq *r, const char *decision, const char *reason,
    unsigned long long up, unsigned long long down)
{
	struct auditline a;

	if (g->audit_fd < 0)
		return;
	al_start(&a);
	al_str(&a, "step", "egress");
	al_str(&a, "host", r->host[0] ? r->host : "-");
	al_int(&a, "port", r->port);
	al_str(&a, "decision", decision);
	al_str(&a, "reason", reason);
	al_int(&a, "bytes_up", (long long)up);
	al_int(&a, "bytes_down", (long long)down);
	(void)al_write(&a, g->audit_fd);	/* O_APPEND: one write */
}

static void
refuse(int c, int code, const char *reason)
{
	char b[512];
	int n = snprintf(b, sizeof b, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	    "Connection: close\r\nContent-Length: %zu\r\n\r\negress-proxy: %s\n", code,
	    code == 403 ? "Forbidden" : code == 400 ? "Bad Request" : "Bad Gateway",
	    strlen(reason) + 14, reason);

	if (n > 0 && (size_t)n < sizeof b)
		(void)fd_write_all(c, b, (size_t)n);
}

/* Resolve and check every address; connect to the first that answers.
 * The socket, or -1 with *why and *code set. */
static int
dial(const struct egress *g, const struct ereq *r, const char **why, int *code)
{
	static char reason[HOST_MAX + 64];
	struct addrinfo hints, *res = NULL, *ai;
	struct ipdest d;
	char port[8], host[HOST_MAX];
	int s = -1;

	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = r->kind == HOST_IP4 || r->kind == HOST_IP6 ? AI_NUMERICHOST : 0;
	snprintf(port, sizeof port, "%u", (unsigned)r->port);
	snprintf(host, sizeof host, "%s", r->host);
	*code = 502;
	if (getaddrinfo(host, port, &hints, &res) != 0 || res == NULL)
		return *why = "the name does not resolve", -1;
	for (ai = res; ai; ai = ai->ai_next) {
		enum ip_class c;
		if (ip_classify(ai->ai_addr, ai->ai_addrlen, &d) != 0)
			continue;
		c = d.cls;
		if ((c == IPC_PUBLIC || c == IPC_PRIVATE) && ip_is_local(&d))
			c = IPC_LOOPBACK;
		if (c == IPC_LOOPBACK || c == IPC_METADATA || c == IPC_LINKLOCAL ||
		    (c == IPC_PRIVATE && g->deny_private)) {
			snprintf(reason, sizeof reason, "%s resolves to a blocked address (%s)",
			    r->host, ip_class_name(c));
			freeaddrinfo(res);
			*code = 403;
			return *why = reason, -1;
		}
	}
	for (ai = res; ai && s < 0; ai = ai->ai_next) {
		s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s >= 0 && connect(s, ai->ai_addr, ai->ai_addrlen) != 0) {
			close(s);
			s = -1;
		}
	}
	freeaddrinfo(res);
	if (s < 0)
		*why = "the upstream does not answer";
	return s;
}

/* Copy both ways until both sides are done; counts into *up, *down. */
static void
relay(int c, int u, unsigned long long *up, unsigned long long *down)
{
	struct pollfd p[2] = { { c, POLLIN, 0 }, { u, POLLIN, 0 } };
	char buf[65536];
	int open_in[2] = { 1, 1 };
	ssize_t n;

	while (open_in[0] || open_in[1]) {
		p[0].events = open_in[0] ? POLLIN : 0;
		p[1].events = open_in[1] ? POLLIN : 0;
		if (egress_stop)
			return;
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int i = 0; i < 2; i++) {
			if (!open_in[i] || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				open_in[i] = 0;
				shutdown(p[1 - i].fd, SHUT_WR);
				if (n < 0)
					return;
				continue;
			}
			if (fd_write_all(p[1 - i].fd, buf, (size_t)n) != 0)
				return;
			*(i == 0 ? up : down) += (unsigned long long)n;
		}
	}
}

void
egress_serve(const struct egress *g, int c)
{
	static char buf[EREQ_MAX_HEAD], out[EREQ_MAX_HEAD + 512];
	struct ereq r;
	const char *why = "";
	size_t len = 0;
	unsigned long long up = 0, down = 0;
	struct pollfd pf = { c, POLLIN, 0 };
	ssize_t n;
	int st, u, code;

	memset(&r, 0, sizeof r);
	for (;;) {
		if (poll(&pf, 1, IO_TIMEOUT_MS) <= 0)
			return;
		n = read(c, buf + len, sizeof buf - len);
		if (n <= 0)
			return;
		len += (size_t)n;
		st = ereq_parse(buf, len, &r, out, sizeof out, &why);
		if (st == 0)
			break;
		if (st < 0) {
			refuse(c, 400, why);
			audit(g, &r, "deny", why, 0, 0);
			return;
		}
	}
	if (egress_listed(g, r.host) != 0) {
		char reason[HOST_MAX + 64];
		snprintf(reason, sizeof reason, "%s is not in the allowlist", r.host);
		refuse(c, 403, reason);
		audit(g, &r, "deny", "not listed", 0, 0);
		return;
	}
	if ((u = dial(g, &r, &why, &code)) < 0) {
		refuse(c, code, why);
		audit(g, &r, "deny", why, 0, 0);
		return;
	}
	if (r.connect) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		if (fd_write_all(c, ok, sizeof ok - 1) != 0)
			goto out;
	} else if (fd_write_all(u, out, r.out_len) != 0)
		goto out;
	/* what followed the head (a body, TLS bytes) goes on as it is */
	if (len > r.head_len) {
		if (fd_write_all(u, buf + r.head_len, len - r.head_len) != 0)
			goto out;
		up += len - r.head_len;
	}
	relay(c, u, &up, &down);
out:
	audit(g, &r, "allow", "listed", up, down);
	close(u);
}
