/* sandbox_broker: pathname unix sockets for --unix, and IP destinations
 * (--filter-ip, lib/sandbox_ip.c), without a time-of-check/time-of-use hole.
 *
 * Before Landlock ABI 9 the kernel does not mediate connect() to a pathname
 * socket. With an allowlist, the seccomp filter sends every connect() to
 * this broker, outside the boundary in the process that called sb_apply:
 * it forks, the child restricts itself and execs the program, the parent
 * serves, an ancestor of every sandboxed process (Yama ptrace_scope 1;
 * lib/sandbox_parent.c). The broker never lets the kernel continue the
 * call with the caller's arguments
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE would re-read memory and the fd table
 * the caller controls). Instead it takes the caller's socket with
 * pidfd_getfd() (the same open file), copies the address once, decides on
 * the copy and connects that socket itself:
 *   - AF_UNIX socket, pathname address equal to an allowlisted path: connect
 *     to the socket inode pinned with O_PATH when confine started, through
 *     /proc/self/fd/N, so renaming or symlinking the path later changes
 *     nothing;
 *   - AF_UNIX, anything else: EACCES (abstract: EPERM, as Landlock's scope,
 *     unless scoping is off);
 *   - AF_INET, AF_INET6: decided by lib/sandbox_ip.c (the policy's TCP
 *     ports, and with --filter-ip the address rules), connected by the
 *     broker; refused under no-network;
 *   - AF_NETLINK: connected (the broker keeps no capability but
 *     CAP_SYS_PTRACE, so it can do no more there than the caller);
 *   - any other family: EACCES.
 * Each request is answered by the thread that received it; before a call
 * that may wait on a peer another takes over waiting for the next (leader
 * and followers, below), so a slow TCP connect does not hold up the
 * others. When the last sandboxed process exits, the listener reports
 * POLLHUP and serving ends; the process ends when its child does. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/seccomp.h>

#include "compat.h"
#include "fdio.h"
#include "sandbox.h"
#include "sandbox_int.h"
#include "seccomp_util.h"


#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)	/* Linux 6.6 */
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

struct broker {
	const struct sb_policy *p;
	int abi;
	int pin[SB_MAX_UNIX];		/* O_PATH fds of the allowlisted sockets */
	const char *path[SB_MAX_UNIX];
	size_t n;
	int bdir[SB_MAX_UNIX];		/* the opened directory of each unix_bind */
	size_t nb;
	int scope;
	enum sb_net net;
	struct sb_ipb ip;		/* the IP side (lib/sandbox_ip.c) */
	pid_t child;			/* the process that installs the filter */
	int sock;			/* to it: the listener's number comes here */
	int nfd;			/* the seccomp listener */
	int first_pidfd;		/* the child's first thread's, taken
					   with it, for the first serving thread */
	int sync;			/* SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP set
					   (Linux 6.6): the leader waits in
					   SECCOMP_IOCTL_NOTIF_RECV itself */
};

int
sb_peek(int pid, uint64_t src, void *dst, size_t n)
{
	struct iovec local = { dst, n }, remote = { (void *)(uintptr_t)src, n };

	if (n == 0)
		return 0;
	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* A pidfd of the calling thread (PIDFD_THREAD, Linux 6.9; *thread set),
 * else of its process (its tgid). */
static int
caller_pidfd(int pid, int *thread)
{
	char path[64], *buf, *t;
	size_t len;
	int fd, tgid;

	*thread = 0;
	fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, O_EXCL);
	if (fd >= 0 || errno != EINVAL)
		return *thread = fd >= 0, fd;
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	if (file_read_bounded(AT_FDCWD, path, 65536, &buf, &len) != 0)
		return -1;
	t = strstr(buf, "\nTgid:");
	tgid = t ? atoi(t + 6) : 0;
	free(buf);
	if (tgid <= 0)
		return errno = ESRCH, -1;
	return (int)syscall(SYS_pidfd_open, (pid_t)tgid, 0);
}

int
sb_caller_pidfd(int pid)
{
	int thread;

	/* the caller may be any thread */
	return caller_pidfd(pid, &thread);
}

