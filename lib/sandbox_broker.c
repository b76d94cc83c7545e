/* sandbox_broker: pathname unix sockets for --unix, without a
 * time-of-check/time-of-use hole.
 *
 * Before Landlock ABI 9 the kernel does not mediate connect() to a pathname
 * socket. With an allowlist, the seccomp filter sends every connect() to
 * this broker, a process left outside the boundary (double-forked, so the
 * sandboxed program never has it as a child). The broker never lets the
 * kernel continue the call with the caller's arguments
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
 *   - any other family: connected by the broker, which has restricted itself
 *     with the policy's Landlock TCP rules; refused under no-network.
 * Each request is served by a short-lived worker, so a slow TCP connect
 * does not hold up the others. When the last sandboxed process exits, the
 * listener reports POLLHUP and the broker exits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <linux/seccomp.h>

#include "compat.h"
#include "fdio.h"
#include "fdpass.h"
#include "landlock.h"
#include "sandbox.h"
#include "sandbox_int.h"
#include "seccomp_util.h"


struct broker {
	const struct sb_policy *p;
	int abi;
	int pin[SB_MAX_UNIX];		/* O_PATH fds of the allowlisted sockets */
	const char *path[SB_MAX_UNIX];
	size_t n;
	int scope;
	enum sb_net net;
};

static int broker_net(const struct sb_policy *p, int abi);

/* worker: 1 in a per-request worker process, which may restrict itself. */
static int
decide_and_connect(const struct broker *b, const struct seccomp_notif *req, int nfd,
    int worker)
{
	struct sockaddr_storage ss;
	struct iovec local, remote;
	socklen_t len = (socklen_t)req->data.args[2];
	char via[64];
	struct sockaddr_un su;
	int pidfd, sock, dom, r;
	socklen_t dl = sizeof dom;
	size_t i, plen;

	if (len > sizeof ss || len < sizeof(sa_family_t))
		return -EINVAL;
	memset(&ss, 0, sizeof ss);
	local.iov_base = &ss;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)req->data.args[1];
	remote.iov_len = len;
	if (process_vm_readv((pid_t)req->pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return -EFAULT;
	pidfd = (int)syscall(SYS_pidfd_open, (pid_t)req->pid, 0);
	if (pidfd < 0)
		return -EACCES;
	/* The pid must still be the caller's. */
	if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0) {
		close(pidfd);
		return -EACCES;
	}
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)req->data.args[0], 0);
	close(pidfd);
	if (sock < 0)
		return errno == EBADF ? -EBADF : -EACCES;
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &dl) != 0) {
		r = errno == ENOTSOCK ? -ENOTSOCK : -EACCES;
		close(sock);
		return r;
	}
	if (dom != AF_UNIX) {
		/* The worker takes on the boundary's TCP rules only now: a
		 * Landlock domain would keep it from reading the caller. */
		if (b->net == SB_NET_NONE)
			r = -EACCES;
		else if (b->net == SB_NET_PORTS && (!worker || broker_net(b->p, b->abi) != 0))
			r = -EAGAIN;
		else
			r = connect(sock, (struct sockaddr *)&ss, len) == 0 ? 0 : -errno;
		close(sock);
		return r;
	}
	r = -EACCES;
	if (ss.ss_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path)) {
		r = -EINVAL;
		goto out;
	}
	memcpy(&su, &ss, sizeof su);
	plen = len - offsetof(struct sockaddr_un, sun_path);
	if (su.sun_path[0] == '\0') {
		/* abstract: Landlock's scope would deny it from inside */
		if (!b->scope)
			r = connect(sock, (struct sockaddr *)&ss, len) == 0 ? 0 : -errno;
		else
			r = -EPERM;
		goto out;
	}
	if (plen >= sizeof su.sun_path)
		plen = sizeof su.sun_path - 1;
	su.sun_path[plen] = '\0';
	for (i = 0; i < b->n; i++)
		if (strcmp(su.sun_path, b->path[i]) == 0)
			break;
	if (i == b->n)
		goto out;
	memset(&su, 0, sizeof su);
	su.sun_family = AF_UNIX;
	snprintf(via, sizeof via, "/proc/self/fd/%d", b->pin[i]);
	memcpy(su.sun_path, via, strlen(via) + 1);
	r = connect(sock, (struct sockaddr *)&su, sizeof su) == 0 ? 0 : -errno;
out:
	close(sock);
	return r;
}

/* Restrict the broker's own TCP like the boundary's. */
static int
broker_net(const struct sb_policy *p, int abi)
{
	struct ll_ruleset_attr ra;
	struct ll_net_port_attr np;
	size_t i;
	int rfd;

	if (p->net != SB_NET_PORTS)
		return 0;
	memset(&ra, 0, sizeof ra);
	ra.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	rfd = ll_create_ruleset(&ra, abi >= 6 ? sizeof ra : offsetof(struct ll_ruleset_attr, scoped), 0);
	if (rfd < 0)
		return -1;
	for (i = 0; i < p->nconnect; i++) {
		np.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP;
		np.port = p->connect[i];
		if (ll_add_rule(rfd, LL_RULE_NET_PORT, &np, 0) != 0)
			return -1;
	}
	if (ll_restrict_self(rfd, 0) != 0)
		return -1;
	close(rfd);
	return 0;
}

static void __attribute__((noreturn))
broker_main(struct broker *b, int sock)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct pollfd pfd;
	int keep[SB_MAX_UNIX + 1], nfd, null;
	pid_t pid;
	size_t i;

	for (i = 0; i < b->n; i++)
		keep[i] = b->pin[i];
	keep[b->n] = sock;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (fd_close_from(3, keep, b->n + 1) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(1);
	signal(SIGCHLD, SIG_IGN);	/* workers reap themselves */
	nfd = fd_recv(sock);
	close(sock);
	if (nfd < 0)
		_exit(0);	/* confine failed before the filter: nothing to serve */
	pfd.fd = nfd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			_exit(0);
		memset(&req, 0, sizeof req);
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
			continue;
		/* A worker answers; without one, the broker itself. */
		pid = fork();
		if (pid > 0)
			continue;
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.error = decide_and_connect(b, &req, nfd, pid == 0);
		(void)ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		if (pid == 0)
			_exit(0);
	}
}

int
sb_broker_start(const struct sb_policy *p, struct sb_error *e)
{
	struct broker b;
	struct stat st;
	int sv[2], st2, err;
	pid_t pid;
	size_t i;

	memset(&b, 0, sizeof b);
	b.p = p;
	b.abi = e->abi;
	b.scope = p->scope;
	b.net = p->net;
	for (i = 0; i < p->nunix; i++) {
		b.path[i] = p->unix_path[i];
		b.pin[i] = open(p->unix_path[i], O_PATH | O_CLOEXEC);
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
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		err = errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	if (pid == 0) {
		close(sv[1]);
		if (fork() == 0)
			broker_main(&b, sv[0]);
		_exit(0);
	}
	close(sv[0]);
	for (i = 0; i < b.n; i++)
		close(b.pin[i]);
	while (waitpid(pid, &st2, 0) < 0 && errno == EINTR)
		;
	return sv[1];
fail:
	for (i = 0; i < b.n; i++)
		close(b.pin[i]);
	return sb_fail(e, SB_E_SYS, err, NULL, "unable to start the unix socket broker: %s",
	    strerror(err));
}
