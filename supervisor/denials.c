/* denials: audit records of Landlock refusals, parsed as data (what the
 * kernel prints; a path with odd bytes comes hex-encoded). */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"
#include "denials.h"

enum {
	NETLINK_AUDIT_ = 9,
	AUDIT_GET_ = 1000,
	AUDIT_USER_ = 1005,
	AUDIT_SYSCALL_ = 1300,
	AUDIT_LANDLOCK_ACCESS_ = 1423,
	AUDIT_LANDLOCK_DOMAIN_ = 1424,
	AUDIT_NLGRP_READLOG_ = 1,
	FUTEX_WAIT_ = 0,
};

/* field "key=" in text[0..len): its value (quoted, or hex, or bare) into out. */
static int
field(const char *text, size_t len, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key), i, o = 0;
	const char *p = text, *end = text + len;

	for (;;) {
		p = memmem(p, (size_t)(end - p), key, kl);
		if (p == NULL)
			return -1;
		if ((p == text || p[-1] == ' ') && p + kl < end && p[kl] == '=')
			break;
		p += kl;
	}
	p += kl + 1;
	if (p < end && *p == '"') {
		for (p++; p < end && *p != '"' && o + 1 < n; p++)
			out[o++] = *p;
	} else {
		const char *s = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		/* an unquoted value of even length and all hex is encoded */
		size_t l = (size_t)(p - s);
		int hex = l >= 2 && l % 2 == 0 && strcmp(key, "domain") && strcmp(key, "pid") &&
		    strcmp(key, "dest") && strcmp(key, "ino");
		for (i = 0; hex && i < l; i++)
			hex = strchr("0123456789ABCDEF", s[i]) != NULL;
		if (hex) {
			for (i = 0; i + 1 < l && o + 1 < n; i += 2) {
				char b[3] = { s[i], s[i + 1], 0 };
				out[o++] = (char)strtol(b, NULL, 16);
			}
		} else {
			for (i = 0; i < l && o + 1 < n; i++)
				out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return 0;
}

/* "audit(1796116919.076:28): ..." -> time in ms and serial; the offset of
 * the fields, or -1. */
static long
stamp(const char *text, size_t len, int64_t *ms, uint64_t *serial)
{
	char buf[64];
	unsigned long long sec, milli, ser;
	const char *c = memchr(text, ')', len);

	if (c == NULL || (size_t)(c - text) >= sizeof buf || len < 8 || memcmp(text, "audit(", 6) != 0)
		return -1;
	memcpy(buf, text, (size_t)(c - text));
	buf[c - text] = '\0';
	if (sscanf(buf, "audit(%llu.%llu:%llu", &sec, &milli, &ser) != 3)
		return -1;
	*ms = (int64_t)(sec * 1000 + milli);
	*serial = ser;
	return (long)(c - text) + 2 < (long)len ? (long)(c - text) + 2 : (long)len;
}

void
denials_parse(struct denials *ds, int type, const char *text, size_t len, pid_t chain)
{
	char v[320];
	int64_t ms;
	uint64_t serial;
	long off = stamp(text, len, &ms, &serial);

	if (off < 0)
		return;
	text += off;
	len -= (size_t)off;
	/* Ours is the domain the chain's pid created, or, when confine runs
	 * a broker (--filter-ip, --unix), the one its child created: confine
	 * (the chain's pid, outside the boundary) forks the child that
	 * restricts itself, and first says which pid that is in a record of
	 * its own. The kernel stamps a user record with the sender's pid and
	 * the agent holds no CAP_AUDIT_WRITE, so only the chain's pid can
	 * name the child; the two records may come in either order. */
	if (type == AUDIT_USER_) {
		if (field(text, len, "pid", v, sizeof v) == 0 && atol(v) == (long)chain &&
		    memmem(text, len, "corral-confine-child ", 21) != NULL &&
		    field(text, len, "child", v, sizeof v) == 0 && atol(v) > 0) {
			ds->child = atol(v);
			for (size_t i = 0; i < ds->ncand && !ds->domain[0]; i++)
				if (ds->cand[i].pid == ds->child)
					snprintf(ds->domain, sizeof ds->domain, "%s", ds->cand[i].domain);
		}
		return;
	}
	if (type == AUDIT_LANDLOCK_DOMAIN_) {
		char pid[24];
		if (field(text, len, "status", v, sizeof v) != 0 || strcmp(v, "allocated") != 0 ||
		    field(text, len, "pid", pid, sizeof pid) != 0 ||
		    field(text, len, "domain", v, sizeof v) != 0 || ds->domain[0])
			return;
		if (atol(pid) == (long)chain || (ds->child > 0 && atol(pid) == ds->child))
			snprintf(ds->domain, sizeof ds->domain, "%.23s", v);
		else if (ds->ncand < sizeof ds->cand / sizeof ds->cand[0]) {
			ds->cand[ds->ncand].pid = atol(pid);
			snprintf(ds->cand[ds->ncand++].domain, sizeof ds->cand[0].domain, "%.23s", v);
		}
		return;
	}
	if (type == AUDIT_SYSCALL_) {
		/* the event's process: for the denials of this event */
		char pid[24] = "", exe[160] = "";
		field(text, len, "pid", pid, sizeof pid);
		field(text, len, "exe", exe, sizeof exe);
		for (size_t i = ds->n; i-- > 0 && ds->d[i].serial == serial; ) {
			ds->d[i].pid = (pid_t)atol(pid);
			snprintf(ds->d[i].exe, sizeof ds->d[i].exe, "%s", exe);
		}
		return;
	}
	if (type != AUDIT_LANDLOCK_ACCESS_)
		return;
	if (ds->n == DENIALS_MAX) {
		ds->more++;
		return;
	}
	struct denial *d = &ds->d[ds->n];
	memset(d, 0, sizeof *d);
	if (field(text, len, "domain", d->domain, sizeof d->domain) < 0 ||
	    field(text, len, "blockers", d->blockers, sizeof d->blockers) < 0)
		return;
	d->serial = serial;
	d->when_ms = ms;
	if (field(text, len, "path", d->object, sizeof d->object) < 0 &&
	    field(text, len, "dest", v, sizeof v) == 0)
		snprintf(d->object, sizeof d->object, "port %.16s", v);
	ds->n++;
}

void
denials_filter(struct denials *ds)
{
	size_t k = 0;

	for (size_t i = 0; i < ds->n; i++)
		if (ds->domain[0] && strcmp(ds->d[i].domain, ds->domain) == 0)
			ds->d[k++] = ds->d[i];
	ds->n = k;
	if (!ds->domain[0])
		ds->more = 0;
}

/* AUDIT_GET on fd (a NETLINK_AUDIT socket): 0 when sent. */
static int
audit_send_get(int fd)
{
	struct { struct nlmsghdr h; } req;

	memset(&req, 0, sizeof req);
	req.h.nlmsg_len = sizeof req;
	req.h.nlmsg_type = AUDIT_GET_;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = 1;
	return send(fd, &req, sizeof req, 0) < 0 ? -1 : 0;
}

/* AUDIT_GET, asked: the socket its answer comes on, or -1. */
static int
audit_ask(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT_);

	if (fd < 0)
		return -1;
	if (audit_send_get(fd) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ... and answered: is audit enabled? 1, 0, or -1 (cannot tell). fd is
 * closed. The kernel answers from a thread it makes for the purpose
 * (audit_send_reply): 0.3 to 0.9 ms here, which corral run no longer
 * waits for before it starts the chain (denials_ask). */
static int
audit_answer(int fd)
{
	char buf[512];
	struct pollfd pf;
	int r = -1;

	if (fd < 0)
		return -1;
	pf.fd = fd;
	pf.events = POLLIN;
	while (poll(&pf, 1, 200) == 1) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		if (n < (ssize_t)sizeof *h)
			break;
		if (h->nlmsg_type == NLMSG_ERROR) {
			/* a refusal (EPERM: not root, or outside the first pid
			 * namespace) is all that comes: cannot ask; waiting on
			 * for a status was 200 ms of every run of a user's */
			const struct nlmsgerr *e = (const struct nlmsgerr *)(buf + NLMSG_HDRLEN);
			if (n < (ssize_t)(NLMSG_HDRLEN + sizeof e->error) || e->error != 0)
				break;
			continue;	/* an ack; the status follows */
		}
		if (h->nlmsg_type == AUDIT_GET_ && n >= (ssize_t)(sizeof *h + 8)) {
			uint32_t st[2];
			memcpy(st, buf + NLMSG_HDRLEN, sizeof st);	/* mask, enabled */
			r = st[1] != 0;
		}
		break;
	}
	close(fd);
	return r;
}

static int
audit_enabled(void)
{
	return audit_answer(audit_ask());
}

const char *
denials_unavailable(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = AUDIT_NLGRP_READLOG_ };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT_), ok;

	if (fd < 0)
		return "this kernel has no audit (Landlock denials are not recorded; network refusals still are)";
	ok = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	if (!ok)
		return "reading audit records needs root or CAP_AUDIT_READ (Landlock denials are not recorded; network refusals still are)";
	if (audit_enabled() == 0)
		return "kernel audit is off (Landlock denials are not recorded, network refusals still are; auditctl -e 1 turns it on)";
	return NULL;
}

