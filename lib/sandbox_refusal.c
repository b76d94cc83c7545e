/* sandbox_refusal: the broker's refusals, written as lib/refusal.h records
 * to the descriptor of confine --refusals (sb_policy.refusals_fd), which
 * the broker alone keeps (sb_apply closes it before the program runs).
 *
 * A refusal site calls sb_refused or sb_refused_ip once, with the errno it
 * answers and a word for why; the thread's request (sb_refusal_serving)
 * says which call and which process. The descriptor is non-blocking and
 * each record is one write() of at most REFUSAL_LINE_MAX bytes (under
 * PIPE_BUF: records of two threads never interleave). A pipe that is
 * nearly full takes no more records: they are dropped and counted, and the
 * count is written, as a "dropped" record, into the room kept back for it
 * (each time it reaches a power of two), so a reader that fell behind
 * still learns of them and the broker never waits. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "clock.h"
#include "ipaddr.h"
#include "refusal.h"
#include "sandbox_int.h"

#ifndef F_GETPIPE_SZ
#define F_GETPIPE_SZ 1032
#endif

enum { RESERVE = 8192 };	/* kept for "dropped" records */

static int rfd = -1;
static unsigned long long dropped;
static __thread const struct seccomp_notif *serving;

void
sb_refusal_init(int fd)
{
	int fl;

	if (rfd != fd)	/* unchanged (none): no write, no page fault */
		rfd = fd;
	if (fd >= 0 && (fl = fcntl(fd, F_GETFL)) >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void
sb_refusal_serving(const struct seccomp_notif *req)
{
	serving = req;
}

static void
put(const char *line, size_t n)
{
	struct refusal d;
	char buf[64];
	unsigned long long k;
	int used, cap, w;

	/* room for the record beyond the reserve (not a pipe: just write) */
	cap = fcntl(rfd, F_GETPIPE_SZ);
	if (cap <= 0 || ioctl(rfd, FIONREAD, &used) != 0 || (size_t)used + n + RESERVE <= (size_t)cap)
		if (write(rfd, line, n) == (ssize_t)n)
			return;
	k = __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
	if (k & (k - 1))
		return;
	memset(&d, 0, sizeof d);
	d.dropped = k;
	d.when_ms = clock_ms(CLOCK_REALTIME);
	if ((w = refusal_format(&d, buf, sizeof buf)) > 0)
		(void)!write(rfd, buf, (size_t)w);
}

static const char *
kind(long nr)
{
	switch (nr) {
	case __NR_connect: return "connect";
	case __NR_bind: return "bind";
	case __NR_sendto: return "sendto";
	case __NR_sendmsg: return "sendmsg";
	case __NR_sendmmsg: return "sendmmsg";
	case __NR_listen: return "listen";
	case __NR_openat: return "open";
	case __NR_unlinkat: return "unlink";
	case __NR_ioctl: return "ioctl";
#ifdef __NR_open
	case __NR_open: return "open";
	case __NR_unlink: return "unlink";
#endif
	default: return "call";
	}
}

/* The caller's executable and name, read while it waits for our answer. */
static void
who(struct refusal *r, int pid)
{
	char path[48], buf[REFUSAL_RAW_EXE + 1];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/exe", pid);
	n = readlink(path, buf, sizeof buf);
	if (n > 0) {
		if (n > REFUSAL_RAW_EXE)
			n = REFUSAL_RAW_EXE;	/* cut: the record stays bounded */
		refusal_escape(buf, (size_t)n, r->exe, sizeof r->exe);
	}
	snprintf(path, sizeof path, "/proc/%d/comm", pid);
	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, 16);
		close(fd);
		while (n > 0 && buf[n - 1] == '\n')
			n--;
		if (n > 0)
			refusal_escape(buf, (size_t)n, r->comm, sizeof r->comm);
	}
}

static void
emit(struct refusal *r, const char *why)
{
	char line[REFUSAL_LINE_MAX + 1];
	int n;

	r->when_ms = clock_ms(CLOCK_REALTIME);
	snprintf(r->why, sizeof r->why, "%s", why);
	if (serving) {
		snprintf(r->kind, sizeof r->kind, "%s", kind((long)serving->data.nr));
		r->pid = (long)serving->pid;
		who(r, (int)serving->pid);
	} else
		snprintf(r->kind, sizeof r->kind, "call");
	if ((n = refusal_format(r, line, sizeof line)) > 0)
		put(line, (size_t)n);
}

int
sb_refused_ip(int err, const char *why, const struct ipdest *d)
{
	struct refusal r;
	char a[64];

	if (rfd < 0)
		return err;
	memset(&r, 0, sizeof r);
	ip_format(d, a, sizeof a);
	snprintf(r.dest, sizeof r.dest, d->family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
	    (unsigned)d->port);
	emit(&r, why);
	return err;
}

int
sb_refused(int err, const char *why, const void *sa, size_t len)
{
	const struct sockaddr_un *su = sa;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	struct refusal r;
	struct ipdest d;
	sa_family_t fam = AF_UNSPEC;
	size_t n;

	if (rfd < 0)
		return err;
	if (len >= sizeof fam)
		memcpy(&fam, sa, sizeof fam);
	if ((fam == AF_INET || fam == AF_INET6) && ip_classify(sa, len, &d) == 0)
		return sb_refused_ip(err, why, &d);
	memset(&r, 0, sizeof r);
	if (fam == AF_UNIX && len > off) {
		n = len - off;
		if (n > sizeof su->sun_path)
			n = sizeof su->sun_path;
		if (su->sun_path[0] == '\0') {
			memcpy(r.dest, "unix:@", 6);
			refusal_escape(su->sun_path + 1, n - 1, r.dest + 6, sizeof r.dest - 6);
		} else {
			n = strnlen(su->sun_path, n);
			memcpy(r.dest, "unix:", 5);
			refusal_escape(su->sun_path, n, r.dest + 5, sizeof r.dest - 5);
		}
	} else
		snprintf(r.dest, sizeof r.dest, "family:%u", (unsigned)fam);
	emit(&r, why);
	return err;
}

int
sb_refused_path(int err, const char *why, const char *dir, const char *name)
{
	struct refusal r;
	size_t dl = strlen(dir), nl = strlen(name);

	if (rfd < 0)
		return err;
	memset(&r, 0, sizeof r);
	memcpy(r.dest, "path:", 5);
	dl = refusal_escape(dir, dl, r.dest + 5, sizeof r.dest - 5);
	refusal_escape(name, nl > REFUSAL_RAW_DEST ? REFUSAL_RAW_DEST : nl, r.dest + 5 + dl, sizeof r.dest - 5 - dl);
	emit(&r, why);
	return err;
}
