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
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

	probe_prepare(child, 0, ctx, wfd, &pol, ob, &pre);
	probe_attempts(child, 0, ctx, wfd, pre, ob);	/* no probe_apply */
	if (probe_stacked(child)) {
		probe_prepare(child, 1, ctx, wfd, &pol, ob, &pre);
		probe_attempts(child, 1, ctx, wfd, pre, ob);
	}
	n = probe_pack(child, ob);
	(void)!write(wfd, ob, n * sizeof ob[0]);
	_exit(0);
}

/* The first boundary only: the stacked checks' attempts are made under
 * the boundary of the others of their child, not their own. */
static _Noreturn void
first_only_child(int child, const struct probe_ctx *ctx, int wfd)
{
	struct probe_obs ob[PROBE_MAX_CHECKS];
	struct probe_policy pol;
	char why[256];
	size_t n;
	int pre;

	probe_prepare(child, 0, ctx, wfd, &pol, ob, &pre);
	if (probe_apply(&pol, why, sizeof why) == 0) {
		probe_attempts(child, 0, ctx, wfd, pre, ob);
		if (probe_stacked(child)) {
			probe_prepare(child, 1, ctx, wfd, &pol, ob, &pre);
			probe_attempts(child, 1, ctx, wfd, pre, ob);	/* no probe_apply */
		}
	}
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

	probe_prepare(child, 0, ctx, wfd, &pol, ob, &pre);
	if (probe_apply(&pol, why, sizeof why) == 0)
		probe_attempts(child, 0, ctx, wfd, pre, ob);
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

	probe_prepare(child, 0, ctx, wfd, &pol, ob, &pre);
	if (probe_apply(&pol, why, sizeof why) == 0)
		probe_attempts(child, 0, ctx, wfd, pre, ob);
	n = probe_pack(child, ob);
	(void)!write(wfd, ob, n * sizeof ob[0] - 1);
	_exit(0);
}

/* The bare child's report, whole or (linger_short) all but its last byte;
 * then it waits until its child's fixtures (A/) are gone, and exits: a
 * wait that never ends is the deadline's (killed). */
static int linger_short;

static _Noreturn void
linger_child(int child, const struct probe_ctx *ctx, int wfd)
{
	struct probe_obs ob[PROBE_MAX_CHECKS];
	struct probe_policy pol;
	struct timespec ms = { 0, 1000000 };
	char dir[sizeof ctx->a_dir];
	size_t n;
	int pre;

	memcpy(dir, ctx->a_dir, sizeof dir);
	probe_prepare(child, 0, ctx, wfd, &pol, ob, &pre);
	probe_attempts(child, 0, ctx, wfd, pre, ob);
	if (probe_stacked(child)) {
		probe_prepare(child, 1, ctx, wfd, &pol, ob, &pre);
		probe_attempts(child, 1, ctx, wfd, pre, ob);
	}
	n = probe_pack(child, ob);
	(void)!write(wfd, ob, n * sizeof ob[0] - (linger_short ? 1 : 0));
	while (access(dir, F_OK) == 0)
		nanosleep(&ms, NULL);
	_exit(0);
}

