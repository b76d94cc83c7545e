/*
 * Every check must fail where the boundary is absent: the same children,
 * the same attempts, only the sandbox left out. A check that passes here
 * proves nothing. A child that crashes, reports in part, hangs or whose
 * sandbox is refused leaves every one of its checks unproven. Run as root
 * by prove and as nobody by probe-bare.t.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "judge.h"
#include "probe.h"
#include "tap.h"

/* The worded judgement, and the verdict probe decides by (probe_verdict)
 * beside it: any difference is counted. */
static int verdict_differs;

static void
judge(size_t i, const struct probe_outcome *oc, struct probe_result *res)
{
	struct probe_result v;

	probe_judge(&probe_checks[i], &oc[i], &res[i]);
	if (probe_verdict(&probe_checks[i], &oc[i], &v) != res[i].proven || v.above != res[i].above)
		verdict_differs++;
}

static _Noreturn void
bare_child(int child, const struct probe_ctx *ctx, int wfd)
{
	struct probe_obs ob[PROBE_MAX_CHECKS];
	struct probe_policy pol;
	size_t n;
	int pre;

	probe_prepare(child, ctx, wfd, &pol, ob, &pre);
	probe_attempts(child, ctx, wfd, pre, ob);	/* no probe_apply */
	n = probe_pack(child, ob);
	(void)!write(wfd, ob, n * sizeof ob[0]);
	_exit(0);
}

static _Noreturn void
silent_child(int child, const struct probe_ctx *ctx, int wfd)
{
	_exit(0);
}

static _Noreturn void
hung_child(int child, const struct probe_ctx *ctx, int wfd)
{
	for (;;)
		pause();
}

/* The real child, but killed after its attempts, before its report (by
 * SIGKILL: the sanitizer build would catch a SIGSEGV and exit 1). */
static _Noreturn void
crash_child(int child, const struct probe_ctx *ctx, int wfd)
{
	struct probe_obs ob[PROBE_MAX_CHECKS];
	struct probe_policy pol;
	char why[256];
	int pre;

	probe_prepare(child, ctx, wfd, &pol, ob, &pre);
	if (probe_apply(&pol, why, sizeof why) == 0)
		probe_attempts(child, ctx, wfd, pre, ob);
	/* not raise(): a child sharing memory shares libc's cached thread id */
	kill(getpid(), SIGKILL);
	_exit(0);
}

/* The real child's report, all but its last byte, and a clean exit. */
static _Noreturn void
partial_child(int child, const struct probe_ctx *ctx, int wfd)
{
	struct probe_obs ob[PROBE_MAX_CHECKS];
	struct probe_policy pol;
	char why[256];
	size_t n;
	int pre;

	probe_prepare(child, ctx, wfd, &pol, ob, &pre);
	if (probe_apply(&pol, why, sizeof why) == 0)
		probe_attempts(child, ctx, wfd, pre, ob);
	n = probe_pack(child, ob);
	(void)!write(wfd, ob, n * sizeof ob[0] - 1);
	_exit(0);
}

int
main(void)
{
	struct probe_outcome oc[PROBE_MAX_CHECKS];
	struct probe_result res[PROBE_MAX_CHECKS];
	struct probe_ctx ctx, gone;
	const char *what;
	char dir[sizeof ctx.dir];
	size_t i;

	diag("running as uid %d", (int)getuid());
	ok(probe_setup(&ctx, &what) == 0, "fixtures set up");
	ok(probe_run(&ctx, oc, 5000, bare_child) == 0, "bare children ran");
	for (i = 0; i < probe_nchecks; i++) {
		is_int(oc[i].end, END_REPORTED, "%s: bare child reported", probe_checks[i].name);
		judge(i, oc, res);
		ok(!res[i].proven, "%s: unproven without the boundary (%s)", probe_checks[i].name,
		    res[i].evidence);
	}
	is_int(probe_tier_of(probe_checks, res, probe_nchecks), TIER_NONE, "no boundary: tier none");

	ok(probe_run(&ctx, oc, 5000, silent_child) == 0, "silent children ran");
	for (i = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		ok(oc[i].end == END_SHORT && !res[i].proven, "%s: no report: unproven (%s)",
		    probe_checks[i].name, res[i].evidence);
	}

	ok(probe_run(&ctx, oc, 5000, crash_child) == 0, "children killed before reporting ran");
	for (i = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		ok(oc[i].end == END_SIGNALED && oc[i].detail == SIGKILL && !res[i].proven,
		    "%s: its child was killed after the attempts: unproven (%s)",
		    probe_checks[i].name, res[i].evidence);
	}

	ok(probe_run(&ctx, oc, 5000, partial_child) == 0, "children with a short report ran");
	for (i = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		ok(oc[i].end == END_SHORT && !res[i].proven,
		    "%s: its child's report is one byte short: unproven (%s)",
		    probe_checks[i].name, res[i].evidence);
	}

	ok(probe_run(&ctx, oc, 300, hung_child) == 0, "hung children ran");
	for (i = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
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

	/* The sandbox refuses the fs check's child as a whole (its granted
	 * directory is gone) though each of its checks is admitted alone:
	 * every check of that child is unproven, the other child's proven. */
	gone = ctx;
	snprintf(gone.a_dir, sizeof gone.a_dir, "%s/gone", ctx.dir);
	ok(probe_run(&gone, oc, 5000, probe_child) == 0, "children with a refused sandbox ran");
	for (i = 0; i < probe_nchecks; i++) {
		int first = probe_checks[i].child == probe_checks[0].child;

		judge(i, oc, res);
		if (first)
			ok(!res[i].proven && strstr(res[i].evidence,
			    "sandbox not applied: ENOENT: unable to open ") != NULL,
			    "%s: its child's sandbox refused: unproven (%s)",
			    probe_checks[i].name, res[i].evidence);
		else
			ok(res[i].proven, "%s: the other child's still proven (%s)",
			    probe_checks[i].name, res[i].evidence);
	}

	ok(probe_run(&ctx, oc, 5000, probe_child) == 0, "sandboxed children ran");
	for (i = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		ok(res[i].proven, "%s: proven through the boundary (%s)", probe_checks[i].name,
		    res[i].evidence);
	}
	/* As probe runs: the files go once the children using them ended,
	 * the last child (egress) still running; every check still proven. */
	snprintf(dir, sizeof dir, "%s", ctx.dir);
	ctx.drop_files = 1;
	ok(probe_run(&ctx, oc, 5000, probe_child) == 0, "sandboxed children ran, files dropped early");
	for (i = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		ok(res[i].proven, "%s: proven with the files dropped as their children ended (%s)",
		    probe_checks[i].name, res[i].evidence);
	}
	ok(access(dir, F_OK) < 0 && errno == ENOENT && ctx.leak_fd < 0, "... the files, directories and descriptor are gone");
	ok(ctx.tcp_deny_fd >= 0 && ctx.abs_fd >= 0, "... the listeners stay until the teardown");
	probe_teardown(&ctx);
	ok(access(ctx.a_dir, F_OK) < 0 && errno == ENOENT, "fixtures removed");
	is_int(verdict_differs, 0, "probe_verdict gives probe_judge's verdict on every outcome here");
	return done_testing();
}