/* This thread's last caller, by a pidfd of that very thread (PIDFD_THREAD),
 * kept from one request to the next for when the same thread calls again
 * (a program's connects come from one thread, one after another): a pidfd
 * names one task for good. Once the request is known valid (its caller
 * alive, blocked in the call), a live task with the caller's number is the
 * caller; a task that is gone, whose number another has now, gives
 * pidfd_getfd ESRCH, and a new pidfd is opened. A pidfd of a process
 * (older kernels) is never kept: another thread of it could have the
 * number. */
static __thread int last_pid = -1, last_pidfd = -1;

int
sb_caller_fd(int nfd, const struct seccomp_notif *req, int fdnum)
{
	int pidfd, sock, thread, hit;

	for (;;) {
		hit = last_pidfd >= 0 && last_pid == (int)req->pid;
		if (hit) {
			pidfd = last_pidfd;
			thread = 1;
		} else {
			pidfd = caller_pidfd((int)req->pid, &thread);
			if (pidfd < 0)
				return -EACCES;
			if (thread) {
				if (last_pidfd >= 0)
					close(last_pidfd);
				last_pid = (int)req->pid;
				last_pidfd = pidfd;
			}
		}
		/* The pid must still be the caller's. */
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0) {
			if (!thread)
				close(pidfd);
			return -EACCES;
		}
		sock = (int)syscall(SYS_pidfd_getfd, pidfd, fdnum, 0);
		if (sock < 0 && errno == ESRCH && hit) {
			close(last_pidfd);	/* gone: once more, afresh */
			last_pidfd = -1;
			continue;
		}
		if (!thread)
			close(pidfd);
		if (sock < 0)
			return errno == EBADF ? -EBADF : -EACCES;
		return sock;
	}
}

/* connect() of a unix socket to the copied address ss[0..len). */
static int
unix_connect(const struct broker *b, int pid, int sock, const struct sockaddr_storage *ss,
    socklen_t len)
{
	char via[64];
	struct sockaddr_un su;
	size_t i, plen;

	if (ss->ss_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path))
		return -EINVAL;
	memcpy(&su, ss, sizeof su);
	plen = len - offsetof(struct sockaddr_un, sun_path);
	if (su.sun_path[0] == '\0') {
		/* abstract: Landlock's scope would deny it from inside */
		if (!b->scope) {
			sb_broker_blocking();
			return connect(sock, (const struct sockaddr *)ss, len) == 0 ? 0 : -errno;
		}
		return sb_refused(-EPERM, "abstract", ss, len);
	}
	if (plen >= sizeof su.sun_path)
		plen = sizeof su.sun_path - 1;
	su.sun_path[plen] = '\0';
	for (i = 0; i < b->n; i++)
		if (strcmp(su.sun_path, b->path[i]) == 0)
			break;
	if (i == b->n) {
		/* a socket it bound itself (lib/sandbox_unix.c) */
		int r = (b->p->own & SB_OWN_UNIX) ? sb_unix_own_connect(pid, sock, su.sun_path) : 1;
		return r != 1 ? r : sb_refused(-EACCES, "unix-path", ss, len);
	}
	memset(&su, 0, sizeof su);
	su.sun_family = AF_UNIX;
	snprintf(via, sizeof via, "/proc/self/fd/%d", b->pin[i]);
	memcpy(su.sun_path, via, strlen(via) + 1);
	sb_broker_blocking();
	return connect(sock, (struct sockaddr *)&su, sizeof su) == 0 ? 0 : -errno;
}

/* bind() of the caller's unix socket sock to one of unix_bind, made by
 * the broker in the directory it opened: 0 or -errno; 1 not one of them
 * (Landlock decides). */
