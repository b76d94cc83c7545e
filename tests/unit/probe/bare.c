/*
 * Every check must fail where the boundary is absent: the same children,
 * the same attempts, only the sandbox left out. A check that passes here
 * proves nothing. Run as root by prove and as nobody by probe-bare.t.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "check.h"
#include "probe.h"
#include "tap.h"

static _Noreturn void
bare_child(size_t i, const struct probe_ctx *ctx, int wfd)
{
	struct probe_policy pol;
	struct probe_obs ob;
	int pre;

	if (probe_prepare(i, ctx, wfd, &pol, &ob, &pre) < 0)
		ob.apply_err = errno;
	else
		probe_attempts(i, ctx, wfd, pre, &ob);	/* no probe_apply */
	(void)!write(wfd, &ob, sizeof ob);
	_exit(0);
}

static _Noreturn void
silent_child(size_t i, const struct probe_ctx *ctx, int wfd)
{
	_exit(0);
}

static _Noreturn void
hung_child(size_t i, const struct probe_ctx *ctx, int wfd)
{
	for (;;)
		pause();
}

int
main(void)
{
	struct probe_outcome oc[16];
	struct probe_result res[16];
	struct probe_ctx ctx;
	const char *what;
	size_t i;

	diag("running as uid %d", (int)getuid());
	ok(probe_setup(&ctx, &what) == 0, "fixtures set up");
	ok(probe_run(&ctx, oc, 5000, bare_child) == 0, "bare children ran");
	for (i = 0; i < probe_nchecks; i++) {
		is_int(oc[i].end, END_REPORTED, "%s: bare child reported", probe_checks[i].name);
		probe_judge(&probe_checks[i], &oc[i], &res[i]);
		ok(!res[i].proven, "%s: unproven without the boundary (%s)", probe_checks[i].name,
		    res[i].evidence);
	}
	is_int(probe_tier_of(probe_checks, res, probe_nchecks), TIER_NONE, "no boundary: tier none");

	ok(probe_run(&ctx, oc, 5000, silent_child) == 0, "silent children ran");
	for (i = 0; i < probe_nchecks; i++) {
		probe_judge(&probe_checks[i], &oc[i], &res[i]);
		ok(oc[i].end == END_SHORT && !res[i].proven, "%s: no report: unproven (%s)",
		    probe_checks[i].name, res[i].evidence);
	}

	ok(probe_run(&ctx, oc, 300, hung_child) == 0, "hung children ran");
	for (i = 0; i < probe_nchecks; i++) {
		probe_judge(&probe_checks[i], &oc[i], &res[i]);
		ok(oc[i].end == END_TIMEOUT && !res[i].proven, "%s: hang: killed, unproven (%s)",
		    probe_checks[i].name, res[i].evidence);
	}
	ok(kill(0, 0) == 0, "still here");
	{
		int left = 0;
		pid_t w;

		while ((w = waitpid(-1, NULL, WNOHANG | __WALL)) > 0)
			left++;
		is_int(left, 0, "no child left to reap");
	}

	ok(probe_run(&ctx, oc, 5000, probe_child) == 0, "sandboxed children ran");
	for (i = 0; i < probe_nchecks; i++) {
		probe_judge(&probe_checks[i], &oc[i], &res[i]);
		ok(res[i].proven, "%s: proven through the boundary (%s)", probe_checks[i].name,
		    res[i].evidence);
	}
	probe_teardown(&ctx);
	ok(access(ctx.a_dir, F_OK) < 0 && errno == ENOENT, "fixtures removed");
	return done_testing();
}
