/* proctree: end every descendant of the calling process.
 *
 * The caller is a child subreaper (PR_SET_CHILD_SUBREAPER), so whatever
 * its descendants started comes back to it as their parents end: a
 * setsid, a double fork, a browser that re-parents its helpers. Used by
 * keeper (the attempt's tree), corral (what a killed keeper left),
 * mcp-proxy's launcher (the upstream's tree, a browser's included) and
 * sandbox-mcp (what a killed keeper left). */
#ifndef CORRAL_PROCTREE_H
#define CORRAL_PROCTREE_H
#include <sys/types.h>

/* SIGKILL every pid listed (whitespace-separated) in what fd reads: a
 * children file, a cgroup.procs. How many were killed. */
int proc_kill_listed(int fd);
/* SIGKILL every child of this process (/proc/self/task/TID/children when
 * the kernel has it, else a scan of /proc). How many were killed. */
int proc_kill_children(void);
/* Kill and reap every descendant, round by round, until no child is left
 * but those kept. Never a blocking wait: a child re-parented after a
 * round's kill would hold it forever. */
void proc_sweep(void);
/* A step of the caller's own, started beside what a sweep ends (corral's
 * runfiles watch and home-stage finish, which wait for their go byte),
 * that proc_sweep and proc_kill_children leave alone and unreaped until
 * unkept (at most 8): 0, or -1 ENOSPC. */
int proc_sweep_keep(pid_t pid);
void proc_sweep_unkeep(pid_t pid);

#endif