int
main(void)
{
	struct probe_outcome oc[PROBE_MAX_CHECKS];
	struct probe_result res[PROBE_MAX_CHECKS];
	struct probe_ctx ctx, gone;
	const char *what;
	const char *tmp = getenv("TMPDIR");
	char oldtmp[4096];
	size_t i, n;

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

	/* A stacked check rests on its own boundary: under the first one
	 * alone every one is unproven, the others proven. */
	ok(probe_run(&ctx, oc, 5000, first_only_child) == 0, "children with the first boundary only ran");
	for (i = 0, n = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		if (probe_checks[i].flags & PROBE_STACKED) {
			n++;
			ok(!res[i].proven, "%s: stacked, unproven under its child's first boundary alone (%s)",
			    probe_checks[i].name, res[i].evidence);
		} else {
			ok(res[i].proven, "%s: proven under its first boundary (%s)", probe_checks[i].name,
			    res[i].evidence);
		}
	}
	ok(n > 0, "there is a stacked check (%zu)", n);

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
	probe_teardown(&ctx);
	ok(access(ctx.a_dir, F_OK) < 0 && errno == ENOENT, "fixtures removed");

	/* As probe runs: the egress child starts once the outside listener
	 * is made, before the rest of the fixtures, which go once the
	 * children using them ended, the egress child still running; every
	 * check still proven. */
	ok(probe_setup_first(&ctx, &what) == 0 && ctx.tcp_deny_fd >= 0 && ctx.dir[0] == '\0' &&
	    ctx.tcp_allow_fd < 0 && ctx.abs_fd < 0 && ctx.leak_fd < 0, "the outside listener alone first");
	ctx.setup_rest = ctx.drop_rest = 1;
	ok(probe_run(&ctx, oc, 5000, probe_child) == 0 && ctx.what == NULL,
	    "sandboxed children ran, the rest of the fixtures made between, the files dropped early");
	for (i = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		ok(res[i].proven, "%s: proven so (%s)", probe_checks[i].name, res[i].evidence);
	}
	ok(ctx.a_dir[0] != '\0' && access(ctx.a_dir, F_OK) < 0 && errno == ENOENT && ctx.dir[0] == '\0' &&
	    ctx.leak_fd < 0 && ctx.tcp_allow_fd < 0 && ctx.abs_fd < 0,
	    "... the files, directories, descriptor, granted port's and abstract listeners are gone");
	ok(ctx.tcp_deny_fd >= 0, "... the outside listener stays until the teardown");
	probe_teardown(&ctx);

	/* The fixtures go once every child using them sent its whole report
	 * (then it only exits), before it ended: each child waits, after its
	 * report, until they are gone. Control: a child one byte short keeps
	 * them (it is killed at the deadline, its checks unproven, the
	 * fixtures still there). */
	ok(probe_setup(&ctx, &what) == 0, "fixtures set up again");
	ctx.drop_rest = 1;
	ok(probe_run(&ctx, oc, 5000, linger_child) == 0, "children waiting after their report ran");
	for (i = 0; i < probe_nchecks; i++)
		is_int(oc[i].end, END_REPORTED, "%s: its child reported and exited: the fixtures went before",
		    probe_checks[i].name);
	ok(access(ctx.a_dir, F_OK) < 0 && errno == ENOENT && ctx.dir[0] == '\0', "... they are gone");
	probe_teardown(&ctx);
	ok(probe_setup(&ctx, &what) == 0, "fixtures set up again");
	ctx.drop_rest = 1;
	linger_short = 1;
	ok(probe_run(&ctx, oc, 300, linger_child) == 0, "control: children one byte short, then waiting, ran");
	for (i = 0, n = 0; i < probe_nchecks; i++) {
		judge(i, oc, res);
		if (probe_checks[i].flags & PROBE_REST) {
			n++;
			ok(oc[i].end == END_TIMEOUT && !res[i].proven, "%s: control: its child waited until killed (%s)",
			    probe_checks[i].name, res[i].evidence);
		}
	}
	ok(n > 0, "control: there is a check using the fixtures (%zu)", n);
	ok(access(ctx.a_dir, F_OK) == 0 && ctx.dir[0] != '\0', "control: ... the fixtures stayed until the deadline");
	probe_teardown(&ctx);
	linger_short = 0;

	/* The rest cannot be made: no child is left, and probe says what. */
	snprintf(oldtmp, sizeof oldtmp, "%s", tmp ? tmp : "");
	ok(setenv("TMPDIR", "/proc/corral-none", 1) == 0 && probe_setup_first(&ctx, &what) == 0,
	    "outside listener made, TMPDIR unusable");
	ctx.setup_rest = ctx.drop_rest = 1;
	errno = 0;
	ok(probe_run(&ctx, oc, 5000, probe_child) < 0 && errno == ENOENT && ctx.what != NULL &&
	    strcmp(ctx.what, "temporary directory") == 0, "probe_run fails, naming the temporary directory (%s)",
	    ctx.what ? ctx.what : "none");
	ok(waitpid(-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD, "... and no child is left");
	probe_teardown(&ctx);
	if (tmp)
		setenv("TMPDIR", oldtmp, 1);
	else
		unsetenv("TMPDIR");
	is_int(verdict_differs, 0, "probe_verdict gives probe_judge's verdict on every outcome here");
	return done_testing();
}
