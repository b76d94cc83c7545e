/* sandbox_pty: a pty the program makes is its own (SB_OWN_PTY).
 *
 * /dev/ptmx makes a new pair, but its slave is a node of /dev/pts, beside
 * every terminal of the user, which Landlock cannot grant ahead without
 * granting them all; and TIOCGPTPEER opens that node under the caller's
 * domain too. So the broker (outside, lib/sandbox_broker.c) opens the slave
 * of a master the caller holds, and nothing else:
 *   - ioctl(master, TIOCGPTPEER, flags): the seccomp filter matches the
 *     command; the broker takes the caller's descriptor (pidfd_getfd), asks
 *     TIOCGPTPEER on that same open file itself, and installs the slave in
 *     the caller (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND:
 *     the descriptor and the answer in one step). A descriptor that is no
 *     ptmx (5:2) gets ENOTTY, as the kernel answers. glibc's openpty
 *     and forkpty (script, Python's pty, node-pty) ask this first.
 *   - open or openat with exactly O_RDWR|O_NOCTTY (O_CLOEXEC, O_NONBLOCK,
 *     O_LARGEFILE aside): how musl's openpty, glibc's fallback and Go's
 *     creack/pty open "/dev/pts/N" by name. The filter cannot see the path;
 *     the broker copies it once: for "/dev/pts/N" and a master of the
 *     caller whose TIOCGPTN is N, the broker opens that master's peer as
 *     above; for anything else it lets the call continue unchanged, where
 *     Landlock decides on the path as always (the broker grants nothing by
 *     continuing, so the path being re-read then opens no hole).
 * The slave opened by the broker carries no Landlock domain, so TIOCSCTTY,
 * TIOCSWINSZ and the other terminal ioctls work on it. The broker always
 * opens with O_NOCTTY: the caller does not gain the terminal as its
 * controlling one by opening it, TIOCSCTTY does that (login_tty, forkpty).
 * A terminal whose master the caller does not hold (the user's others,
 * corral's own) is never opened here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "sandbox_int.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER 0x5441
#endif
#define PTY_FLAGS (O_ACCMODE | O_NONBLOCK)	/* what the caller may choose */

/* The peer of master, opened here and handed to the caller: 2 (answered),
 * or 0 with resp->error set. */
static int
give_peer(int nfd, const struct seccomp_notif *req, int master, int flags,
    struct seccomp_notif_resp *resp)
{
	struct stat st;
	int s;

	/* a ptmx (5,2) only: the command means something else elsewhere, and
	 * the broker's ioctl is not limited by the caller's Landlock rights */
	if (fstat(master, &st) != 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 5 ||
	    minor(st.st_rdev) != 2)
		return resp->error = -ENOTTY, 0;
	s = ioctl(master, TIOCGPTPEER, (flags & PTY_FLAGS) | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return resp->error = -errno, 0;
	if (sb_addfd_send(nfd, req, s, flags & O_CLOEXEC) != 0) {
		resp->error = -EACCES;	/* the caller is gone, or its table full */
		if (errno == EMFILE)
			resp->error = -EMFILE;
		close(s);
		return 0;
	}
	close(s);
	return 2;
}

/* "/dev/pts/N": N, else -1. */
static long
pts_number(const char *path)
{
	const char *d = path + 9;
	long n = 0;

	if (strncmp(path, "/dev/pts/", 9) != 0 || *d == '\0')
		return -1;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || n > 100000000)
			return -1;
		n = n * 10 + (*d - '0');
	}
	return n;
}

/* A master of the caller whose slave is number n: its descriptor here, or
 * -1. Only descriptors that are ptmx files are taken and asked. */
static int
find_master(int nfd, const struct seccomp_notif *req, long n)
{
	char dir[64], link[384], to[32];
	struct dirent *de;
	unsigned no;
	DIR *d;
	int fd, found = -1;
	ssize_t l;

	snprintf(dir, sizeof dir, "/proc/%u/fd", (unsigned)req->pid);
	if ((d = opendir(dir)) == NULL)
		return -1;
	while (found < 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(link, sizeof link, "%s/%s", dir, de->d_name);
		l = readlink(link, to, sizeof to - 1);
		if (l <= 0)
			continue;
		to[l] = '\0';
		if (strcmp(to, "/dev/ptmx") != 0 && strcmp(to, "/dev/pts/ptmx") != 0)
			continue;
		fd = sb_caller_fd(nfd, req, atoi(de->d_name));
		if (fd < 0)
			continue;
		if (ioctl(fd, TIOCGPTN, &no) == 0 && (long)no == n)
			found = fd;
		else
			close(fd);
	}
	closedir(d);
	return found;
}

int
sb_pty_peer(int nfd, const struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	int master, r;

	master = sb_caller_fd(nfd, req, (int)req->data.args[0]);
	if (master < 0)
		return resp->error = master, 0;
	r = give_peer(nfd, req, master, (int)req->data.args[2], resp);
	close(master);
	return r;
}

int
sb_pty_open(int nfd, const struct seccomp_notif *req, const char *path, int flags,
    struct seccomp_notif_resp *resp)
{
	int master, r;
	long n;

	if ((n = pts_number(path)) < 0)
		return 1;	/* not a pts by this name: Landlock decides */
	master = find_master(nfd, req, n);
	if (master < 0)
		return 1;	/* not its own: Landlock decides (refuses /dev/pts) */
	r = give_peer(nfd, req, master, flags, resp);
	close(master);
	return r;
}
