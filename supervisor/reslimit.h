/* reslimit: the policy's resource limits ("limits"), and how this machine
 * enforces each: the attempt's cgroup (memory, processes), rlimits in the
 * chain before exec (cpu seconds, open files, file size; memory and
 * processes where no cgroup controller is here), the keeper's timer (wall
 * clock). A limit that cannot be enforced here is a refusal. */
#ifndef CORRAL_RESLIMIT_H
#define CORRAL_RESLIMIT_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* corral run's status when the wall-clock limit ended the attempt, as
 * timeout(1) */
enum { EXIT_TIMEOUT = 124 };

/* the largest "processes": the kernel's PID_MAX_LIMIT (pids.max refuses more) */
enum { LIMITS_MAX_PROCS = 4194304 };

enum lim { LIM_MEMORY, LIM_PROCS, LIM_CPU, LIM_WALL, LIM_NOFILE, LIM_FSIZE, LIM_N };

/* the policy keys, in enum lim order */
extern const char *const limits_keys[LIM_N + 1];

struct limits {
	uint64_t v[LIM_N];		/* 0: no limit */
};

/* "512M", "2G", "4096", "64K": bytes (K, M, G, T: powers of 1024). Pure.
 * 0 or -1 (EINVAL, ERANGE). */
int limits_size_parse(const char *s, uint64_t *out);

enum lim_mech { LM_NONE, LM_CG_V2, LM_CG_V1, LM_RLIMIT, LM_TIMER, LM_REFUSE };

struct lim_how {
	enum lim_mech m;
	char what[PATH_MAX + 128];			/* "cgroup v1 memory.limit_in_bytes", "RLIMIT_NOFILE (per process)" */
};

struct policy;
struct cg;
struct keeper_args;

/* How each limit of l is enforced here (tries the cgroup hierarchies when
 * l asks for memory or processes). Returns the number of refusals. */
int limits_decide(const struct limits *l, struct lim_how how[LIM_N]);
/* The attempt's cgroups (membership, and the limits' controllers) and the
 * chain's rlimits and timer into *ka. -1 reported (a refusal or an error). */
int attempt_limits(const struct policy *p, struct cg *cg, struct keeper_args *ka);
/* The same for limits l (sandbox-mcp bounds each command with it). */
int limits_apply(const struct limits *l, struct cg *cg, struct keeper_args *ka);

/* What doctor and explain print: each limit set and how it is enforced
 * here, then how leftovers are ended here; each line starts with pre. */
void limits_report(FILE *f, const char *pre, const struct limits *l);

#endif
