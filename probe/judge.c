/* judge: observations -> proven or not, with evidence; tiers. Pure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "judge.h"

static const struct { int e; const char *name; } errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
	{ EINTR, "EINTR" }, { EIO, "EIO" }, { EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
	{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" }, { EINVAL, "EINVAL" },
	{ EMFILE, "EMFILE" }, { ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" },
	{ EROFS, "EROFS" }, { ENOSYS, "ENOSYS" }, { ELOOP, "ELOOP" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { EAFNOSUPPORT, "EAFNOSUPPORT" },
	{ EPROTONOSUPPORT, "EPROTONOSUPPORT" }, { EADDRINUSE, "EADDRINUSE" },
	{ ENETUNREACH, "ENETUNREACH" }, { ECONNREFUSED, "ECONNREFUSED" },
	{ ECONNRESET, "ECONNRESET" }, { ETIMEDOUT, "ETIMEDOUT" },
	{ EINPROGRESS, "EINPROGRESS" }, { ENOTSOCK, "ENOTSOCK" },
	{ E2BIG, "E2BIG" }, { ENXIO, "ENXIO" }, { ECHILD, "ECHILD" },
};

const char *
probe_errno_name(int e, char *buf, size_t n)
{
	size_t i;

	if (e == 0)
		return "ok";
	for (i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
		if (errnames[i].e == e)
			return errnames[i].name;
	snprintf(buf, n, "errno %d", e);
	return buf;
}

static const char *const tiernames[] = { "none", "fs", "fs+net", "full" };

const char *
probe_tier_name(enum probe_tier t)
{
	return (unsigned)t <= TIER_FULL ? tiernames[t] : "none";
}

int
probe_tier_parse(const char *s, enum probe_tier *out)
{
	int t;

	for (t = TIER_FS; t <= TIER_FULL; t++)
		if (strcmp(s, tiernames[t]) == 0) {
			*out = (enum probe_tier)t;
			return 0;
		}
	errno = EINVAL;
	return -1;
}

/* Append to res->evidence; truncation is harmless (it is only evidence). */
static void __attribute__((format(printf, 2, 3)))
ev(struct probe_result *res, const char *fmt, ...)
{
	size_t len = strlen(res->evidence);
	va_list ap;

	if (len + 1 >= sizeof res->evidence)
		return;
	va_start(ap, fmt);
	vsnprintf(res->evidence + len, sizeof res->evidence - len, fmt, ap);
	va_end(ap);
}

static int
attempt_ok(const struct probe_check *c, const struct probe_obs *ob, int i)
{
	const struct probe_attempt *a = &c->att[i];
	int64_t got = ob->got[i];

	switch (a->kind) {
	case ATT_ALLOW:
		return got == 0;
	case ATT_DENY:
		return got != 0 && (got == a->want[0] || got == a->want[1]);
	case ATT_ERRNO:
		return got != 0 && got == a->want[0];
	case ATT_VALUE:
		return got == a->value;
	case ATT_INFO:
		return 1;
	case ATT_REACH:
		return got != a->want[0];
	case ATT_ZERO_IF:
		if (a->value < 0 || a->value >= i)
			return 0;
		return ob->got[a->value] == 0 || got == 0;
	}
	return 0;
}

static void
want_text(const struct probe_check *c, const struct probe_attempt *a, char *out, size_t n)
{
	char b1[24], b2[24];

	switch (a->kind) {
	case ATT_ALLOW:
		snprintf(out, n, "ok");
		break;
	case ATT_DENY:
	case ATT_ERRNO:
		if (a->kind == ATT_DENY && a->want[1] != 0)
			snprintf(out, n, "%s or %s", probe_errno_name(a->want[0], b1, sizeof b1),
			    probe_errno_name(a->want[1], b2, sizeof b2));
		else
			snprintf(out, n, "%s", probe_errno_name(a->want[0], b1, sizeof b1));
		break;
	case ATT_VALUE:
		snprintf(out, n, "%lld", (long long)a->value);
		break;
	case ATT_INFO:
		snprintf(out, n, "any");
		break;
	case ATT_REACH:
		snprintf(out, n, "anything but %s", probe_errno_name(a->want[0], b1, sizeof b1));
		break;
	case ATT_ZERO_IF:
		snprintf(out, n, "0 when %s is not 0", c->att[a->value].what);
		break;
	}
}

