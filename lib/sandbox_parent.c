/* sandbox_parent: with a broker, the calling process stays outside the
 * boundary as the sandboxed program's parent (see sandbox_int.h).
 *
 * Why a parent: the broker reads its callers' memory (process_vm_readv)
 * and takes their sockets (pidfd_getfd), both ptrace-mode attach. Under
 * Yama ptrace_scope 1 (Ubuntu's default, and Docker on such a host, where
 * even root lacks CAP_SYS_PTRACE) only an ancestor may do that, and
 * Yama compares thread-group leaders, so a thread of an ancestor counts.
 * The process that called sb_apply forks; the child goes on to restrict
 * itself and exec the program, the parent keeps its pid and serves:
 *   - it is a child subreaper, so an orphan of the program comes back to
 *     it and stays its descendant for as long as it serves;
 *   - the child has PR_SET_PDEATHSIG(SIGKILL): the program never outlives
 *     its broker (its brokered calls would fail);
 *   - a signal sent to the parent by kill(), sigqueue() or tgkill()
 *     (corral forwards SIGTERM, SIGINT, SIGHUP to the chain's pid, which
 *     is this one) is passed on to the child; one the kernel sends
 *     (SI_KERNEL: ^C on the terminal reaches the whole foreground
 *     process group, the child too) is not, so it is not doubled;
 *   - terminal stops (SIGTSTP, SIGTTIN, SIGTTOU) are ignored; when the
 *     child stops the parent stops itself, so the shell or corral above
 *     sees a stopped job, and on SIGCONT it continues the child;
 *   - when the child ends the parent ends as it did: its exit status, or
 *     its terminating signal raised again (default action, no core), so
 *     whoever waits for this pid sees the same wait status;
 *   - it takes the listener itself and starts the serving thread only
 *     once a request waits on it: a program that makes none (/bin/true,
 *     most commands of a session) ends with no thread made and ended.
 * It keeps no descriptor but the broker's (stdin, stdout and stderr are
 * /dev/null), no_new_privs, and only CAP_SYS_PTRACE. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "fdio.h"
#include "sandbox_int.h"
#include "status.h"

static volatile pid_t sp_child;

static const int sp_fwd[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH,
	SIGCONT };

static void
sp_forward(int sig, siginfo_t *si, void *uc)
{
	int e = errno;

	(void)uc;
	/* SI_USER: kill(); SI_QUEUE: sigqueue(); SI_TKILL: tgkill(). The
	 * kernel's own (SI_KERNEL from the terminal) reached the group. */
	if ((si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL) &&
	    sp_child > 0)
		kill(sp_child, sig);
	errno = e;
}

pid_t
sb_split(sigset_t *saved, struct sb_error *e)
{
	sigset_t all;
	pid_t parent = getpid(), pid;
	int err;

	/* no signal is handled until the parent's handlers are in place */
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, saved) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "sigprocmask: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		err = errno;
		sigprocmask(SIG_SETMASK, saved, NULL);
		return sb_fail(e, SB_E_SYS, err, NULL, "unable to start the seccomp broker: fork: %s",
		    strerror(err));
	}
	if (pid > 0)
		return pid;
	/* the child: the program to be; it dies with its broker */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) {
		sigprocmask(SIG_SETMASK, saved, NULL);
		return sb_fail(e, SB_E_SYS, ESRCH, NULL,
		    "the seccomp broker ended before the program started");
	}
	sigprocmask(SIG_SETMASK, saved, NULL);
	return 0;
}

/* Tell corral's denials reader (supervisor/denials.c) which pid creates
 * the Landlock domain: the kernel stamps the record with our pid, which
 * the agent cannot forge (it holds no CAP_AUDIT_WRITE). Root only; best
 * effort (without it corral names no denial of the attempt). */
static void
sp_audit_child(pid_t child)
{
	struct { struct nlmsghdr h; char text[64]; } m;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 9 /* NETLINK_AUDIT */);

	if (fd < 0)
		return;
	memset(&m, 0, sizeof m);
	snprintf(m.text, sizeof m.text, "corral-confine-child child=%d", (int)child);
	m.h.nlmsg_len = NLMSG_LENGTH(strlen(m.text) + 1);
	m.h.nlmsg_type = 1005;	/* AUDIT_USER */
	m.h.nlmsg_flags = NLM_F_REQUEST;
	(void)send(fd, &m, m.h.nlmsg_len, MSG_NOSIGNAL);
	close(fd);
}

