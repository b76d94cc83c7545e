#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "fdio.h"
#include "procspawn.h"

/*
 * Speed. On a virtual machine fork(2) costs about a millisecond (a copy of
 * the address space, page by page); a clone(CLONE_VM | CLONE_VFORK) child
 * shares corral's memory and runs on a stack of its own while corral is
 * suspended until it execs or exits, which is what posix_spawn does. The
 * child has its own descriptor table and signal dispositions: it starts
 * with every signal blocked, puts the caught ones back to default (what
 * exec would do), and only then unblocks. ASan keeps per-thread state a
 * CLONE_VM child would corrupt: the sanitizer build forks.
 */
#define SPAWN_FORK CORRAL_ASAN

/* The signals this process catches, bit sig-1 (spawn_sigaction): what a
 * child resets, so that it need not ask the kernel for every signal's
 * disposition (31 rt_sigaction calls, corral suspended meanwhile). Set
 * before a handler goes in, cleared after it is gone: a child started in
 * between resets one more than needed, never one fewer. */
static volatile uint64_t spawn_caught;

int
spawn_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	uint64_t bit = sig >= 1 && sig <= 64 ? (uint64_t)1 << (sig - 1) : 0, was = spawn_caught & bit;
	int catches = sa && sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN, r, e;

	if (catches)
		spawn_caught |= bit;
	r = sigaction(sig, sa, old);
	e = errno;
	if (r == 0 && sa && !catches)
		spawn_caught &= ~bit;
	else if (r < 0 && !was)
		spawn_caught &= ~bit;
	errno = e;
	return r;
}

void
spawn_child_defaults(void)
{
	/* the kernel's struct sigaction: the handler comes first; all zero
	 * is SIG_DFL with no flags and an empty mask. One that is ignored
	 * stays ignored, as across exec. */
	static const unsigned long ka[4] = { 0 };
	uint64_t m = spawn_caught;

	for (int sig = 1; m; sig++, m >>= 1)
		if (m & 1)
			syscall(SYS_rt_sigaction, sig, ka, NULL, 8);
}

pid_t
spawn_clone(int (*fn)(void *), void *arg, sigset_t *mask)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	sigset_t all;
	pid_t pid;
	int e;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, mask);
	if (SPAWN_FORK) {
		pid = fork();
		if (pid == 0)
			_exit(fn(arg));
	} else {
		pid = clone(fn, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, arg);
	}
	e = errno;
	sigprocmask(SIG_SETMASK, mask, NULL);
	errno = e;
	return pid;
}

struct kid {
	char *const *argv, *const *envp;
	int flags, wfd;
	pid_t parent;
	int rfd;	/* stdin (-1: /dev/null) */
	int fd3;	/* descriptor 3 (-1: none) */
};

static int
kid_main(void *arg)
{
	const struct kid *k = arg;
	sigset_t none;
	int nul;

	spawn_child_defaults();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* /dev/null by openat: musl's open adds an fcntl for O_CLOEXEC */
	if (k->rfd >= 0) {
		if (dup2(k->rfd, 0) < 0)
			_exit(125);
	} else if ((nul = openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC)) < 0 || dup2(nul, 0) < 0)
		_exit(125);
	if ((k->flags & SPAWN_CAPTURE) && dup2(k->wfd, 1) < 0)
		_exit(125);
	if (k->flags & SPAWN_DEATHSIG) {
		/* armed, then checked: corral may have died before */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0 || getppid() != k->parent)
			_exit(125);
	}
	if (k->fd3 >= 0 && k->fd3 != 3 && dup2(k->fd3, 3) < 0)
		_exit(125);
	fd_close_from(k->fd3 >= 0 ? 4 : 3, NULL, 0);
	execve(k->argv[0], k->argv, k->envp);
	_exit(errno == ENOENT ? 127 : 126);
}

static int
start(char *const argv[], char *const envp[], int flags, int in, int out, int fd3, struct spawned *sp)
{
	struct kid k = { argv, envp, flags | (out >= 0 ? SPAWN_CAPTURE : 0), out, getpid(), in, -1 };
	int capture = out < 0 && (flags & SPAWN_CAPTURE);
	sigset_t old;
	int p[2] = { -1, -1 }, e;
	pid_t pid;

	sp->pid = -1;
	sp->out = -1;
	k.fd3 = fd3;
	if (capture && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if (capture)
		k.wfd = p[1];
	pid = spawn_clone(kid_main, &k, &old);
	e = errno;
	if (pid < 0) {
		if (capture)
			close(p[0]), close(p[1]);
		return errno = e, -1;
	}
	if (capture) {
		close(p[1]);
		sp->out = p[0];
	}
	sp->pid = pid;
	return 0;
}

int
spawn_start(char *const argv[], char *const envp[], int flags, struct spawned *sp)
{
	return start(argv, envp, flags, -1, -1, -1, sp);
}

int
spawn_start_io(char *const argv[], char *const envp[], int in, int out, struct spawned *sp)
{
	return start(argv, envp, 0, in, out, -1, sp);
}

int
spawn_start_in(char *const argv[], char *const envp[], int in, int flags, struct spawned *sp)
{
	return start(argv, envp, flags, in, -1, -1, sp);
}

int
spawn_start_fd3(char *const argv[], char *const envp[], int in, int fd3, struct spawned *sp)
{
	return start(argv, envp, 0, in, -1, fd3, sp);
}

int
spawn_collect(struct spawned *sp, char *out, size_t outn)
{
	size_t got = 0;
	ssize_t n;
	char junk[512];
	int ws;

	if (sp->out >= 0) {
		for (;;) {
			if (out && got + 1 < outn)
				n = read(sp->out, out + got, outn - 1 - got);
			else
				n = read(sp->out, junk, sizeof junk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (out && got + 1 < outn)
				got += (size_t)n;
		}
		close(sp->out);
		sp->out = -1;
	}
	if (out && outn)
		out[got] = '\0';
	while (waitpid(sp->pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	return ws;
}

int
spawn_wait(char *const argv[], char *const envp[], char *out, size_t outn)
{
	struct spawned sp;

	if (spawn_start(argv, envp, out != NULL, &sp) < 0)
		return -1;
	return spawn_collect(&sp, out, outn);
}
