/* bench/agent-resolve.c: the resolution corral adds for an agent installed in
 * the home, timed on its own: plan_resolve with the default policy (the whole
 * plan: grants, PATH, toolchain table, install tree), and installtree_grant
 * and homepath_grant alone. Built and run by bench/agent against the
 * supervisor's objects; prints the median CPU time of each in microseconds.
 *   agent-resolve N CMD   (HOME, PATH and XDG_STATE_HOME from the environment) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "homepath.h"
#include "installtree.h"
#include "resolve.h"

/* CPU time of this process: the resolution's own cost, whatever else the
 * machine runs meanwhile */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof *v, cmp);
	return v[n / 2];
}

int
main(int argc, char **argv, char **envp)
{
	char why[8192], hint[512], warn[8192];
	struct json_err pe;
	struct policy pol;
	int n = argc > 2 ? atoi(argv[1]) : 0;
	double *full, *tree, *home;

	if (n < 1)
		return fprintf(stderr, "usage: agent-resolve N CMD [ARG...]\n"), 2;
	full = calloc(n, sizeof *full);
	tree = calloc(n, sizeof *tree);
	home = calloc(n, sizeof *home);
	if (!full || !tree || !home || policy_default(&pol, &pe) < 0)
		return 2;
	for (int i = 0; i < n; i++) {
		struct plan pl;
		double t0;
		memset(&pl, 0, sizeof pl);
		t0 = now();
		if (plan_resolve(&pl, &pol, envp, argv + 2, why, sizeof why, hint, sizeof hint, warn, sizeof warn) < 0)
			return fprintf(stderr, "agent-resolve: %s\n", why), 1;
		full[i] = now() - t0;
		if (i == 0)
			for (size_t k = 0; k < pl.notes.n; k++)
				printf("# %s\n", pl.notes.v[k]);
		/* the install tree alone, into the resolved plan's grants */
		struct argv notes = { 0 };
		t0 = now();
		installtree_grant(&pl, pl.path, NULL, argv[2], &notes);
		tree[i] = now() - t0;
		av_free(&notes);
		/* the toolchain table alone, for the first PATH directory */
		char dir[4096], real[4096];
		snprintf(dir, sizeof dir, "%.*s", (int)strcspn(pl.path, ":"), pl.path);
		t0 = now();
		if (realpath(dir, real))
			homepath_grant(&pl, dir, real, warn, sizeof warn);
		home[i] = now() - t0;
		plan_free(&pl);
	}
	printf("plan_resolve %.1f us\ninstalltree_grant %.1f us\nhomepath_grant %.1f us\n",
	    median(full, n), median(tree, n), median(home, n));
	return 0;
}
