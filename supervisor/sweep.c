/* sweep: the attempt's keeper (see sweep.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "execenv.h"
#include "fdio.h"
#include "msg.h"
#include "sweep.h"

static volatile sig_atomic_t k_child, k_orphan, k_alarm;

static const int k_fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void
k_on_signal(int sig)
{
	int e = errno;

	if (sig == SIGUSR2)
		k_orphan = 1;
	else if (sig == SIGALRM)
		k_alarm = 1;
	if (k_child > 0)
		kill((pid_t)k_child, sig == SIGUSR2 || sig == SIGALRM ? SIGKILL : sig);
	errno = e;
}

int
kill_listed_fd(int fd)
{
	char buf[8192], *p, *e;
	int n = 0;
	ssize_t r;

	while ((r = read(fd, buf, sizeof buf - 1)) > 0) {
		buf[r] = '\0';
		for (p = buf; *p; p = e) {
			long pid = strtol(p, &e, 10);
			if (e == p)
				break;
			if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
				n++;
		}
	}
	return n;
}

/* SIGKILL every child listed in /proc/self/task/PID/children */
static int
kill_children(void)
{
	char path[64];
	int fd, n;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = kill_listed_fd(fd);
	close(fd);
	return n;
}

void
sweep_children(void)
{
	int ws, got;
	pid_t p;

	/* A killed process hands its children to us (a subreaper) before
	 * it can be reaped, so "no child at all" (ECHILD) means no
	 * descendant is left. */
	for (;;) {
		kill_children();
		got = 0;
		while ((p = waitpid(-1, &ws, WNOHANG)) > 0)
			got++;
		if (p < 0 && errno == ECHILD)
			return;
		if (!got && waitpid(-1, &ws, 0) < 0 && errno == ECHILD)
			return;
	}
}

/* The agent's directory, real and checked (linkwalk.c), entered without
 * following a link: one there now appeared since (confine refuses the same) */
static int
enter(const char *dir)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof how), r;

	if (fd < 0)
		return -1;
	r = fchdir(fd);
	close(fd);
	return r;
}

static void
chain_main(const struct keeper_args *ka, pid_t keeper, int tty, int in_v2)
{
	sigset_t none, ttou, old;
	struct sigaction dfl;

	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	setpgid(0, 0);
	if (tty >= 0) {
		/* the chain's process group holds the agent's terminal */
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		if (tcsetpgrp(tty, getpid()) < 0) {
			msg_fatal_sys("unable to give the agent's terminal %s to the agent", ka->slave);
			_exit(EXIT_CHAIN_FAIL);
		}
		for (int i = 0; i < 3; i++)
			if (ka->on_slave[i] && dup2(tty, i) < 0)
				_exit(EXIT_CHAIN_FAIL);
		close(tty);
	}
	if (ka->cg && cg_enter(ka->cg, in_v2) < 0) {
		msg_fatal_sys("unable to join the attempt's cgroup");
		_exit(EXIT_CHAIN_FAIL);
	}
	for (int i = 0; i < ka->nrl; i++)
		if (setrlimit(ka->rl_res[i], &ka->rl[i]) < 0) {
			msg_fatal_sys("unable to set resource limit %d", ka->rl_res[i]);
			_exit(EXIT_CHAIN_FAIL);
		}
	if (ka->cg)
		for (int k = 0; k < CG_NKIND; k++) {
			if (ka->cg->procs[k] >= 0)
				close(ka->cg->procs[k]);
			if (ka->cg->dir[k] >= 0)
				close(ka->cg->dir[k]);
		}
	/* the chain dies with the keeper, even by SIGKILL */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != keeper)
		_exit(EXIT_CHAIN_FAIL);
	if (ka->dir && ka->dir[0] && enter(ka->dir) < 0) {
		msg_fatal_sys("unable to enter %s", ka->dir);
		_exit(EXIT_CHAIN_FAIL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* env-filter builds the agent's environment from corral's: it is the
	 * filter, so it is given corral's, explicitly */
	execve(ka->argv[0], ka->argv, ka->envp);
	msg_fatal_sys("unable to execute %s", ka->argv[0]);
	_exit(exec_status(errno));
}

static int
open_slave(const char *slave)
{
	int fd;

	/* a session of its own, the agent's pts its controlling terminal */
	if (setsid() < 0)
		return -1;
	fd = open(slave, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (ioctl(fd, TIOCSCTTY, 0) < 0) {
		int e = errno;
		close(fd);
		return errno = e, -1;
	}
	return fd;
}

static void __attribute__((noreturn))
keeper_main(const struct keeper_args *ka, pid_t corral, int wfd)
{
	struct keeper_result res = { 0, 0, 0, -1 };
	struct sigaction sa;
	sigset_t none;
	int tty = -1, ws, in_v2 = 0;
	pid_t c, p;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = k_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof k_fwd / sizeof k_fwd[0]; i++)
		sigaction(k_fwd[i], &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	for (int i = 0; i < 2; i++)
		if (ka->close_fd[i] >= 0)
			close(ka->close_fd[i]);
	prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0);
	if (getppid() != corral)
		k_orphan = 1;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		msg_fatal_sys("unable to become the attempt's subreaper");
		_exit(EXIT_CHAIN_FAIL);
	}
	if (ka->slave && (tty = open_slave(ka->slave)) < 0) {
		msg_fatal_sys("unable to open the agent's terminal %s", ka->slave);
		_exit(EXIT_CHAIN_FAIL);
	}
	/* no terminal: a session of its own all the same, never the user's */
	if (!ka->slave && setsid() < 0) {
		msg_fatal_sys("unable to start a session for the agent");
		_exit(EXIT_CHAIN_FAIL);
	}
	/* the chain is born in the attempt's v2 cgroup where it can be */
	c = k_orphan ? -1 : cg_fork(ka->cg, &in_v2);
	if (c == 0)
		chain_main(ka, getppid(), tty, in_v2);
	if (c < 0 && !k_orphan) {
		msg_fatal_sys("fork");
		_exit(EXIT_CHAIN_FAIL);
	}
	k_child = c;
	res.chain = c;
	if (tty >= 0)
		close(tty);
	if (ka->wall)
		alarm(ka->wall);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (k_orphan && c > 0)
		kill(c, SIGKILL);
	while (c > 0) {
		p = waitpid(-1, &ws, WUNTRACED);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p != c)
			continue;	/* an orphan of the attempt, reaped */
		if (WIFSTOPPED(ws)) {
			/* ^Z on the agent's terminal: stop as a job would, so
			 * corral (and the user's shell) see it; on SIGCONT go on */
			kill(getpid(), SIGSTOP);
			kill(-c, SIGCONT);
			continue;
		}
		res.ws = ws;
		break;
	}
	alarm(0);
	res.timed_out = k_alarm;
	res.orphaned = k_orphan;
	/* every process of the attempt ends, however it detached */
	if (ka->cg)
		cg_kill(ka->cg);
	sweep_children();
	(void)fd_write_all(wfd, &res, sizeof res);
	_exit(0);
}

pid_t
keeper_start(const struct keeper_args *ka, int *report)
{
	sigset_t all, old;
	int p[2], e;
	pid_t pid, self = getpid();

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		keeper_main(ka, self, p[1]);
	}
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return errno = e, -1;
	}
	*report = p[0];
	return pid;
}

int
keeper_result_read(int fd, struct keeper_result *r)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof *r) {
		n = read(fd, (char *)r + got, sizeof *r - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}
