/* wait: see wait.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "execenv.h"
#include "jobwait.h"
#include "msg.h"
#include "procspawn.h"
#include "proctree.h"
#include "wait.h"

static pid_t
chain_pid(int fd)
{
	char b[24];
	ssize_t n = read(fd, b, sizeof b - 1);
	long v;

	if (n <= 0)
		return -1;
	b[n] = '\0';
	v = strtol(b, NULL, 10);
	return v > 0 ? (pid_t)v : -1;
}

/* keeper is started as lib/procspawn starts the other steps (spawn_clone): a
 * clone(CLONE_VM | CLONE_VFORK) child on a stack of its own, corral
 * suspended till it execs, not a fork(2) (a copy of corral's page tables,
 * then copy-on-write faults in corral while keeper sets up). Unlike the
 * other steps it keeps corral's descriptors that are not close-on-exec
 * (the chain's --refusals, --listeners, the environment) and its standard
 * ones (the user's terminal). */

struct kstart {
	char *const *argv, *const *envp;
	int pid_wr, gate_rd;
	sigset_t mask;			/* corral's, before all were blocked */
};

static int
kstart_main(void *arg)
{
	const struct kstart *k = arg;

	/* keeper sets up its own handlers: the defaults till then (corral's
	 * would only note a signal for itself, in corral's memory); the
	 * kernel's struct sigaction, all zero: SIG_DFL, no flags, empty mask */
	spawn_child_defaults();
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &k->mask, NULL, 8);
	/* keeper --pid-fd's write end and --gate's (or confine --gate's)
	 * read end, for the chain only: no other step of corral's inherits
	 * them (close-on-exec in corral) */
	if (fcntl(k->pid_wr, F_SETFD, 0) < 0 || (k->gate_rd >= 0 && fcntl(k->gate_rd, F_SETFD, 0) < 0))
		_exit(EXIT_CHAIN_FAIL);
	execve(k->argv[0], k->argv, k->envp);
	msg_fatal_sys("unable to run %s", k->argv[0]);	/* one write(2), stack only */
	_exit(exec_status(errno));
}

pid_t
keeper_start(char *const argv[], char *const envp[], int pid_wr, int gate_rd)
{
	struct kstart k = { argv, envp, pid_wr, gate_rd, { { 0 } } };
	pid_t pid = spawn_clone(kstart_main, &k, &k.mask);
	int e = errno;

	close(pid_wr);
	if (gate_rd >= 0)
		close(gate_rd);
	if (pid < 0)
		errno = e;
	return pid;
}

int
keeper_wait(pid_t k, int pid_rd, struct keeper_result *res)
{
	int ws;

	memset(res, 0, sizeof *res);
	res->chain = -1;
	/* INT, TERM, HUP, QUIT: keeper hands them to the agent; WINCH: keeper
	 * left corral's process group (a session of its own), so a terminal's
	 * window change reaches it through corral; ^Z: corral stops as a job.
	 * corral's own handlers (run.c: on_signal) hand them on: none put in
	 * and taken out here */
	ws = job_wait_caught(k);
	res->ws = ws < 0 ? 0 : ws;
	res->chain = chain_pid(pid_rd);
	/* keeper killed before it ended the attempt: what it left is
	 * reparented to corral (a subreaper too); end it here */
	if (ws >= 0 && WIFSIGNALED(ws))
		proc_sweep();
	return 0;
}
