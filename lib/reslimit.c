/* reslimit: see reslimit.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cgroup.h"
#include "reslimit.h"
#include "msg.h"
#include "num.h"

const char *const limits_keys[LIM_N + 1] = {
	"memory", "processes", "cpu_seconds", "wall_seconds", "open_files", "file_size", NULL
};

int
limits_size_parse(const char *s, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return errno = EINVAL, -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return errno = ERANGE, -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case '\0': break;
	case 'K': mul = 1ULL << 10; p++; break;
	case 'M': mul = 1ULL << 20; p++; break;
	case 'G': mul = 1ULL << 30; p++; break;
	case 'T': mul = 1ULL << 40; p++; break;
	default: return errno = EINVAL, -1;
	}
	if (*p != '\0')
		return errno = EINVAL, -1;
	if (v > UINT64_MAX / mul)
		return errno = ERANGE, -1;
	*out = v * mul;
	return 0;
}

int
limits_set(struct limits *l, enum lim w, const char *arg)
{
	uint64_t v;

	if (w == LIM_MEMORY || w == LIM_FSIZE) {
		if (limits_size_parse(arg, &v) < 0)
			return -1;
		if (v == 0)
			return errno = ERANGE, -1;
	} else if (num_parse_u64(arg, 1, w == LIM_PROCS ? LIMITS_MAX_PROCS : UINT64_MAX, &v) < 0) {
		return -1;
	}
	l->v[w] = v;
	return 0;
}

void
limits_argv(const struct limits *l, struct argv *a)
{
	for (int i = 0; i < LIM_N; i++) {
		if (!l->v[i])
			continue;
		av_pushf(a, "--%s", limits_keys[i]);
		for (char *p = a->n ? a->v[a->n - 1] : NULL; p && *p; p++)
			if (*p == '_')
				*p = '-';
		av_pushf(a, "%llu", (unsigned long long)l->v[i]);
	}
}

/* what decide() fills: each limit's mechanism, and when hw is not NULL its
 * description too (keeper's limits_apply asks only the mechanisms: hw is
 * 25 KB, a page fault for each of its pages) */
struct decision {
	enum lim_mech m[LIM_N];
	struct lim_how *hw;
};

static void __attribute__((format(printf, 4, 5)))
how(struct decision *d, enum lim w, enum lim_mech m, const char *fmt, ...)
{
	va_list ap;
	struct lim_how *h = d->hw ? &d->hw[w] : NULL;

	d->m[w] = m;
	if (h == NULL)
		return;
	h->m = m;
	va_start(ap, fmt);
	if (vsnprintf(h->what, sizeof h->what, fmt, ap) >= (int)sizeof h->what)
		memcpy(h->what + sizeof h->what - 4, "...", 4);
	va_end(ap);
}

/* memory and processes, by the cgroups this machine offers: a frame of
 * its own (cg_caps is 12 KB), entered only when one of them is set */
static int __attribute__((noinline))
decide_cg(const struct limits *l, struct decision *d)
{
	struct cg_caps c;
	int refused = 0;

	cg_caps_probe(&c);
	if (l->v[LIM_MEMORY]) {
		if (c.ok[CG_V2] && c.v2mem)
			how(d, LIM_MEMORY, LM_CG_V2, "cgroup v2 memory.max (the whole attempt) beneath %s", c.base[CG_V2]);
		else if (c.ok[CG_MEM1])
			how(d, LIM_MEMORY, LM_CG_V1, "cgroup v1 memory.limit_in_bytes (the whole attempt) beneath %s", c.base[CG_MEM1]);
		else
			how(d, LIM_MEMORY, LM_RLIMIT, "RLIMIT_AS (address space, per process: no memory cgroup can be made here)");
	}
	if (l->v[LIM_PROCS]) {
		if (c.ok[CG_V2] && c.v2pids)
			how(d, LIM_PROCS, LM_CG_V2, "cgroup v2 pids.max (the whole attempt) beneath %s", c.base[CG_V2]);
		else if (c.ok[CG_PIDS1])
			how(d, LIM_PROCS, LM_CG_V1, "cgroup v1 pids.max (the whole attempt) beneath %s", c.base[CG_PIDS1]);
		else if (geteuid() != 0)
			how(d, LIM_PROCS, LM_RLIMIT, "RLIMIT_NPROC (every process of this user, also outside the attempt)");
		else {
			how(d, LIM_PROCS, LM_REFUSE, "refused: no pids cgroup can be made here, and RLIMIT_NPROC does not bind root");
			refused++;
		}
	}
	return refused;
}

static int
decide(const struct limits *l, struct decision *d)
{
	int refused = 0;

	memset(d->m, 0, sizeof d->m);
	if (d->hw)
		memset(d->hw, 0, sizeof(struct lim_how) * LIM_N);
	if (l->v[LIM_MEMORY] || l->v[LIM_PROCS])
		refused = decide_cg(l, d);
	if (l->v[LIM_CPU])
		how(d, LIM_CPU, LM_RLIMIT, "RLIMIT_CPU (per process)");
	if (l->v[LIM_WALL])
		how(d, LIM_WALL, LM_TIMER, "the keeper's timer ends the whole attempt (status 124)");
	if (l->v[LIM_NOFILE])
		how(d, LIM_NOFILE, LM_RLIMIT, "RLIMIT_NOFILE (per process)");
	if (l->v[LIM_FSIZE])
		how(d, LIM_FSIZE, LM_RLIMIT, "RLIMIT_FSIZE (per process)");
	return refused;
}

int
limits_decide(const struct limits *l, struct lim_how hw[LIM_N])
{
	struct decision d = { .hw = hw };

	return decide(l, &d);
}