static int
unix_bind(const struct broker *b, int pid, int sock, socklen_t len, uint64_t src)
{
	struct sockaddr_un su, via;
	size_t i, plen;
	const char *base;

	if (b->nb == 0 || len <= offsetof(struct sockaddr_un, sun_path) || len > sizeof su)
		return 1;
	memset(&su, 0, sizeof su);
	if (sb_peek(pid, src, &su, len) != 0)
		return -EFAULT;
	plen = len - offsetof(struct sockaddr_un, sun_path);
	if (su.sun_family != AF_UNIX || su.sun_path[0] == '\0' || plen >= sizeof su.sun_path)
		return 1;
	su.sun_path[plen] = '\0';
	for (i = 0; i < b->nb; i++)
		if (strcmp(su.sun_path, b->p->unix_bind[i]) == 0)
			break;
	if (i == b->nb)
		return 1;
	base = strrchr(b->p->unix_bind[i], '/') + 1;
	memset(&via, 0, sizeof via);
	via.sun_family = AF_UNIX;
	if ((size_t)snprintf(via.sun_path, sizeof via.sun_path, "/proc/self/fd/%d/%s", b->bdir[i], base) >=
	    sizeof via.sun_path)
		return -ENAMETOOLONG;
	if (bind(sock, (struct sockaddr *)&via, sizeof via) != 0)
		return -errno;
	return sb_unix_bound(sock);
}

/* One notification: 0 answered in resp, 1 to continue unchanged. */
static int
serve(struct broker *b, const struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	struct sockaddr_storage ss;
	socklen_t len = (socklen_t)req->data.args[2];
	int sock, dom, r;
	socklen_t dl = sizeof dom;

	if (sb_own_request(b->p, req))
		return sb_own_serve(b->p, b->nfd, req, resp);
	if (req->data.nr == __NR_connect) {
		if (len > sizeof ss || len < sizeof(sa_family_t))
			return resp->error = -EINVAL, 0;
		memset(&ss, 0, sizeof ss);
		if (sb_peek((int)req->pid, req->data.args[1], &ss, len) != 0)
			return resp->error = -EFAULT, 0;
	}
	sock = sb_caller_fd(b->nfd, req, (int)req->data.args[0]);
	if (sock < 0)
		return resp->error = sock, 0;
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &dl) != 0) {
		resp->error = errno == ENOTSOCK ? -ENOTSOCK : -EACCES;
		close(sock);
		return 0;
	}
	r = 0;
	if (req->data.nr == __NR_bind && (dom == AF_UNIX || !b->p->ipfilter)) {
		/* one of unix_bind: made here; else noted when its own
		 * (lib/sandbox_unix.c), then Landlock decides */
		r = dom == AF_UNIX && (b->p->own & SB_OWN_UNIX) ?
		    unix_bind(b, (int)req->pid, sock, len, req->data.args[1]) : 1;
		if (r == 1 && dom == AF_UNIX && (b->p->own & SB_OWN_UNIX) && (r = sb_unix_bound(sock)) == 0)
			r = 1;
		close(sock);
		if (r != 1)
			return resp->error = r, 0;
		return 1;
	}
	if (req->data.nr != __NR_connect)
		r = sb_ipb_serve(&b->ip, req, b->nfd, sock, dom, resp);
	else if (dom == AF_UNIX)
		resp->error = unix_connect(b, (int)req->pid, sock, &ss, len);
	else if (dom == AF_INET || dom == AF_INET6)
		resp->error = sb_ipb_connect(&b->ip, sock, &ss, len);
	else if (dom == AF_NETLINK && b->net != SB_NET_NONE)
		resp->error = connect(sock, (struct sockaddr *)&ss, len) == 0 ? 0 : -errno;
	else
		resp->error = sb_refused(-EACCES, "family", &ss, len);
	close(sock);
	return r;
}

