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

/* Run argv (keeper ... -- env-filter ...) with envp; pid_rd and pid_wr are
 * the pipe of keeper --pid-fd (pid_wr is closed here once keeper has it).
 * 0, or -1 with errno when keeper could not be started. */
int wait_keeper(char *const argv[], char *const envp[], int pid_rd, int pid_wr, struct keeper_result *res);

#endif
