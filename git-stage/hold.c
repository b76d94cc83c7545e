/* hold: the checkout's slot stays taken (its flock held) from create to
 * finish, which are two processes: a small holder process keeps the lock,
 * watching for the attempt's release (inotify on STORE/git/ATTEMPT) and
 * for the end of the process that ran create (corral, or the shell of
 * explain's script), whichever comes first. It holds nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
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
hold(int ino, int pfd)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p[2] = { { ino, POLLIN, 0 }, { pfd, POLLIN, 0 } };

	for (;;) {
		if (poll(p, pfd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[1].revents)
			return;		/* the caller ended */
		ssize_t n = read(ino, ev, sizeof ev);
		if (n <= 0)
			return;
		for (char *c = ev; c < ev + n; ) {
			struct inotify_event *e = (struct inotify_event *)c;
			if ((e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) ||
			    (e->len && strcmp(e->name, "released") == 0))
				return;
			c += sizeof *e + e->len;
		}
	}
}

int
gs_hold(struct gitws *g, int caller)
{
	int ino, pfd, nul, keep[3];
	pid_t pid;

	if ((ino = inotify_init1(IN_CLOEXEC)) < 0)
		goto fail;
	if (inotify_add_watch(ino, g->dir, IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0) {
		close(ino);
		goto fail;
	}
	pfd = gs_pidfd(caller);
	if ((pid = fork()) < 0) {
		close(ino);
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
		keep[0] = ino, keep[1] = pfd, keep[2] = g->lockfd;
		(void)fd_close_from(3, keep, 3);
		hold(ino, pfd);
		_exit(0);
	}
	close(ino);
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

	if (g->dir[0] && (size_t)snprintf(p, sizeof p, "%s/released", g->dir) < sizeof p &&
	    (fd = open(p, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0)
		close(fd);
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