/* Answer one notification. */
static void
answer(struct broker *b, const struct seccomp_notif *req)
{
	struct seccomp_notif_resp resp;
	int r;

	memset(&resp, 0, sizeof resp);
	resp.id = req->id;
	sb_refusal_serving(req);
	r = serve(b, req, &resp);
	if (r == 2)
		return;	/* answered with the descriptor it installed (SB_OWN_*) */
	if (r == 1) {
		resp.error = 0;
		resp.val = 0;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	}
	(void)ioctl(b->nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* The threads: leader and followers. One thread (the leader) waits for
 * the next request and answers it itself, so no request waits for another
 * thread to be woken and scheduled (a hand-off to a waiting worker cost a
 * cross-CPU wake-up per connect on a quiet machine; a thread per request,
 * its stack mapped and unmapped each time, cost more under load). Before
 * a call that may wait on a peer (a connect, a send: sb_broker_blocking)
 * it makes an idle follower the leader, or starts a thread when none is
 * idle, so a slow connect holds up no other; a request answered without
 * one (a refusal, a bind, a listen) leaves it the leader, with no hand-off
 * at all. When the listener reports the end, every thread that waits
 * returns; one still answering ends with the process. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int leading, idle, done;
	pthread_attr_t at;
} lf = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* The leader's own broker while it answers, until it gives up the turn. */
static __thread struct broker *lf_turn;

static void *serve_lf(void *arg);

void
sb_broker_blocking(void)
{
	struct broker *b = lf_turn;
	pthread_t th;
	int idle;

	/* one call at a time (sb_policy.serial): none can be waiting behind
	 * this one, so it stays the leader, and no thread is started for
	 * what never comes (some 50 us of the proof's egress child) */
	if (b == NULL || b->p->serial)
		return;
	lf_turn = NULL;
	pthread_mutex_lock(&lf.mu);
	lf.leading = 0;
	idle = lf.idle;
	pthread_mutex_unlock(&lf.mu);
	/* after the unlock: the follower woken takes the mutex at once,
	 * where a signal under it had it wait for the mutex and be woken a
	 * second time */
	if (idle > 0)
		pthread_cond_signal(&lf.cv);
	else
		/* none idle: a new one leads; if none can be started, this one
		 * leads again once it has answered */
		(void)pthread_create(&th, &lf.at, serve_lf, b);
}

/* Is serving over: the listener hung up (no caller left) or gone? */
static int
ended(int nfd)
{
	struct pollfd pfd = { .fd = nfd, .events = POLLIN };

	return poll(&pfd, 1, 0) < 0 ? errno != EINTR :
	    (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* As the leader: the next request. 1, or 0 at the end of serving. Since
 * Linux 6.6 (b->sync) a wait in SECCOMP_IOCTL_NOTIF_RECV is woken like a
 * poll, on the caller's CPU, and fails at once (ENOENT) when no caller is
 * left, so the leader waits there, a poll less per request; before, the
 * call waits on a semaphore that the end never wakes: poll first. */
static int
next_request(struct broker *b, struct seccomp_notif *req)
{
	struct pollfd pfd = { .fd = b->nfd, .events = POLLIN };

	for (;;) {
		if (!b->sync) {
			if (poll(&pfd, 1, -1) < 0) {
				if (errno == EINTR)
					continue;
				return 0;
			}
			if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
				return 0;
		}
		memset(req, 0, sizeof *req);
		if (ioctl(b->nfd, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
			/* EINTR; ENOENT: a caller gone before its request was
			 * read, or none left */
			if (b->sync && errno != EINTR && (errno != ENOENT || ended(b->nfd)))
				return 0;
			continue;
		}
		/* What the program makes itself (lib/sandbox_own.c) never
		 * waits on a peer: answered by the leader as it is. */
		if (sb_own_request(b->p, req)) {
			answer(b, req);
			continue;
		}
		return 1;
	}
}

static void *
serve_lf(void *arg)
{
	struct broker *b = arg;
	struct seccomp_notif req;

	for (;;) {
		pthread_mutex_lock(&lf.mu);
		lf.idle++;
		while (lf.leading && !lf.done)
			pthread_cond_wait(&lf.cv, &lf.mu);
		lf.idle--;
		if (lf.done) {
			pthread_mutex_unlock(&lf.mu);
			return NULL;
		}
		lf.leading = 1;
		pthread_mutex_unlock(&lf.mu);
		do {
			if (!next_request(b, &req)) {
				pthread_mutex_lock(&lf.mu);
				lf.done = 1;
				pthread_cond_broadcast(&lf.cv);
				pthread_mutex_unlock(&lf.mu);
				return NULL;
			}
			lf_turn = b;
			answer(b, &req);
		} while (lf_turn != NULL);	/* never waited on a peer: still the leader */
	}
}

/* The serving state as a fresh process has it: this memory may be another
 * broker's after it ended (probe's egress child shares probe's memory, one
 * proof after another in a test), a lock perhaps left held by a kill. No
 * thread of this broker exists yet. */
static void
serving_afresh(void)
{
	pthread_mutex_init(&lf.mu, NULL);
	pthread_cond_init(&lf.cv, NULL);
	lf.leading = lf.idle = lf.done = 0;
	lf_turn = NULL;
	last_pid = last_pidfd = -1;
}

/* Keep only CAP_SYS_PTRACE (to read the callers and take their sockets):
 * what the broker does on a caller's socket it does with no more network
 * privilege than the caller (no privileged port, no raw, no netlink admin). */
int
sb_broker_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[0].permitted &= 1u << CAP_SYS_PTRACE;
	d[0].effective &= 1u << CAP_SYS_PTRACE;
	d[0].inheritable = d[1].inheritable = 0;
	d[1].permitted = d[1].effective = 0;
	return (int)syscall(SYS_capset, &h, d);
}

/* The listener fd number arrives by write(); take the file from confine
 * and acknowledge. */
static int
take_listener(struct broker *b)
{
	int n, pidfd, fd = -1, thread;
	ssize_t r;

	while ((r = read(b->sock, &n, sizeof n)) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof n)
		return -1;
	/* a pidfd of the child's first thread (PIDFD_THREAD, Linux 6.9), the
	 * caller of what it asks before it makes another: kept for the first
	 * serving thread as its last caller (sb_caller_fd), the first
	 * request's pidfd_open and this one's close fewer */
	pidfd = (int)syscall(SYS_pidfd_open, b->child, O_EXCL);
	thread = pidfd >= 0;
	if (pidfd < 0 && errno == EINVAL)
		pidfd = (int)syscall(SYS_pidfd_open, b->child, 0);
	if (pidfd >= 0) {
		fd = (int)syscall(SYS_pidfd_getfd, pidfd, n, 0);
		if (thread && fd >= 0)
			b->first_pidfd = pidfd;
		else
			close(pidfd);
	}
	/* The caller waits for each answer: the kernel then switches to
	 * the broker on the caller's CPU and back, rather than waking one on
	 * another CPU that spins on the listener's lock (Linux 6.6; older
	 * kernels refuse the flag and wake as before). */
	b->sync = fd >= 0 &&
	    ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0;
	if (fd >= 0 && write(b->sock, "k", 1) != 1) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Take the listener (the parent's thread, lib/sandbox_parent.c): its
 * descriptor, or -1 when the child failed before its filter (and says
 * why). */
static int
broker_take(void *arg)
{
	struct broker *b = arg;

	b->nfd = take_listener(b);
	close(b->sock);
	b->sock = -1;
	return b->nfd;
}

/* The serving thread of the parent (lib/sandbox_parent.c): take the
 * listener, then answer each notification until no caller is left. */
static void *
broker_serve(void *arg)
{
	struct broker *b = arg;

	if (b->nfd < 0 && broker_take(b) < 0)
		return NULL;	/* the child failed before its filter and says why */
	if (b->first_pidfd >= 0) {
		last_pid = (int)b->child;
		last_pidfd = b->first_pidfd;
		b->first_pidfd = -1;
	}
	pthread_attr_init(&lf.at);
	pthread_attr_setdetachstate(&lf.at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&lf.at, 256 * 1024);
	return serve_lf(b);	/* this thread returns at the end of serving */
}

int
sb_broker_start(const struct sb_policy *p, struct sb_error *e)
{
	/* static, not in the frame: struct sb_ipb's own[] is 20 KB, of which
	 * only own[0..nown) is ever read, and a frame that size had
	 * -fstack-clash-protection touch each of its pages (and memset all
	 * of it), a page fault each in confine's parent, before the broker's
	 * first call. One broker per process: the parent serves in
	 * sb_parent_run, which never returns. */
	static struct broker b;
	struct stat st;
	sigset_t saved;
	int sv[2], keep[2 * SB_MAX_UNIX + 3], err;
	pid_t pid;
	size_t i;

	memset(&b, 0, offsetof(struct broker, ip));
	memset(&b.child, 0, sizeof b - offsetof(struct broker, child));
	b.p = p;
	b.abi = e->abi;
	b.nfd = b.first_pidfd = -1;
	b.scope = p->scope;
	b.net = p->net;
	sb_ipb_init(&b.ip, p);
	for (i = 0; i < p->nunix; i++) {
		b.path[i] = p->unix_path[i];
		b.pin[i] = openat(AT_FDCWD, p->unix_path[i], O_PATH | O_CLOEXEC);
		if (b.pin[i] < 0 || fstat(b.pin[i], &st) != 0 || !S_ISSOCK(st.st_mode)) {
			err = b.pin[i] < 0 ? errno : ENOTSOCK;
			if (b.pin[i] >= 0)
				close(b.pin[i]);
			while (i-- > 0)
				close(b.pin[i]);
			return sb_fail(e, SB_E_PATH, err, "name an existing unix socket",
			    "--unix %s: %s", p->unix_path[b.n],
			    err == ENOTSOCK ? "not a socket" : strerror(err));
		}
		b.n++;
	}
	for (i = 0; i < p->nunix_bind; i++) {
		/* the directory, opened now and used by descriptor: a name put
		 * in its place later is never followed */
		char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
		const char *sl = strrchr(p->unix_bind[i], '/');
		size_t dl = sl ? (size_t)(sl - p->unix_bind[i]) : 0;
		if (p->unix_bind[i][0] != '/' || dl >= sizeof dir || sl[1] == '\0') {
			err = EINVAL;
		} else {
			memcpy(dir, p->unix_bind[i], dl);
			dir[dl] = '\0';
			b.bdir[i] = openat(AT_FDCWD, dl ? dir : "/", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			err = b.bdir[i] < 0 ? errno : 0;
		}
		if (err) {
			while (i-- > 0)
				close(b.bdir[i]);
			for (i = 0; i < b.n; i++)
				close(b.pin[i]);
			return sb_fail(e, SB_E_PATH, err, "name an absolute path in an existing directory",
			    "--unix-bind %s: %s", p->unix_bind[b.nb], strerror(err));
		}
		b.nb++;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		err = errno;
		goto fail;
	}
	pid = sb_split(&saved, e);
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		for (i = 0; i < b.n; i++)
			close(b.pin[i]);
		for (i = 0; i < b.nb; i++)
			close(b.bdir[i]);
		return -1;
	}
	if (pid > 0) {
		/* the parent: the broker, for as long as the child lives */
		close(sv[1]);
		b.child = pid;
		b.sock = sv[0];
		for (i = 0; i < b.n; i++)
			keep[i] = b.pin[i];
		for (i = 0; i < b.nb; i++)
			keep[b.n + i] = b.bdir[i];
		keep[b.n + b.nb] = sv[0];
		keep[b.n + b.nb + 1] = p->refusals_fd;	/* lib/sandbox_refusal.c */
		sb_refusal_init(p->refusals_fd >= 3 ? p->refusals_fd : -1);
		keep[b.n + b.nb + 2] = p->listeners_fd;	/* lib/sandbox_ip.c */
		serving_afresh();
		sb_parent_run(pid, (p->unnamed ? 0 : SB_PARENT_NAMED) |
		    (p->serial ? SB_PARENT_INLINE : 0), keep, b.n + b.nb + 3, broker_take,
		    broker_serve, &b);
	}
	close(sv[0]);
	for (i = 0; i < b.n; i++)
		close(b.pin[i]);
	for (i = 0; i < b.nb; i++)
		close(b.bdir[i]);
	return sv[1];
fail:
	for (i = 0; i < b.n; i++)
		close(b.pin[i]);
	for (i = 0; i < b.nb; i++)
		close(b.bdir[i]);
	return sb_fail(e, SB_E_SYS, err, NULL, "unable to start the seccomp broker: %s",
	    strerror(err));
}