int
denials_open(struct denials *ds)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = AUDIT_NLGRP_READLOG_ };
	int sz = 8 << 20;

	ds->fd = -1;
	ds->n = ds->more = 0;
	ds->domain[0] = '\0';
	ds->child = 0;
	ds->ncand = 0;
	ds->ask = -1;
	ds->ask_sent = ds->asking = 0;
	ds->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT_);
	if (ds->fd < 0)
		return -1;
	/* records wait here until the chain ends: room for a busy run */
	if (setsockopt(ds->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) < 0)
		(void)setsockopt(ds->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
	if (bind(ds->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(ds->fd);
		ds->fd = -1;
		return -1;
	}
	return 0;
}

/* The kernel makes a thread to answer AUDIT_GET (kthread_run in
 * audit_send_reply), and the send returns only once kthreadd has made it:
 * 0.3-0.65 ms quiet, more under load, which corral's run waited for on
 * the way to keeper's start (denials_open asked). Sent from a thread of
 * ours now, started as corral waits for home-stage create (asked from the
 * go byte on, a short program's end waited for the answer: 0.05-7 ms after
 * keeper's exit in 1 of 10 runs under load): no step of corral's waits on
 * it; denials_collect joins it, then reads the answer. Whether audit is
 * on is a state, not an event of the run, and the multicast socket was
 * bound before the chain started.
 *
 * The thread is a bare clone (x86_64): it only sends, on a stack of 8 KB
 * in the bss, every signal blocked, with a system call of its own (it
 * shares corral's thread area: no errno, no libc state of its own is
 * touched), and ends by the kernel's exit of a thread, which clears
 * ask_tid (CLONE_CHILD_CLEARTID) and wakes its joiner. pthread_create
 * mapped a stack of 140 KB and a guard (mmap, mprotect, the pages it
 * touched faulted in), blocked and restored the signals twice, and
 * pthread_join unmapped it (with corral multi-threaded, a TLB shootdown).
 * Elsewhere, and under ASan (its per-thread state): pthread_create. */
#if CORRAL_ASAN || !defined(__x86_64__)
#define ASK_PTHREAD 1
#else
#define ASK_PTHREAD 0
#endif

#if !ASK_PTHREAD
static char ask_stack[8192] __attribute__((aligned(16)));
static volatile pid_t ask_tid;		/* the thread's, 0 once it has ended */

/* sendto(fd, buf, n, 0, NULL, 0): the result or -errno, errno untouched */
static long
ask_sendto(int fd, const void *buf, size_t n)
{
	long r;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = 0;

	__asm__ volatile ("syscall" : "=a"(r) : "a"((long)SYS_sendto), "D"((long)fd), "S"(buf), "d"(n), "r"(r10),
	    "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return r;
}

static int
ask_main(void *arg)
{
	struct denials *ds = arg;
	struct nlmsghdr req = { .nlmsg_len = sizeof req, .nlmsg_type = AUDIT_GET_, .nlmsg_flags = NLM_F_REQUEST,
	    .nlmsg_seq = 1 };

	ds->ask_sent = ask_sendto(ds->ask, &req, sizeof req) == (long)sizeof req;
	return 0;
}
#else
static void *
ask_thread(void *arg)
{
	struct denials *ds = arg;

	ds->ask_sent = audit_send_get(ds->ask) == 0;
	return NULL;
}
#endif

/* The thread's send returned (or there was none). */
static void
ask_join(struct denials *ds)
{
	if (!ds->asking)
		return;
#if !ASK_PTHREAD
	for (pid_t t; (t = ask_tid) != 0; )
		(void)syscall(SYS_futex, &ask_tid, FUTEX_WAIT_, t, NULL, NULL, 0);
#else
	(void)pthread_join(ds->asker, NULL);
#endif
	ds->asking = 0;
}

int
denials_ask(struct denials *ds)
{
	sigset_t all, old;
	int r;

	if (ds->fd < 0 || ds->ask >= 0)
		return ds->fd < 0 ? -1 : 0;
	if ((ds->ask = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT_)) < 0) {
		denials_close(ds);
		return -1;
	}
	/* no signal of corral's is taken on the thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
#if !ASK_PTHREAD
	ask_tid = 1;	/* until CLONE_PARENT_SETTID sets it */
	r = clone(ask_main, ask_stack + sizeof ask_stack, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
	    CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID, ds, &ask_tid, NULL,
	    &ask_tid) > 0 ? 0 : -1;
	if (r < 0)
		ask_tid = 0;
#else
	r = pthread_create(&ds->asker, NULL, ask_thread, ds);
#endif
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r == 0) {
		ds->asking = 1;
		return 0;
	}
	/* no thread: asked here */
	ds->ask_sent = audit_send_get(ds->ask) == 0;
	return 0;
}