/* End as the child did. */
static void __attribute__((noreturn))
sp_end_as(int ws)
{
	static const struct rlimit zero;
	struct sigaction sa;
	sigset_t one;
	int sig;

	if (WIFEXITED(ws))
		_exit(WEXITSTATUS(ws));
	if (!WIFSIGNALED(ws))
		_exit(EXIT_CHAIN_FAIL);
	sig = WTERMSIG(ws);
	(void)setrlimit(RLIMIT_CORE, &zero);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	/* to the process: every thread dies with it */
	kill(getpid(), sig);
	_exit(128 + sig);
}

/* A wait status of a child: an orphan of the program was reaped, or the
 * program stopped (so do we, until continued): 0; it ended: 1. */
static int
sp_status(pid_t child, pid_t w, int ws)
{
	if (w != child)
		return 0;	/* an orphan of the program, reaped */
	if (WIFSTOPPED(ws)) {
		/* a job stopped: so are we, until continued */
		kill(getpid(), SIGSTOP);
		kill(child, SIGCONT);
		return 0;
	}
	sp_child = 0;	/* reaped: its pid may be reused */
	return 1;
}

/* Wait for the child (reaping orphans meanwhile): how it ended. */
static int
sp_wait(pid_t child)
{
	int ws;
	pid_t w;

	for (;;) {
		w = waitpid(-1, &ws, WUNTRACED);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			_exit(EXIT_CHAIN_FAIL);
		if (sp_status(child, w, ws))
			return ws;
	}
}

static void
sp_chld(int sig)
{
	(void)sig;	/* only to end ppoll's wait (SIG_DFL would not) */
}

/* Until the first request: 1 when one waits on the listener, 0 when no
 * caller is left, -1 when the child ended (how: *ws). Meanwhile as
 * sp_wait: signals are handled (unblocked in ppoll only, every one
 * blocked between), a child's change of state is dealt with. The program
 * may end before any request (most commands of a session make none,
 * /bin/true): then no serving thread is made and ended (some 40 us). */
static int
sp_until_request(pid_t child, int nfd, int *ws)
{
	struct pollfd pfd = { .fd = nfd, .events = POLLIN };
	sigset_t none;
	pid_t w;

	sigemptyset(&none);
	for (;;) {
		while ((w = waitpid(-1, ws, WNOHANG | WUNTRACED)) > 0)
			if (sp_status(child, w, *ws))
				return -1;
		if (w < 0 && errno != ECHILD && errno != EINTR)
			_exit(EXIT_CHAIN_FAIL);
		if (ppoll(&pfd, 1, NULL, &none) < 0) {
			if (errno == EINTR)
				continue;
			_exit(EXIT_CHAIN_FAIL);
		}
		if (pfd.revents & POLLIN)
			return 1;
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			return 0;
	}
}

void
sb_parent_run(pid_t child, int flags, const int *keep, size_t nkeep,
    int (*take)(void *), void *(*serve)(void *), void *arg)
{
	struct sigaction sa;
	pthread_attr_t at;
	pthread_t th;
	sigset_t none;
	size_t i;
	int null, nfd, ws, r = 0;

	sp_child = child;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = sp_forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	for (i = 0; i < sizeof sp_fwd / sizeof sp_fwd[0]; i++)
		sigaction(sp_fwd[i], &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGTSTP, &sa, NULL);
	sigaction(SIGTTIN, &sa, NULL);
	sigaction(SIGTTOU, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = sp_chld;
	sigaction(SIGCHLD, &sa, NULL);
	if (flags & SB_PARENT_NAMED)
		sp_audit_child(child);
	null = openat(AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 ||
	    fd_close_from(3, keep, nkeep) != 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || sb_broker_caps() != 0)
		goto fail;
	if (flags & SB_PARENT_INLINE) {
		/* one process making one call at a time (sb_policy.serial,
		 * probe's child): served from this thread until no caller is
		 * left, every signal blocked as in a serving thread, then
		 * waited for; no thread made and ended (some 40 us) */
		(void)serve(arg);
	} else if ((nfd = take(arg)) >= 0 && (r = sp_until_request(child, nfd, &ws)) > 0) {
		/* the serving threads keep every signal blocked (made with all
		 * of them blocked here): handled in this one */
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &at, serve, arg) != 0)
			goto fail;
	}
	if (r >= 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		ws = sp_wait(child);
	}
	sp_end_as(ws);
fail:
	/* the child must not run on without its broker */
	kill(child, SIGKILL);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	_exit(EXIT_CHAIN_FAIL);
}
