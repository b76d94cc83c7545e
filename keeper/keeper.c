/* keeper: see keeper.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "clock.h"
#include "execenv.h"
#include "fdio.h"
#include "jobwait.h"
#include "keeper.h"
#include "msg.h"
#include "path.h"
#include "pty.h"
#include "proctree.h"

static int k_pipe[2] = { -1, -1 };

/* signals keeper hands on, or acts on (SIGUSR2: its parent died) */
static const int k_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGCHLD, SIGUSR2 };

static void
k_on_signal(int sig)
{
	int e = errno;
	unsigned char c = (unsigned char)sig;

	(void)write(k_pipe[1], &c, 1);
	errno = e;
}

/* --gate FD: the read end of a pipe (as confine --gate asks), the
 * caller's, read by keeper alone: PROG gets as FD the read end of keeper's
 * own pipe, and the go byte on it only once keeper has read it and started
 * the wall clock (gate_pass). Reading it itself, keeper cannot miss it, as
 * a poll beside PROG's read could. */
static int
gate_check(const struct keeper_opts *o)
{
	struct stat st;
	int fl;

	if (o->gate < 0)
		return 0;
	if (o->gate == o->pid_fd) {
		msg_usage("--gate %d: that descriptor is --pid-fd's", o->gate);
		return -1;
	}
	if (fstat(o->gate, &st) < 0 || (fl = fcntl(o->gate, F_GETFL)) < 0 ||
	    !S_ISFIFO(st.st_mode) || (fl & O_ACCMODE) != O_RDONLY) {
		msg_fatal("--gate %d: not the read end of a pipe", o->gate);
		msg_hint("give the read end of a pipe whose write end the caller keeps, e.g. printf g | keeper --gate 3 ... 3<&0");
		return -1;
	}
	/* keeper's from now on; PROG gets keeper's pipe as FD */
	if (fcntl(o->gate, F_SETFD, FD_CLOEXEC) < 0 || fcntl(o->gate, F_SETFL, fl | O_NONBLOCK) < 0) {
		msg_fatal_sys("--gate %d", o->gate);
		return -1;
	}
	return 0;
}

struct chain {
	const struct keeper_opts *o;
	char **envp;
	const struct cg *cg;		/* NULL: none */
	int in_v2;
	const struct limits_rl *rl;
	int tty;			/* the program's terminal, or -1 */
	const struct pty *t;
	pid_t keeper;
	int gate_rd;			/* keeper's gate pipe, becomes --gate's FD */
};

