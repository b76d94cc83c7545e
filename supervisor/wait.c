/* wait: see wait.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "execenv.h"
#include "jobwait.h"
#include "msg.h"
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

pid_t
keeper_start(char *const argv[], char *const envp[], int pid_wr, int gate_rd)
{
	pid_t k;

	k = fork();
	if (k == 0) {
		/* keeper sets up its own handlers: the defaults till then
		 * (corral's would only note a signal for itself) */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGWINCH, SIG_DFL);
		/* keeper --pid-fd's write end and confine --gate's read
		 * end, for the chain only: no other step of corral's
		 * inherits them (close-on-exec in corral) */
		if (fcntl(pid_wr, F_SETFD, 0) < 0 || (gate_rd >= 0 && fcntl(gate_rd, F_SETFD, 0) < 0))
			_exit(EXIT_CHAIN_FAIL);
		execve(argv[0], argv, envp);
		msg_fatal_sys("unable to run %s", argv[0]);
		_exit(exec_status(errno));
	}
	close(pid_wr);
	if (gate_rd >= 0)
		close(gate_rd);
	return k;
}

int
keeper_wait(pid_t k, int pid_rd, struct keeper_result *res)
{
	int ws;

	memset(res, 0, sizeof *res);
	res->chain = -1;
	/* INT, TERM, HUP, QUIT: keeper hands them to the agent; WINCH: keeper
	 * left corral's process group (a session of its own), so a terminal's
	 * window change reaches it through corral; ^Z: corral stops as a job */
	ws = job_wait(k);
	res->ws = ws < 0 ? 0 : ws;
	res->chain = chain_pid(pid_rd);
	/* keeper killed before it ended the attempt: what it left is
	 * reparented to corral (a subreaper too); end it here */
	if (ws >= 0 && WIFSIGNALED(ws))
		proc_sweep();
	return 0;
}
