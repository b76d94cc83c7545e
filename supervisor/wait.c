/* wait: see wait.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wait.h"

static volatile sig_atomic_t w_keeper;
static int w_pipe[2] = { -1, -1 };

static const int w_fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void
w_on_signal(int sig)
{
	int e = errno;
	unsigned char c = (unsigned char)sig;

	if (sig != SIGCHLD && sig != SIGWINCH && w_keeper > 0)
		kill((pid_t)w_keeper, sig);	/* the keeper hands it to the chain */
	if (w_pipe[1] >= 0)
		(void)write(w_pipe[1], &c, 1);
	errno = e;
}

/* The keeper stopped (the agent was stopped from its terminal): stop too,
 * with the user's terminal as it was, then take up where we were. */
static void
job_stop(struct pty *t, pid_t keeper)
{
	int raw = t->raw;

	pty_restore(t);
	kill(getpid(), SIGSTOP);
	if (raw)
		pty_raw(t);
	pty_winsize(t);
	kill(keeper, SIGCONT);
}

/* 1 when the keeper has exited (status in *ws) */
static int
keeper_done(struct pty *t, pid_t keeper, int *ws, int block)
{
	pid_t p;

	for (;;) {
		p = waitpid(keeper, ws, WUNTRACED | (block ? 0 : WNOHANG));
		if (p < 0 && errno == EINTR) {
			if (block)
				continue;
			return 0;
		}
		if (p <= 0)
			return p < 0;	/* ECHILD: someone reaped it; treat as done */
		if (WIFSTOPPED(*ws)) {
			job_stop(t, keeper);
			if (!block)
				return 0;
			continue;
		}
		return 1;
	}
}

static void
relay(struct pty *t, pid_t keeper, int *ws)
{
	struct pollfd pf[3];
	unsigned char sigs[64];
	ssize_t n;
	int np;

	for (;;) {
		pf[0] = (struct pollfd){ w_pipe[0], POLLIN, 0 };
		np = 1;
		if (!t->hup)
			pf[np++] = (struct pollfd){ t->master, (short)(POLLIN | (t->blen ? POLLOUT : 0)), 0 };
		if (t->in >= 0 && t->blen == 0 && !t->hup)
			pf[np++] = (struct pollfd){ t->in, POLLIN, 0 };
		if (poll(pf, (nfds_t)np, -1) < 0 && errno != EINTR)
			break;
		if (pf[0].revents & POLLIN) {
			int winch = 0;
			while ((n = read(w_pipe[0], sigs, sizeof sigs)) > 0)
				for (ssize_t i = 0; i < n; i++)
					winch |= sigs[i] == SIGWINCH;
			if (winch)
				pty_winsize(t);
			if (keeper_done(t, keeper, ws, 0))
				return;
		}
		for (int i = 1; i < np; i++) {
			if (pf[i].revents == 0)
				continue;
			if (pf[i].fd == t->master) {
				if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
					(void)pty_from_agent(t);
				if (pf[i].revents & POLLOUT)
					(void)pty_to_agent(t);
			} else {
				(void)pty_to_agent(t);
			}
		}
		if (t->hup) {
			/* the agent's side is closed: only the keeper's end is left */
			keeper_done(t, keeper, ws, 1);
			return;
		}
	}
	keeper_done(t, keeper, ws, 1);
}

int
wait_attempt(struct keeper_args *ka, struct pty *t, struct keeper_result *res)
{
	struct sigaction sa, old[sizeof w_fwd / sizeof w_fwd[0] + 2];
	int report = -1, ws = 0, r = 0, e;
	pid_t k;

	memset(res, 0, sizeof *res);
	if (pipe2(w_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = w_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof w_fwd / sizeof w_fwd[0]; i++)
		sigaction(w_fwd[i], &sa, &old[i]);
	sigaction(SIGCHLD, &sa, &old[4]);
	sigaction(SIGWINCH, &sa, &old[5]);
	if (t->master >= 0) {
		ka->slave = t->slave;
		memcpy(ka->on_slave, t->on_slave, sizeof ka->on_slave);
		ka->close_fd[0] = t->master;
		ka->close_fd[1] = t->sfd;
		pty_raw(t);
	} else {
		ka->slave = NULL;
		ka->close_fd[0] = ka->close_fd[1] = -1;
	}
	k = keeper_start(ka, &report);
	if (k < 0) {
		e = errno;
		r = -1;
	} else {
		w_keeper = k;
		if (t->master >= 0)
			relay(t, k, &ws);
		else
			keeper_done(t, k, &ws, 1);
		w_keeper = 0;
		if (keeper_result_read(report, res) < 0) {
			/* the keeper itself was killed: orphans come to corral
			 * (a subreaper too); end them here */
			res->ws = ws;
			e = EPIPE;
			r = -1;
			sweep_children();
		}
		close(report);
	}
	pty_close(t);
	for (size_t i = 0; i < sizeof w_fwd / sizeof w_fwd[0]; i++)
		sigaction(w_fwd[i], &old[i], NULL);
	sigaction(SIGCHLD, &old[4], NULL);
	sigaction(SIGWINCH, &old[5], NULL);
	close(w_pipe[0]);
	close(w_pipe[1]);
	w_pipe[0] = w_pipe[1] = -1;
	if (r < 0)
		errno = e;
	return r;
}
