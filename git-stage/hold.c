/* hold: the checkout's slot stays taken (its flock held) from create to
 * finish, which are two processes: a small holder process keeps the lock,
 * watching for the attempt's release (a byte on the FIFO
 * STORE/git/ATTEMPT/release, or its last writer gone) and for the end of
 * the process that ran create (corral, or the shell of explain's script),
 * whichever comes first. It holds nothing else. (Not inotify: an inotify
 * instance's teardown at exit waits for a grace period, 7 to 17 ms here,
 * and finish waits for the holder's end.) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdio.h"
#include "gs.h"

int
gs_pidfd(int pid)
{
	return pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
}

static void
hold(int fifo, int pfd)
{
	struct pollfd p[2] = { { fifo, POLLIN, 0 }, { pfd, POLLIN, 0 } };

	/* a FIFO with no writer yet is not readable (no POLLHUP before one
	 * came): any event on it is the release */
	while (poll(p, pfd >= 0 ? 2 : 1, -1) < 0)
		if (errno != EINTR)
			return;
}

int
gs_hold(struct gitws *g, int caller)
{
	char path[PATH_MAX + 16];
	int fifo, pfd, nul, keep[3];
	pid_t pid;

	if ((size_t)snprintf(path, sizeof path, "%s/release", g->dir) >= sizeof path ||
	    mkfifo(path, 0600) < 0 ||
	    (fifo = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) < 0)
		goto fail;
	pfd = gs_pidfd(caller);
	if ((pid = fork()) < 0) {
		close(fifo);
		if (pfd >= 0)
			close(pfd);
		goto fail;
	}
	if (pid == 0) {
		/* no terminal, no pipe of the caller's kept open */
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0)
			for (int i = 0; i < 3; i++)
				(void)dup3(nul, i, 0);
		keep[0] = fifo, keep[1] = pfd, keep[2] = g->lockfd;
		(void)fd_close_from(3, keep, 3);
		hold(fifo, pfd);
		_exit(0);
	}
	close(fifo);
	if (pfd >= 0)
		close(pfd);
	close(g->lockfd);
	g->lockfd = 0;
	return pid;
fail:
	close(g->lockfd);
	g->lockfd = 0;
	return -1;
}

void
gs_released(const struct gitws *g)
{
	char p[PATH_MAX + 16];
	int fd;

	/* no reader (the holder gone): ENXIO, nothing to tell */
	if (g->dir[0] && (size_t)snprintf(p, sizeof p, "%s/release", g->dir) < sizeof p &&
	    (fd = open(p, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		(void)write(fd, "", 1);
		close(fd);
	}
}

void
gs_unhold(int pidfd)
{
	if (pidfd >= 0) {
		/* bounded: a holder that does not end only keeps a slot */
		struct pollfd pf = { pidfd, POLLIN, 0 };
		while (poll(&pf, 1, 10000) < 0 && errno == EINTR)
			;
	}
}
