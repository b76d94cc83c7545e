/* sandbox_unix: the program's own pathname unix sockets (SB_OWN_UNIX).
 *
 * Before Landlock ABI 9 the kernel does not mediate connect() to a
 * pathname socket, so the broker decides every connect() (see
 * lib/sandbox_broker.c). A socket the program bound itself is its own:
 *   - bind() of a unix socket goes to the broker, which notes the socket
 *     (its inode, from the caller's descriptor taken with pidfd_getfd) and
 *     lets the call continue: Landlock decides where the socket file may
 *     be made (the write grants: home, tmp, workspace), the broker grants
 *     nothing by continuing;
 *   - connect() to a pathname that is none of the --unix allowlist: the
 *     broker opens the path O_PATH as the caller names it (relative to the
 *     caller's working directory), and connects the caller's socket to
 *     that very inode (/proc/self/fd/N) only when a socket it noted is
 *     alive and bound to it (sock_diag: UNIX_DIAG_VFS of the noted socket
 *     is the file's device and inode). Anything else stays EACCES: a
 *     socket made outside (docker.sock, the user's D-Bus and ssh-agent,
 *     another attempt's), also inside a write grant, also after the
 *     program's own socket at that path was closed and another made there.
 * The inode sock_diag reports is 32 bits wide: a file on the same device
 * whose inode differs only above bit 31 would pass; tmpfs and ext4 number
 * below that. Without unix sock_diag (CONFIG_UNIX_DIAG) every such
 * connect is refused. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "sandbox_int.h"

#define OWN_MAX 256

static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t own_ino[OWN_MAX];	/* socket inodes the program bound */
static size_t own_n;

/* The file a live socket (inode sino) is bound to: 1 with *vino, *vdev
 * (the kernel's encoding), 0 when it is gone or unbound, -1 on error. */
static int
diag_vfs(uint32_t sino, uint32_t *vino, uint32_t *vdev)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} q;
	union {
		struct nlmsghdr h;
		char b[1024];
	} a;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	struct unix_diag_msg *m;
	struct rtattr *at;
	ssize_t n;
	int fd, found = 0;
	unsigned left;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -1;
	memset(&q, 0, sizeof q);
	q.h.nlmsg_len = sizeof q;
	q.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.h.nlmsg_flags = NLM_F_REQUEST;
	q.r.sdiag_family = AF_UNIX;
	q.r.udiag_states = ~0u;
	q.r.udiag_ino = sino;
	q.r.udiag_show = UDIAG_SHOW_VFS;
	q.r.udiag_cookie[0] = q.r.udiag_cookie[1] = ~0u;
	if (sendto(fd, &q, sizeof q, 0, (struct sockaddr *)&nl, sizeof nl) != (ssize_t)sizeof q) {
		close(fd);
		return -1;
	}
	n = recv(fd, &a, sizeof a, 0);
	close(fd);
	if (n < (ssize_t)sizeof a.h || !NLMSG_OK(&a.h, (unsigned)n))
		return -1;
	if (a.h.nlmsg_type == NLMSG_ERROR)
		return 0;	/* ENOENT: gone */
	if (a.h.nlmsg_type != SOCK_DIAG_BY_FAMILY || a.h.nlmsg_len < NLMSG_LENGTH(sizeof *m))
		return -1;
	m = NLMSG_DATA(&a.h);
	if (m->udiag_ino != sino)
		return -1;
	left = a.h.nlmsg_len - NLMSG_LENGTH(sizeof *m);
	for (at = (struct rtattr *)(m + 1); RTA_OK(at, left); at = RTA_NEXT(at, left))
		if (at->rta_type == UNIX_DIAG_VFS &&
		    RTA_PAYLOAD(at) >= sizeof(struct unix_diag_vfs)) {
			struct unix_diag_vfs v;
			memcpy(&v, RTA_DATA(at), sizeof v);
			*vino = v.udiag_vfs_ino;
			*vdev = v.udiag_vfs_dev;
			found = 1;
		}
	return found;
}

int
sb_unix_bound(int sock)
{
	struct stat st;
	uint32_t vi, vd;
	size_t i, k;
	int r = 0;

	if (fstat(sock, &st) != 0)
		return -EBADF;
	pthread_mutex_lock(&own_lock);
	for (i = 0; i < own_n && own_ino[i] != (uint32_t)st.st_ino; i++)
		;
	if (i == own_n && own_n == OWN_MAX) {
		/* full: forget the sockets that are gone */
		for (i = k = 0; i < own_n; i++)
			if (diag_vfs(own_ino[i], &vi, &vd) != 0)
				own_ino[k++] = own_ino[i];
		own_n = k;
		i = own_n;
	}
	if (i == own_n) {
		if (own_n < OWN_MAX)
			own_ino[own_n++] = (uint32_t)st.st_ino;
		else
			r = -ENOBUFS;
	}
	pthread_mutex_unlock(&own_lock);
	return r;
}

/* Is the socket file st one a noted socket is bound to? */
static int
is_own(const struct stat *st)
{
	uint32_t kdev = (uint32_t)(major(st->st_dev) << 20 | minor(st->st_dev)), vi, vd;
	uint32_t snap[OWN_MAX];
	size_t i, n;

	pthread_mutex_lock(&own_lock);
	n = own_n;
	memcpy(snap, own_ino, n * sizeof snap[0]);
	pthread_mutex_unlock(&own_lock);
	for (i = 0; i < n; i++)
		if (diag_vfs(snap[i], &vi, &vd) == 1 && vi == (uint32_t)st->st_ino && vd == kdev)
			return 1;
	return 0;
}

int
sb_unix_own_connect(int pid, int sock, const char *path)
{
	char name[4200], via[64];
	struct sockaddr_un su;
	struct stat st;
	int fd, r;

	if (path[0] == '/')
		snprintf(name, sizeof name, "%s", path);
	else
		snprintf(name, sizeof name, "/proc/%d/cwd/%s", pid, path);
	fd = openat(AT_FDCWD, name, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -errno : -EACCES;
	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return -ECONNREFUSED;	/* the kernel's answer for a file */
	}
	if (!is_own(&st)) {
		close(fd);
		return 1;
	}
	memset(&su, 0, sizeof su);
	su.sun_family = AF_UNIX;
	snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
	memcpy(su.sun_path, via, strlen(via) + 1);
	sb_broker_blocking();
	r = connect(sock, (struct sockaddr *)&su, sizeof su) == 0 ? 0 : -errno;
	close(fd);
	return r;
}
