/* jobwait: wait for a child as a shell waits for its job. The signals a
 * terminal or a user sends (INT, TERM, HUP, QUIT, WINCH) are handed on to
 * it while it runs; when it stops, the caller stops too (so its own
 * parent, a shell, sees the job stopped), and continues it when continued.
 * corral waits for keeper this way, and keeper for itself when it had to
 * leave a process group it led. */
#ifndef CORRAL_JOBWAIT_H
#define CORRAL_JOBWAIT_H
#include <sys/types.h>

/* The child's wait status once it has ended (the former handlers back);
 * -1 with errno when waitpid failed otherwise. */
int job_wait(pid_t child);

/* The same for a caller that catches INT, TERM, HUP, QUIT and WINCH
 * itself all along (through spawn_sigaction; SA_RESTART and an empty mask,
 * as job_wait's), its handler calling job_forward first: no handlers put
 * in and taken back out around the wait (10 rt_sigaction calls). */
int job_wait_caught(pid_t child);
/* From such a handler: sig handed to the child job_wait_caught (or
 * job_wait) waits for, 1; 0 when none is waited for (the signal is the
 * caller's). errno kept. */
int job_forward(int sig);

#endif
