#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "execenv.h"
#include "fdio.h"
#include "fdpass.h"
#include "launcher.h"
#include "proctree.h"

struct req {
	char op;		/* 'S' spawn, 'K' kill, 'W' poll */
	pid_t pid;
};

struct ans {
	int rc, status;
	pid_t pid;
};

static int
xsend(int s, const void *p, size_t n)
{
	ssize_t w;

	while ((w = send(s, p, n, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return w == (ssize_t)n ? 0 : -1;
}

static int
xrecv(int s, void *p, size_t n)
{
	ssize_t r;

	while ((r = recv(s, p, n, 0)) < 0 && errno == EINTR)
		;
	if (r == 0)
		errno = EPIPE;
	return r == (ssize_t)n ? 0 : -1;
}

/* In the launcher: the upstream's own child. Never returns. */
static void
child(int a0, int b1, pid_t parent, char **argv, char **envp)
{
	int none[1] = { 2 };

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (dup2(a0, 0) < 0 || dup2(b1, 1) < 0)
		_exit(127);
	fd_close_from(3, none, 0);
	exec_env(argv, envp);
	_exit(exec_status(errno));
}

/* The answer first, then (when it started) the two pipe ends. */
static void
spawn(int s, char **argv, char **envp)
{
	struct ans an = { -1, ENOENT, -1 };
	int a[2] = { -1, -1 }, b[2] = { -1, -1 };
	pid_t pid = -1;

	if (argv && pipe2(a, O_CLOEXEC) == 0 && pipe2(b, O_CLOEXEC) == 0 && (pid = fork()) == 0)
		child(a[0], b[1], getppid(), argv, envp);
	if (argv)
		an.status = errno;
	if (pid > 0) {
		setpgid(pid, pid);
		an.rc = 0;
		an.pid = pid;
	}
	if (xsend(s, &an, sizeof an) < 0 || (pid > 0 && (fd_send(s, a[1]) < 0 || fd_send(s, b[0]) < 0))) {
		if (pid > 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	for (int i = 0; i < 2; i++) {
		if (a[i] >= 0)
			close(a[i]);
		if (b[i] >= 0)
			close(b[i]);
	}
}

/* The launcher's loop: one request at a time until the proxy is gone. */
static void
serve(int s, char **argv, char **envp, const char *sock_path)
{
	struct req rq;
	struct ans an;

	while (xrecv(s, &rq, sizeof rq) == 0) {
		memset(&an, 0, sizeof an);
		switch (rq.op) {
		case 'S':
			spawn(s, argv, envp);
			continue;
		case 'K':
			kill(-rq.pid, SIGKILL);	/* the whole group */
			kill(rq.pid, SIGKILL);
			while (waitpid(rq.pid, &an.status, 0) < 0 && errno == EINTR)
				;
			proc_sweep();	/* and what left it: no orphans */
			break;
		case 'W':
			an.rc = waitpid(rq.pid, &an.status, WNOHANG);
			if (an.rc > 0) {
				an.rc = 1;
				proc_sweep();	/* the upstream ended: what it left goes */
			}
			break;
		default:
			goto out;
		}
		xsend(s, &an, sizeof an);
	}
out:
	/* the proxy is done (or was killed: its end of the socket closed):
	 * its unix socket goes (it may no longer remove it), and so does
	 * every process the upstream started, however it detached */
	if (sock_path)
		unlink(sock_path);
	proc_sweep();
	_exit(0);
}

int
launcher_start(struct launcher *l, char **argv, char **envp, const char *sock_path)
{
	int sv[2], keep[1];
	pid_t parent = getpid();

	l->sock = -1;
	l->pid = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if ((l->pid = fork()) < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return errno = e, -1;
	}
	if (l->pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		/* the upstream's subreaper: what it leaves (a browser's
		 * helpers, a double fork) comes back here and is ended with
		 * it. No death signal: when the proxy ends, even by SIGKILL,
		 * its end of the socket closes and serve sweeps and exits */
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || getppid() != parent)
			_exit(0);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* not the agent's stdio: it would keep the proxy's pipes open */
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
		}
		keep[0] = sv[1];
		fd_close_from(3, keep, 1);
		serve(sv[1], argv, envp, sock_path);
	}
	close(sv[1]);
	l->sock = sv[0];
	return 0;
}

static int
ask(struct launcher *l, char op, pid_t pid, struct ans *an)
{
	struct req rq = { op, pid };

	if (l->sock < 0)
		return errno = EPIPE, -1;
	return xsend(l->sock, &rq, sizeof rq) < 0 ? -1 : 0;
}

int
launcher_spawn(struct launcher *l, pid_t *pid, int *in, int *out)
{
	struct ans an;

	*in = *out = -1;
	if (ask(l, 'S', 0, &an) < 0 || xrecv(l->sock, &an, sizeof an) < 0)
		return -1;
	if (an.rc < 0)
		return errno = an.status, -1;
	if ((*in = fd_recv(l->sock)) < 0 || (*out = fd_recv(l->sock)) < 0) {
		int e = errno;
		if (*in >= 0)
			close(*in);
		if (*out >= 0)
			close(*out);
		*in = *out = -1;
		return errno = e, -1;
	}
	*pid = an.pid;
	return 0;
}

void
launcher_kill(struct launcher *l, pid_t pid)
{
	struct ans an;

	if (ask(l, 'K', pid, &an) == 0)
		xrecv(l->sock, &an, sizeof an);
}

int
launcher_poll(struct launcher *l, pid_t pid, int *status)
{
	struct ans an;

	if (ask(l, 'W', pid, &an) < 0 || xrecv(l->sock, &an, sizeof an) < 0)
		return -1;
	*status = an.status;
	return an.rc;
}

void
launcher_stop(struct launcher *l)
{
	if (l->sock >= 0)
		close(l->sock);	/* it sees EOF and exits; its upstream dies with it */
	if (l->pid > 0)
		while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR)
			;
	l->sock = -1;
	l->pid = -1;
}
