/* sweep: the attempt's keeper. corral forks it outside the boundary; it
 * becomes a child subreaper, starts the chain as its child, and when the
 * chain's first process has ended (or the wall-clock limit passed, or
 * corral died: a parent-death signal) it ends every process of the attempt:
 * cgroup.kill where the attempt has a cgroup, then SIGKILL to every child
 * and reap, round after round, until it has no child left. An orphan of the
 * attempt, however it detached (setsid, double fork), is reparented to the
 * keeper, so none outlives it. The keeper reports the chain's wait status
 * on a pipe, then exits.
 *
 * On a pty (pty.c) the keeper is the session leader of the agent's
 * terminal, and the chain its foreground process group: ^Z stops the chain,
 * the keeper stops itself, corral sees that and stops as a job. */
#ifndef CORRAL_SWEEP_H
#define CORRAL_SWEEP_H
#include <sys/resource.h>
#include <sys/types.h>

#include "cgroup.h"

enum { KEEPER_MAX_RLIM = 8 };

struct keeper_args {
	char *const *argv;		/* the chain (argv[0] absolute) */
	char *const *envp;
	const char *dir;		/* the chain starts here when not "" (the
					   agent's own checkout, gitstep.c) */
	const struct cg *cg;		/* the attempt's cgroups, or NULL */
	int nrl;
	int rl_res[KEEPER_MAX_RLIM];	/* setrlimit in the chain before exec */
	struct rlimit rl[KEEPER_MAX_RLIM];
	unsigned wall;			/* wall-clock seconds, 0: none */
	const char *slave;		/* the agent's pts, or NULL */
	int on_slave[3];		/* 1: that standard fd becomes the pts */
	int close_fd[2];		/* corral's pty master and its own pts fd (-1) */
};

struct keeper_result {
	int ws;				/* the chain's wait status */
	int timed_out;			/* the wall-clock limit ended it */
	int orphaned;			/* corral died */
	pid_t chain;			/* the chain's pid (env-filter, then the agent) */
};

/* Fork the keeper; it reports on *report (the read end of a pipe, O_CLOEXEC).
 * Returns its pid, or -1 with errno. */
pid_t keeper_start(const struct keeper_args *ka, int *report);
/* Read the keeper's report after it exited. -1 when it gave none. */
int keeper_result_read(int fd, struct keeper_result *r);
/* Kill and reap every child of the calling process, round after round,
 * until none is left (corral calls it too when the keeper itself died). */
void sweep_children(void);
/* SIGKILL every pid listed (whitespace-separated) in what fd reads;
 * how many were killed. Used for children files and cgroup.procs. */
int kill_listed_fd(int fd);

#endif
