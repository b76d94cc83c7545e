/* procspawn: a child of spawn_clone that calls spawn_child_defaults runs
 * none of its parent's handlers: every signal the parent caught through
 * spawn_sigaction is back to its default, an ignored one stays ignored.
 * Each child blocks a signal it sends itself, resets, then unblocks: a
 * default disposition kills it with that signal, a handler still in place
 * runs (it exits 42), an ignored one lets it exit 0.
 * Control: a handler put in with sigaction(2) alone is not known, and the
 * child runs it. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procspawn.h"
#include "tap.h"

static void
handler(int sig)
{
	(void)sig;
	_exit(42);	/* in the child: the parent's handler ran there */
}

struct self {
	int sig;
	sigset_t mask;	/* the parent's, before spawn_clone blocked all */
	int fd;		/* the disposition the child saw after the reset, written
			 * here: the sanitizer build forks (no memory shared) */
};

/* raw system calls: the child shares the parent's memory (and TLS) */
static int
child(void *arg)
{
	struct self *s = arg;
	unsigned long old[4] = { 0 };

	spawn_child_defaults();
	syscall(SYS_rt_sigaction, s->sig, NULL, old, 8);
	syscall(SYS_write, s->fd, &old[0], sizeof old[0]);
	syscall(SYS_kill, syscall(SYS_getpid), s->sig);	/* pending: all blocked */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &s->mask, NULL, 8);
	return 0;
}

/* the child's wait status */
static int
spawn_self(int sig, unsigned long *disp)
{
	static struct self s;
	pid_t pid;
	int ws, p[2];

	memset(&s, 0, sizeof s);
	s.sig = sig;
	*disp = 99;
	if (pipe(p) < 0)
		return -1;
	s.fd = p[1];
	pid = spawn_clone(child, &s, &s.mask);
	close(p[1]);
	while (pid > 0 && waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			pid = -1;
	if (pid < 0 || read(p[0], disp, sizeof *disp) != (ssize_t)sizeof *disp)
		*disp = 99;
	close(p[0]);
	return pid < 0 ? -1 : ws;
}

static void
catch(int sig, int registered)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (registered)
		ok(spawn_sigaction(sig, &sa, NULL) == 0, "signal %d caught (spawn_sigaction)", sig);
	else
		ok(sigaction(sig, &sa, NULL) == 0, "signal %d caught (sigaction alone)", sig);
}

static void
set(int sig, void (*h)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigemptyset(&sa.sa_mask);
	ok(spawn_sigaction(sig, &sa, NULL) == 0, "signal %d set to %s", sig, h == SIG_IGN ? "SIG_IGN" : "SIG_DFL");
}

int
main(void)
{
	const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGRTMIN + 3 };
	unsigned long disp;
	int ws;

	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
		catch(caught[i], 1);
		ws = spawn_self(caught[i], &disp);
		ok(ws != -1 && WIFSIGNALED(ws) && WTERMSIG(ws) == caught[i],
		    "caught signal %d: back to its default in the child, which it kills (status %#x)", caught[i], ws);
		is_int(disp, (unsigned long)SIG_DFL, "caught signal %d: SIG_DFL in the child", caught[i]);
	}

	/* caught, then ignored: ignored in the child too (not reset) */
	catch(SIGUSR2, 1);
	set(SIGUSR2, SIG_IGN);
	ws = spawn_self(SIGUSR2, &disp);
	ok(ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "caught, then ignored: still ignored in the child (status %#x)", ws);
	is_int(disp, (unsigned long)SIG_IGN, "caught, then ignored: SIG_IGN in the child");

	/* caught, then back to default (job_wait's restore): default */
	catch(SIGPIPE, 1);
	set(SIGPIPE, SIG_DFL);
	ws = spawn_self(SIGPIPE, &disp);
	ok(ws != -1 && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGPIPE, "caught, then default: default in the child (status %#x)", ws);

	/* the parent's handlers still in place */
	{
		struct sigaction cur;
		ok(sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler == handler, "the parent keeps its handler");
	}

	/* control: a handler the registry never saw is not reset, and runs
	 * in the child (the failure spawn_sigaction exists to prevent) */
	catch(SIGALRM, 0);
	ws = spawn_self(SIGALRM, &disp);
	ok(ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 42,
	    "control: caught by sigaction alone: the parent's handler ran in the child (status %#x)", ws);
	ok(disp == (unsigned long)(uintptr_t)handler, "control: the child still held the parent's handler");
	return done_testing();
}
