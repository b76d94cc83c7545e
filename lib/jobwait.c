/* jobwait: see jobwait.h. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobwait.h"
#include "procspawn.h"

static volatile sig_atomic_t jw_child;

static const int jw_fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH };

int
job_forward(int sig)
{
	int e = errno;

	if (jw_child <= 0)
		return 0;
	kill((pid_t)jw_child, sig);
	errno = e;
	return 1;
}

static void
jw_on_signal(int sig)
{
	(void)job_forward(sig);
}

static int
jw_loop(pid_t child)
{
	int ws = 0, r = 0;
	pid_t p;

	jw_child = child;
	for (;;) {
		p = waitpid(child, &ws, WUNTRACED);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0) {
			r = -1;
			break;
		}
		if (!WIFSTOPPED(ws))
			break;
		kill(getpid(), SIGSTOP);
		kill(child, SIGCONT);
	}
	jw_child = 0;
	return r < 0 ? -1 : ws;
}

int
job_wait(pid_t child)
{
	struct sigaction sa, old[sizeof jw_fwd / sizeof jw_fwd[0]];
	int ws, e;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = jw_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof jw_fwd / sizeof jw_fwd[0]; i++)
		spawn_sigaction(jw_fwd[i], &sa, &old[i]);
	ws = jw_loop(child);
	e = errno;
	for (size_t i = 0; i < sizeof jw_fwd / sizeof jw_fwd[0]; i++)
		spawn_sigaction(jw_fwd[i], &old[i], NULL);
	errno = e;
	return ws;
}

int
job_wait_caught(pid_t child)
{
	return jw_loop(child);
}