static void __attribute__((noreturn))
chain_main(const struct chain *ch)
{
	struct sigaction dfl;
	sigset_t none, ttou;

	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	setpgid(0, 0);
	if (ch->o->pid_fd >= 0)
		close(ch->o->pid_fd);	/* keeper's, never the program's */
	/* the program's gate: keeper's pipe in the caller's's place (dup2
	 * clears close-on-exec on the copy only) */
	if (ch->gate_rd >= 0 && dup2(ch->gate_rd, ch->o->gate) < 0)
		_exit(EXIT_CHAIN_FAIL);
	if (ch->tty >= 0) {
		/* the program's process group holds its terminal */
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, NULL);
		if (tcsetpgrp(ch->tty, getpid()) < 0) {
			msg_fatal_sys("unable to give the terminal %s to the program", ch->t->slave);
			_exit(EXIT_CHAIN_FAIL);
		}
		for (int i = 0; i < 3; i++)
			if (ch->t->on_slave[i] && dup2(ch->tty, i) < 0)
				_exit(EXIT_CHAIN_FAIL);
		close(ch->tty);
	}
	if (ch->cg && cg_enter(ch->cg, ch->in_v2) < 0) {
		msg_fatal_sys("unable to join the attempt's cgroup");
		_exit(EXIT_CHAIN_FAIL);
	}
	for (int i = 0; i < ch->rl->n; i++)
		if (setrlimit(ch->rl->res[i], &ch->rl->rl[i]) < 0) {
			msg_fatal_sys("unable to set resource limit %d", ch->rl->res[i]);
			_exit(EXIT_CHAIN_FAIL);
		}
	/* the program dies with keeper, even by SIGKILL */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != ch->keeper)
		_exit(EXIT_CHAIN_FAIL);
	if (ch->o->dir && path_enter(ch->o->dir) < 0) {
		msg_fatal_sys("unable to enter %s", ch->o->dir);
		_exit(EXIT_CHAIN_FAIL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	exec_env(ch->o->argv, ch->envp);
	msg_fatal_sys("unable to run %s", ch->o->argv[0]);
	_exit(exec_status(errno));
}

/* cg_spawn's child (sharing keeper's memory till its exec, every signal
 * blocked): chain_main, which execs or exits */
static int
chain_start(void *arg)
{
	chain_main(arg);
}

static int
open_slave(const char *slave)
{
	int fd;

	/* a session of its own, the program's pts its controlling terminal */
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

/* the program stopped (^Z on its terminal): stop as a job would, with the
 * user's terminal as it was, so that the caller (corral) follows; on
 * SIGCONT go on, the terminal raw again (its output only once the program
 * is past its gate: gate_pass) */
static void
job_stop(struct pty *t, pid_t c, int held)
{
	pty_restore(t);
	kill(getpid(), SIGSTOP);
	pty_raw(t, !held);
	pty_winsize(t);
	if (c > 0)
		kill(-c, SIGCONT);
}

struct state {
	pid_t c;			/* the program, 0 once reaped */
	pid_t pg;			/* its process group (its pid) */
	int ws, timed_out, orphaned;
	int gate;			/* --gate's FD till the go byte, or -1 */
	int gate_wr;			/* the program's gate, write end, or -1 */
};

static void
reap(struct state *st, struct pty *t)
{
	pid_t p;
	int ws;

	while ((p = waitpid(-1, &ws, WNOHANG | WUNTRACED)) > 0) {
		if (p != st->c)
			continue;	/* an orphan of the attempt, reaped */
		if (WIFSTOPPED(ws)) {
			job_stop(t, st->c, st->gate >= 0);
			continue;
		}
		st->ws = ws;
		st->c = 0;
	}
}

static void
on_signals(struct state *st, struct pty *t)
{
	unsigned char sigs[64];
	ssize_t n;

	while ((n = read(k_pipe[0], sigs, sizeof sigs)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			int s = sigs[i];
			if (s == SIGWINCH)
				pty_winsize(t);
			else if (s == SIGUSR2) {
				st->orphaned = 1;
				if (st->c > 0)
					kill(-st->pg, SIGKILL);
			} else if (s != SIGCHLD && st->c > 0)
				kill(st->c, s);
		}
	reap(st, t);
}

/* After the user's terminal hung up, SIGHUP to the program, and what is
 * left this much later is killed: the program's own terminal stays open
 * (keeper holds its master), so it would never see the hangup itself
 * (gemini outlived its killed tmux) */
enum { HANGUP_GRACE_MS = 2000 };

/* the poll timeout for what comes first: the wall clock, the end of the
 * grace after a hangup */
static int
next_tmo(int64_t deadline, int64_t hangup)
{
	int64_t now, at = deadline;

	if (hangup && (!at || hangup < at))
		at = hangup;
	if (!at)
		return -1;	/* no clock asked: none is needed */
	now = clock_ms(CLOCK_MONOTONIC);
	return at <= now ? 0 : at - now > 0x7fffffff ? 0x7fffffff : (int)(at - now);
}

/* The caller's gate said something: the go byte (or another, which
 * confine refuses) is passed on, EOF as EOF; the program's time starts,
 * and the user's terminal's output goes raw only now: what the caller or
 * its steps say while the program is held reads as usual there (a newline
 * starts a line). 'r' (confine --gate: the paths it names exist now) is
 * passed on as it comes, the program still held: nothing starts, the
 * gate stays. 1: done, 0: nothing yet. */
static int
gate_pass(struct state *st, struct pty *t)
{
	char c;
	ssize_t n = read(st->gate, &c, 1);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n == 1 && c == 'r') {
		if (st->c > 0)
			(void)fd_write_nopipe(st->gate_wr, &c, 1);
		return 0;
	}
	/* an empty pipe: no wait; none to a program already ended, whose
	 * end came with the byte. One that ended or closed its gate since
	 * (a pipe nobody reads): the write's SIGPIPE is taken here, never
	 * keeper's end (the terminal left raw, the program killed with
	 * it); the program's status says */
	if (n == 1 && st->c > 0) {
		pty_raw(t, 1);
		(void)fd_write_nopipe(st->gate_wr, &c, 1);
	}
	close(st->gate_wr);
	close(st->gate);
	st->gate = st->gate_wr = -1;
	return 1;
}

/* relay and wait until the program has ended; with a gate, the wall clock
 * (wall_ms) starts when keeper passes the go byte on */
static void
wait_loop(struct state *st, struct pty *t, uint64_t wall_ms)
{
	struct pollfd pf[4];
	int64_t hangup = 0, deadline = 0;
	int np, tmo, hung = 0;

	if (wall_ms && st->gate < 0)
		deadline = clock_ms(CLOCK_MONOTONIC) + (int64_t)wall_ms;
	while (st->c > 0) {
		pf[0] = (struct pollfd){ k_pipe[0], POLLIN, 0 };
		np = 1;
		if (st->gate >= 0)
			pf[np++] = (struct pollfd){ st->gate, POLLIN, 0 };
		if (t->master >= 0 && !t->hup)
			pf[np++] = (struct pollfd){ t->master, (short)(POLLIN | (t->blen ? POLLOUT : 0)), 0 };
		if (t->master >= 0 && t->in >= 0 && t->blen == 0 && !t->hup)
			pf[np++] = (struct pollfd){ t->in, POLLIN, 0 };
		if (t->gone && !hung) {
			/* the user's terminal hung up: the attempt ends */
			hung = 1;
			kill(-st->pg, SIGHUP);
			hangup = clock_ms(CLOCK_MONOTONIC) + HANGUP_GRACE_MS;
		}
		tmo = next_tmo(deadline, hangup);
		if (poll(pf, (nfds_t)np, tmo) < 0)
			continue;	/* EINTR: the signal is in the pipe */
		if (deadline && clock_ms(CLOCK_MONOTONIC) >= deadline && st->c > 0) {
			st->timed_out = 1;
			kill(-st->pg, SIGKILL);
			deadline = 0;
		}
		if (hangup && clock_ms(CLOCK_MONOTONIC) >= hangup && st->c > 0) {
			kill(-st->pg, SIGKILL);
			hangup = 0;
		}
		for (int i = 1; i < np; i++) {
			if (pf[i].revents == 0)
				continue;
			if (pf[i].fd == st->gate) {
				/* a signal that came with the byte first: the
				 * program may have ended (keeper, suspended
				 * till its exec, first polls after it: a
				 * program quick to end has, with a byte
				 * already there). Then the clock, then the
				 * byte: the program runs no sooner than its
				 * time starts */
				if (pf[0].revents & POLLIN) {
					on_signals(st, t);
					pf[0].revents = 0;
				}
				int64_t now = wall_ms ? clock_ms(CLOCK_MONOTONIC) : 0;
				if (gate_pass(st, t) && wall_ms)
					deadline = now + (int64_t)wall_ms;
			} else if (pf[i].fd == t->master) {
				if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
					(void)pty_from_agent(t);
				if (pf[i].revents & POLLOUT)
					(void)pty_to_agent(t);
			} else if (pty_fg(t)) {
				(void)pty_to_agent(t);
			} else {
				/* read from the terminal while the job is in the
				 * background: stop, as a read would (SIGTTIN) */
				job_stop(t, 0, st->gate >= 0);
			}
		}
		if (pf[0].revents & POLLIN)
			on_signals(st, t);
	}
}

/* A process group leader (a shell's job run by hand) cannot start a
 * session: keeper goes on in a child, and this process stays the job
 * (jobwait.h). Returns -1 in the child; in the parent, the child's status. */
static int
leave_group(void)
{
	pid_t k;
	int ws;

	if (getpgrp() != getpid() || (k = fork()) == 0)
		return -1;
	if (k < 0)
		return msg_fatal_sys("fork"), EXIT_CHAIN_FAIL;
	ws = job_wait(k);
	return ws < 0 ? EXIT_CHAIN_FAIL : wait_code(ws);
}

static int
signals_install(void)
{
	struct sigaction sa;

	if (pipe2(k_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = k_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof k_sigs / sizeof k_sigs[0]; i++)
		if (sigaction(k_sigs[i], &sa, NULL) < 0)
			return -1;
	return 0;
}

int
keeper_run(const struct keeper_opts *o, char **envp)
{
	/* static, zero from the start (keeper_run runs once a process): its
	 * 4 KB buffer and the filter's are touched only when used, each page
	 * a fault */
	static struct pty t;
	struct limits_rl rl;
	struct state st = { 0 };
	struct chain ch;
	struct cg cg;
	pid_t parent;
	int have_cg = 0, tty = -1, code;
	int gp[2] = { -1, -1 };	/* the program's gate (--gate) */

	st.gate = st.gate_wr = -1;
	cg_init(&cg);
	t.master = t.sfd = t.in = t.out = t.ctty = -1;
	if (gate_check(o) < 0)
		return EXIT_CHAIN_FAIL;
	if ((code = leave_group()) >= 0)
		return code;
	parent = getppid();
	if (signals_install() < 0)
		return msg_fatal_sys("unable to install signal handlers"), EXIT_CHAIN_FAIL;
	/* the attempt ends with keeper's parent (corral), even by SIGKILL */
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0) < 0 || getppid() != parent)
		return msg_fatal("keeper's parent is gone: nothing was started"), EXIT_CHAIN_FAIL;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return msg_fatal_sys("unable to become the attempt's subreaper"), EXIT_CHAIN_FAIL;
	if (o->cgroup && cg_take(&cg, o->cgroup) < 0) {
		msg_fatal_sys("unable to take the cgroup %s", o->cgroup);
		msg_hint("name a cgroup v2 directory whose cgroup.procs you can write");
		return EXIT_CHAIN_FAIL;
	}
	if (limits_apply(&o->lim, &cg, o->cgroup != NULL, &have_cg, &rl) < 0) {
		cg_remove(&cg);
		return EXIT_CHAIN_FAIL;
	}
	if (o->cgroup)
		have_cg = 1;
	if (o->pty && pty_open(&t) < 0) {
		msg_fatal_sys("unable to make a terminal for the program");
		goto fail;
	}
	memcpy(t.esc.allow, o->allow_osc, sizeof t.esc.allow);
	t.esc.nallow = o->nallow_osc;
	if (t.master >= 0 ? (tty = open_slave(t.slave)) < 0 : setsid() < 0) {
		msg_fatal_sys(t.master >= 0 ? "unable to open the program's terminal %s" :
		    "unable to start a session for the program", t.slave);
		goto fail;
	}
	if (o->gate >= 0 && pipe2(gp, O_CLOEXEC) < 0) {
		msg_fatal_sys("unable to make a pipe");
		goto fail;
	}
	/* its output too: with a gate, once the go byte came (gate_pass) */
	pty_raw(&t, o->gate < 0);
	ch = (struct chain){ o, envp, have_cg ? &cg : NULL, 0, &rl, tty, &t, getpid(), gp[0] };
	/* the program is born in the attempt's v2 cgroup where it can be;
	 * keeper waits while the child shares its memory, until its exec */
	st.c = cg_spawn(ch.cg, &ch.in_v2, chain_start, &ch);
	if (st.c < 0) {
		msg_fatal_sys("fork");
		goto fail;
	}
	st.pg = st.c;
	setpgid(st.c, st.c);	/* whichever of the two comes first */
	if (tty >= 0)
		close(tty);
	if (o->pid_fd >= 0) {
		char b[24];
		int n = snprintf(b, sizeof b, "%ld\n", (long)st.c);
		(void)fd_write_all(o->pid_fd, b, (size_t)n);
		close(o->pid_fd);
	}
	if (o->gate >= 0) {
		close(gp[0]);
		st.gate = o->gate;
		st.gate_wr = gp[1];
	}
	wait_loop(&st, &t, o->wall_ms);
	/* every process of the attempt ends, however it detached: the cgroup
	 * whole, the program's process group at once (a fork bomb there
	 * cannot outrun one kill), then what left it, round by round */
	if (have_cg)
		cg_kill(&cg);
	kill(-st.pg, SIGKILL);
	proc_sweep();
	pty_close(&t);
	cg_remove(&cg);
	code = st.timed_out ? EXIT_TIMEOUT : wait_code(st.ws);
	return code;
fail:
	pty_close(&t);
	cg_remove(&cg);
	return EXIT_CHAIN_FAIL;
}
