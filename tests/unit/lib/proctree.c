/* proctree: proc_sweep ends every child of the caller (and what they left,
 * reparented to it as a subreaper) but those kept (proc_sweep_keep), which
 * it leaves running and unreaped: their starter collects their status.
 * Control: the same child not kept is killed. */
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctree.h"
#include "tap.h"

/* a child that waits for its input to end, then exits 7 */
static pid_t
waiter(int *wr)
{
	int p[2];
	char b;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		close(p[1]);
		while (read(p[0], &b, 1) > 0)
			;
		_exit(7);
	}
	close(p[0]);
	*wr = p[1];
	return pid;
}

/* a child that leaves a grandchild (setsid, double fork) and exits:
 * the grandchild is reparented here */
static pid_t
leaver(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (fork() == 0) {
			setsid();
			for (;;)
				pause();
		}
		_exit(0);
	}
	return pid;
}

static int
alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

/* this process's children, as /proc lists them ("" none; "?" unreadable) */
static const char *
children(void)
{
	static char b[256];
	FILE *f = fopen("/proc/thread-self/children", "r");
	size_t n;

	if (f == NULL)
		return "?";
	n = fread(b, 1, sizeof b - 1, f);
	fclose(f);
	b[n] = '\0';
	while (n > 0 && b[n - 1] == ' ')
		b[--n] = '\0';
	return b;
}

int
main(void)
{
	int wr, wr2, ws;
	pid_t k, n;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		diag("no subreaper");
		return 1;
	}
	/* kept: running, unreaped, its status its starter's */
	k = waiter(&wr);
	is_int(proc_sweep_keep(k), 0, "keep the waiting child");
	n = waiter(&wr2);
	(void)leaver();
	(void)leaver();
	{
		struct timespec t = { 0, 50000000 };
		nanosleep(&t, NULL);	/* the grandchildren reparented */
	}
	proc_sweep();
	ok(alive(k), "the kept child still runs after the sweep");
	is_int(waitpid(n, &ws, WNOHANG), -1, "the other child was killed and reaped");
	{
		char want[32];
		snprintf(want, sizeof want, "%d", (int)k);
		is_str(children(), want, "no child left but the kept one (the grandchildren reparented here ended too)");
	}
	close(wr);
	close(wr2);
	is_int(waitpid(k, &ws, 0), k, "the kept child is reaped by its starter");
	ok(WIFEXITED(ws) && WEXITSTATUS(ws) == 7, "... with its own status (7)");
	proc_sweep_unkeep(k);

	/* control: the same child, not kept, is killed */
	k = waiter(&wr);
	proc_sweep();
	is_int(waitpid(k, &ws, WNOHANG), -1, "control: not kept, it is killed and reaped by the sweep");
	close(wr);
	is_int(proc_sweep_keep(0), 0, "keep: pid 0 is nothing to keep");
	for (int i = 0; i < 8; i++)
		(void)proc_sweep_keep(1000000 + i);
	is_int(proc_sweep_keep(2000000), -1, "keep: at most 8");
	return done_testing();
}