static int
add_rlimit(struct limits_rl *rl, int res, uint64_t v)
{
	struct rlimit cur;

	if (rl->n >= LIMITS_MAX_RLIM)
		return errno = E2BIG, -1;
	if (getrlimit(res, &cur) < 0)
		return -1;
	/* never above the hard limit already in force: that one is stricter */
	if (cur.rlim_max != RLIM_INFINITY && (rlim_t)v > cur.rlim_max)
		v = cur.rlim_max;
	rl->res[rl->n] = res;
	rl->rl[rl->n].rlim_cur = rl->rl[rl->n].rlim_max = (rlim_t)v;
	rl->n++;
	return 0;
}

/* a given cgroup: memory and processes only through its own controllers */
static int
decide_taken(const struct limits *l, const struct cg *cg, struct decision *d)
{
	struct limits rest = *l;

	rest.v[LIM_MEMORY] = rest.v[LIM_PROCS] = 0;
	decide(&rest, d);
	if (l->v[LIM_MEMORY] && !cg->v2mem)
		return msg_fatal("limit \"memory\": the cgroup given has no memory controller"), -1;
	if (l->v[LIM_PROCS] && !cg->v2pids)
		return msg_fatal("limit \"processes\": the cgroup given has no pids controller"), -1;
	if (l->v[LIM_MEMORY])
		d->m[LIM_MEMORY] = LM_CG_V2;
	if (l->v[LIM_PROCS])
		d->m[LIM_PROCS] = LM_CG_V2;
	return 0;
}

/* the refusal's line, with its reason (a frame of its own: hw is 25 KB) */
static void __attribute__((noinline))
refuse_procs(const struct limits *l)
{
	struct lim_how hw[LIM_N];

	limits_decide(l, hw);
	msg_fatal("limit \"processes\" cannot be enforced on this machine: %s", hw[LIM_PROCS].what);
	msg_hint("run as a user other than root, or where a pids cgroup can be made (cgroup v1 pids, or a delegated cgroup v2 subtree with the pids controller)");
}

int
limits_apply(const struct limits *l, struct cg *cg, int taken, int *have_cg, struct limits_rl *rl)
{
	struct decision d = { .hw = NULL };
	const enum lim_mech *m = d.m;
	int n = 1;

	memset(rl, 0, sizeof *rl);
	*have_cg = 0;
	if (taken) {
		if (decide_taken(l, cg, &d) < 0)
			return -1;
	} else if (decide(l, &d) > 0) {
		refuse_procs(l);
		return -1;
	}
	if (!taken)
		n = cg_create(cg, m[LIM_MEMORY] == LM_CG_V2 || m[LIM_MEMORY] == LM_CG_V1,
		    m[LIM_PROCS] == LM_CG_V2 || m[LIM_PROCS] == LM_CG_V1);
	if (n < 0) {
		msg_fatal_sys("unable to make the attempt's cgroup");
		return -1;
	}
	*have_cg = n > 0;
	if ((m[LIM_MEMORY] == LM_CG_V2 || m[LIM_MEMORY] == LM_CG_V1) &&
	    cg_set_memory(cg, l->v[LIM_MEMORY]) < 0) {
		msg_fatal_sys("limit \"memory\": unable to set it in the attempt's cgroup");
		goto fail;
	}
	if ((m[LIM_PROCS] == LM_CG_V2 || m[LIM_PROCS] == LM_CG_V1) &&
	    cg_set_pids(cg, l->v[LIM_PROCS]) < 0) {
		msg_fatal_sys("limit \"processes\": unable to set it in the attempt's cgroup");
		goto fail;
	}
	if ((m[LIM_MEMORY] == LM_RLIMIT && add_rlimit(rl, RLIMIT_AS, l->v[LIM_MEMORY]) < 0) ||
	    (m[LIM_PROCS] == LM_RLIMIT && add_rlimit(rl, RLIMIT_NPROC, l->v[LIM_PROCS]) < 0) ||
	    (l->v[LIM_CPU] && add_rlimit(rl, RLIMIT_CPU, l->v[LIM_CPU]) < 0) ||
	    (l->v[LIM_NOFILE] && add_rlimit(rl, RLIMIT_NOFILE, l->v[LIM_NOFILE]) < 0) ||
	    (l->v[LIM_FSIZE] && add_rlimit(rl, RLIMIT_FSIZE, l->v[LIM_FSIZE]) < 0)) {
		msg_fatal_sys("unable to prepare the resource limits");
		goto fail;
	}
	return 0;
fail:
	cg_remove(cg);
	*have_cg = 0;
	return -1;
}

/* One line per limit the policy sets, and how it is enforced here; then
 * how leftovers are ended here. pre starts each line. */
void
limits_report(FILE *f, const char *pre, const struct limits *l)
{
	struct lim_how hw[LIM_N];
	struct cg_caps c;

	limits_decide(l, hw);
	for (int i = 0; i < LIM_N; i++)
		if (l->v[i])
			fprintf(f, "%slimit %-14s %llu: %s\n", pre, limits_keys[i],
			    (unsigned long long)l->v[i], hw[i].what);
	cg_caps_probe(&c);
	if (c.ok[CG_V2])
		fprintf(f, "%sleftovers: the attempt's cgroup v2 beneath %s (cgroup.kill), and the keeper's subreaper sweep\n",
		    pre, c.base[CG_V2]);
	else if (c.ok[CG_PIDS1])
		fprintf(f, "%sleftovers: the attempt's cgroup v1 pids beneath %s (kill rounds), and the keeper's subreaper sweep\n",
		    pre, c.base[CG_PIDS1]);
	else
		fprintf(f, "%sleftovers: the keeper's subreaper sweep (no cgroup can be made here)\n", pre);
}