static void
got_text(const struct probe_attempt *a, int64_t got, char *out, size_t n)
{
	char buf[24];

	if (a->kind == ATT_VALUE || a->kind == ATT_INFO || a->kind == ATT_ZERO_IF)
		snprintf(out, n, "%lld", (long long)got);
	else if (got < 0 || got > 4095)
		snprintf(out, n, "bad errno %lld", (long long)got);
	else
		snprintf(out, n, "%s", probe_errno_name((int)got, buf, sizeof buf));
}

int
probe_judge(const struct probe_check *c, const struct probe_outcome *o,
    struct probe_result *res)
{
	const struct probe_obs *ob = &o->obs;
	char buf[24];
	int i;

	memset(res, 0, sizeof *res);
	switch (o->end) {
	case END_REPORTED:
		break;
	case END_TIMEOUT:
		ev(res, "child timed out");
		return 0;
	case END_SIGNALED:
		ev(res, "child killed by signal %d", o->detail);
		return 0;
	case END_EXITED:
		ev(res, "child exited with status %d", o->detail);
		return 0;
	case END_SHORT:
		ev(res, "child sent %d of %zu report bytes", o->detail, sizeof *ob);
		return 0;
	case END_NOSTART:
		ev(res, "child not started: %s", probe_errno_name(o->detail, buf, sizeof buf));
		return 0;
	default:
		ev(res, "unknown child outcome");
		return 0;
	}
	if (ob->magic != PROBE_OBS_MAGIC) {
		ev(res, "malformed child report");
		return 0;
	}
	if (ob->apply_err != 0) {
		ev(res, "sandbox not applied: %s", probe_errno_name(ob->apply_err, buf, sizeof buf));
		if (memchr(ob->why, '\0', sizeof ob->why) != NULL && ob->why[0] != '\0')
			ev(res, ": %s", ob->why);
		return 0;
	}
	if (ob->n != c->natt || c->natt > PROBE_MAX_ATT) {
		ev(res, "child made %d of %d attempts", ob->n, c->natt);
		return 0;
	}
	res->proven = 1;
	res->natt = c->natt;
	for (i = 0; i < c->natt; i++) {
		const struct probe_attempt *a = &c->att[i];
		struct probe_att_result *ar = &res->att[i];

		ar->ok = attempt_ok(c, ob, i);
		got_text(a, ob->got[i], ar->got, sizeof ar->got);
		want_text(c, a, ar->want, sizeof ar->want);
		if (a->kind == ATT_VALUE || a->kind == ATT_INFO || a->kind == ATT_ZERO_IF)
			ev(res, "%s%s=%s", i ? "; " : "", a->what, ar->got);
		else
			ev(res, "%s%s: %s", i ? "; " : "", a->what, ar->got);
		if (!ar->ok) {
			ev(res, " (want %s)", ar->want);
			res->proven = 0;
		}
	}
	return res->proven;
}

static int
all_proven(const struct probe_check *checks, const struct probe_result *r,
    size_t n, enum probe_tier t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (checks[i].tier == t && !r[i].proven)
			return 0;
	return 1;
}

enum probe_tier
probe_tier_of(const struct probe_check *checks, const struct probe_result *r, size_t n)
{
	int t;

	for (t = TIER_FS; t <= TIER_FULL; t++)
		if (!all_proven(checks, r, n, (enum probe_tier)t))
			return (enum probe_tier)(t - 1);
	return TIER_FULL;
}

int
probe_first_failing(const struct probe_check *checks, const struct probe_result *r,
    size_t n, enum probe_tier want)
{
	int t;
	size_t i;

	/* Lowest tier first: the most basic failure is the useful one to name. */
	for (t = TIER_FS; t <= (int)want; t++)
		for (i = 0; i < n; i++)
			if ((int)checks[i].tier == t && !r[i].proven)
				return (int)i;
	return -1;
}