/* A record of our own, queued after everything the chain caused: when it
 * comes back on the multicast socket, every earlier record has too
 * (kauditd sends in queue order). 0 when sent. */
static int
send_marker(char *mark, size_t n)
{
	struct { struct nlmsghdr h; char text[96]; } m;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT_), r;

	if (fd < 0)
		return -1;
	snprintf(mark, n, "corral-denials-sync pid=%d", (int)getpid());
	memset(&m, 0, sizeof m);
	snprintf(m.text, sizeof m.text, "%s", mark);
	m.h.nlmsg_len = NLMSG_LENGTH(strlen(m.text) + 1);
	m.h.nlmsg_type = AUDIT_USER_;
	m.h.nlmsg_flags = NLM_F_REQUEST;
	r = send(fd, &m, m.h.nlmsg_len, 0) < 0 ? -1 : 0;
	close(fd);
	return r;
}

void
denials_collect(struct denials *ds, pid_t chain, int settle_ms)
{
	static char buf[1 << 16];
	struct pollfd pf = { ds->fd, POLLIN, 0 };
	char mark[64];
	int marked, seen = 0, waits = 0;
	ssize_t n;

	/* never asked (a caller that did not): now */
	(void)denials_ask(ds);
	ask_join(ds);
	if (ds->fd >= 0 && ds->ask >= 0) {
		/* audit off: nothing comes, our marker neither; not asked:
		 * cannot tell */
		int on = ds->ask_sent ? audit_answer(ds->ask) : (close(ds->ask), -1);
		ds->ask = -1;
		if (on != 1)
			denials_close(ds);
	}
	if (ds->fd < 0)
		return;
	/* kauditd sends asynchronously: wait for our marker (up to 2 s under
	 * load); where none could be sent, give late records settle_ms */
	marked = send_marker(mark, sizeof mark) == 0;
	for (;;) {
		n = recv(ds->fd, buf, sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			for (struct nlmsghdr *h = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(h, (size_t)n);
			    h = NLMSG_NEXT(h, n)) {
				const char *t = (const char *)NLMSG_DATA(h);
				size_t tl = h->nlmsg_len - NLMSG_HDRLEN;
				if (h->nlmsg_type == AUDIT_USER_ && memmem(t, tl, mark, strlen(mark)))
					seen = 1;
				else
					denials_parse(ds, h->nlmsg_type, t, tl, chain);
			}
			continue;
		}
		/* nothing queued now */
		if (seen || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			break;
		if (!marked) {
			if (settle_ms <= 0 || poll(&pf, 1, settle_ms) <= 0)
				break;
			settle_ms = 0;
			continue;
		}
		if (waits++ >= 100)
			break;
		(void)poll(&pf, 1, 20);
	}
	denials_filter(ds);
}

void
denials_close(struct denials *ds)
{
	/* the thread's send is over before its descriptor is closed (its
	 * number could be another file's by then) */
	ask_join(ds);
	if (ds->fd >= 0)
		close(ds->fd);
	if (ds->fd >= 0 && ds->ask >= 0)
		close(ds->ask);
	ds->fd = ds->ask = -1;
}
