/* reslimit: resource limits (corral's policy "limits", keeper's options,
 * sandbox-mcp's max_processes and max_memory_mb), and how this machine
 * enforces each: the attempt's cgroup (memory, processes), rlimits in the
 * program before exec (cpu seconds, open files, file size; memory and
 * processes where no cgroup controller is here), keeper's timer (wall
 * clock). A limit that cannot be enforced here is a refusal. */
#ifndef CORRAL_RESLIMIT_H
#define CORRAL_RESLIMIT_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "argv.h"

/* keeper's (and corral run's) status when the wall-clock limit ended the
 * attempt, as timeout(1) */
enum { EXIT_TIMEOUT = 124 };

/* the largest "processes": the kernel's PID_MAX_LIMIT (pids.max refuses more) */
enum { LIMITS_MAX_PROCS = 4194304 };

enum lim { LIM_MEMORY, LIM_PROCS, LIM_CPU, LIM_WALL, LIM_NOFILE, LIM_FSIZE, LIM_N };

/* the policy keys, in enum lim order (keeper's options: '-' for '_') */
extern const char *const limits_keys[LIM_N + 1];

struct limits {
	uint64_t v[LIM_N];		/* 0: no limit */
};

/* "512M", "2G", "4096", "64K": bytes (K, M, G, T: powers of 1024). Pure.
 * 0 or -1 (EINVAL, ERANGE). */
int limits_size_parse(const char *s, uint64_t *out);
/* keeper's option for limit w: a size (memory, file_size) or a positive
 * integer, at least 1 (processes at most LIMITS_MAX_PROCS) into l->v[w].
 * Pure. 0 or -1 (EINVAL, ERANGE). */
int limits_set(struct limits *l, enum lim w, const char *arg);
/* keeper's options for every limit l sets ("--memory", "536870912", ...). */
void limits_argv(const struct limits *l, struct argv *a);

enum lim_mech { LM_NONE, LM_CG_V2, LM_CG_V1, LM_RLIMIT, LM_TIMER, LM_REFUSE };

struct lim_how {
	enum lim_mech m;
	char what[PATH_MAX + 128];			/* "cgroup v1 memory.limit_in_bytes", "RLIMIT_NOFILE (per process)" */
};

struct cg;

enum { LIMITS_MAX_RLIM = 8 };

/* the rlimits the program gets before exec */
struct limits_rl {
	int n;
	int res[LIMITS_MAX_RLIM];
	struct rlimit rl[LIMITS_MAX_RLIM];
};

/* How each limit of l is enforced here (tries the cgroup hierarchies when
 * l asks for memory or processes). Returns the number of refusals. */
int limits_decide(const struct limits *l, struct lim_how how[LIM_N]);
/* The attempt's cgroups (membership, and the limits' controllers; cg
 * already taken (cg_take) when taken: only its controllers) and the
 * rlimits into *rl; *have_cg 1 when a cgroup holds the attempt. The wall
 * clock is the caller's. -1 reported on stderr (a refusal or an error). */
int limits_apply(const struct limits *l, struct cg *cg, int taken, int *have_cg, struct limits_rl *rl);

/* What doctor and explain print: each limit set and how it is enforced
 * here, then how leftovers are ended here; each line starts with pre. */
void limits_report(FILE *f, const char *pre, const struct limits *l);

#endif
