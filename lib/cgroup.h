/* cgroup: a control group per attempt, so that every process of it can be
 * ended at once however it detached, and so that memory and process limits
 * hold for the attempt as a whole (keeper makes it, or takes one it is
 * given; corral ends what a killed keeper left).
 *
 * Where: cgroup v2 beneath the caller's own cgroup (a delegated user subtree,
 * or the unified hierarchy, e.g. /sys/fs/cgroup/unified beside v1), found
 * through /proc/self/cgroup and /proc/self/mountinfo. The cgroup v1 memory
 * and pids controllers carry the limits where v2 does not offer them. Each
 * cgroup is named corral-PID-START-PIDNS (its maker's pid and start time,
 * and the pid namespace they are from), and its maker holds a lock (flock)
 * on it for as long as it runs, so that the next run can tell a dead
 * maker's cgroups and end what is in them: by the lock, whatever pid
 * namespace the maker ran in (a keeper under unshare -p or in a container
 * names a pid that, outside, is no one's or another process's). A name
 * without PIDNS (made before it was named) is left alone by a corral run
 * before the lock (it parses no such name).
 * Nothing here exits; every function returns -1 with errno on failure. */
#ifndef CORRAL_CGROUP_H
#define CORRAL_CGROUP_H
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

enum cg_kind { CG_V2, CG_MEM1, CG_PIDS1, CG_NKIND };

/* small: no path of PATH_MAX in it (cg_path), so that keeper's stack is a
 * few pages (each page a fault; -fstack-clash-protection touches every
 * page of a large frame) */
struct cg {
	int dir[CG_NKIND];		/* the attempt's cgroup, or -1 */
	int procs[CG_NKIND];		/* its cgroup.procs, open for writing (or -1) */
	int kill;			/* the v2 one's cgroup.kill, open for writing
					   (-1: none, or a kernel before 5.14) */
	int v2mem, v2pids;		/* the v2 cgroup has these controllers */
	unsigned made;			/* bit k: made here, cg_remove removes it */
	char name[64];
};

/* What this machine offers to this user: each base path ("" when none) and
 * whether a cgroup could really be made there (tried: mkdir, rmdir). */
struct cg_caps {
	char base[CG_NKIND][PATH_MAX];
	int ok[CG_NKIND];
	int v2mem, v2pids;		/* v2 offers these controllers to a child */
};

void cg_init(struct cg *cg);
/* The path of the cgroup of kind k made here, into buf; "" when none was
 * made (or it does not fit). Returns buf. */
const char *cg_path(const struct cg *cg, enum cg_kind k, char *buf, size_t n);
/* Try each hierarchy (mkdir a probe cgroup and remove it). */
void cg_caps_probe(struct cg_caps *c);
/* Make the attempt's cgroups: v2 when possible, v1 memory when want_mem and
 * v2 has no memory controller, v1 pids when want_pids likewise (or when no
 * v2 cgroup could be made: membership for the kill). Returns the number of
 * cgroups made (0: none could be), -1 on an error other than "not here". */
int cg_create(struct cg *cg, int want_mem, int want_pids);
/* Take the cgroup v2 directory dir (given, not made: never removed). Its
 * controllers are what cgroup.controllers lists. 0, or -1 with errno. */
int cg_take(struct cg *cg, const char *dir);
/* memory.max / memory.limit_in_bytes, pids.max. -1 when no cgroup made
 * here has the controller. */
int cg_set_memory(struct cg *cg, uint64_t bytes);
int cg_set_pids(struct cg *cg, uint64_t n);
/* Start a child running fn(arg), born in the v2 cgroup (clone3
 * CLONE_INTO_CGROUP; *in_v2 = 1, set before fn runs), else in this one
 * (*in_v2 = 0: cg_enter joins it). The child shares this process's memory
 * (CLONE_VM | CLONE_VFORK, on a stack of its own; the sanitizer build
 * forks) and starts with every signal blocked: fn must exec or _exit, and
 * this process is suspended until it has. The child's pid, or -1 with
 * errno. */
pid_t cg_spawn(const struct cg *cg, int *in_v2, int (*fn)(void *), void *arg);
/* In the child, before exec: join every cgroup made but the v2 one it was
 * born in when in_v2 (async-signal-safe). */
int cg_enter(const struct cg *cg, int in_v2);
/* SIGKILL everything in the attempt's cgroups (cgroup.kill where the
 * kernel has it, opened with the cgroup; else read-and-kill rounds). */
void cg_kill(const struct cg *cg);
/* Remove the cgroups (after everything in them was reaped); closes fds. */
void cg_remove(struct cg *cg);
/* The cgroups a maker that is no longer running left behind: end what is
 * in them and remove them, without waiting (one whose processes have not
 * left yet stays for the next call). live: a maker's pid the caller knows
 * runs (its child not yet waited for: keeper), whose cgroups are passed
 * over without a look at /proc; 0: none. Returns how many were removed. */
int cg_reap_stale(pid_t live);

#endif
