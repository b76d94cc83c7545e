/* wait: corral run's wait step. Start keeper, the chain's first program
 * (keeper(1): the attempt's cgroup, limits, the agent's terminal and its
 * relay, the end of every process), hand it the signals corral gets, follow
 * it as a job when ^Z stops it, and return when it has exited: every
 * process of the attempt has ended then. */
#ifndef CORRAL_WAIT_H
#define CORRAL_WAIT_H
#include <sys/types.h>

struct keeper_result {
	int ws;				/* keeper's wait status (the agent's status,
					   124 on the wall clock) */
	pid_t chain;			/* the chain's pid (env-filter, then the agent),
					   as keeper --pid-fd wrote it; -1 when none */
};

/* Start argv (keeper ... -- env-filter ... -- confine ... --gate N ...)
 * with envp; pid_wr is the write end of keeper --pid-fd's pipe, gate_rd
 * the read end of confine --gate's (-1: none), both close-on-exec in
 * corral (the child alone clears the flag), both closed here once keeper
 * has them. keeper's pid, or -1 with errno. */
pid_t keeper_start(char *const argv[], char *const envp[], int pid_wr, int gate_rd);

/* Hand it the signals corral gets, follow it as a job when ^Z stops it,
 * and return when it has exited: every process of the attempt has ended
 * then. pid_rd: keeper --pid-fd's read end. 0. */
int keeper_wait(pid_t k, int pid_rd, struct keeper_result *res);

#endif
