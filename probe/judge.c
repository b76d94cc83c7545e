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
probe_control_refused(const struct probe_check *c, const struct probe_outcome *o)
{
	const struct probe_obs *ob = &o->obs;
	int i, e = 0;

	if (!(c->flags & PROBE_ABOVE) || o->end != END_REPORTED || ob->magic != PROBE_OBS_MAGIC ||
	    ob->apply_err != 0 || ob->n != c->natt || c->natt > PROBE_MAX_ATT)
		return 0;
	for (i = 0; i < c->natt; i++) {
		if (attempt_ok(c, ob, i))
			continue;
		if ((c->att[i].kind != ATT_ALLOW && c->att[i].kind != ATT_REACH) ||
		    ob->got[i] <= 0 || ob->got[i] > 4095 || (e != 0 && ob->got[i] != e))
			return 0;
		e = (int)ob->got[i];
	}
	return e;
}

/* Attempt i must fail with e outside: an attack, or a control that failed
 * with e inside (the other attempts are not judged there). */
static int
fails_outside(const struct probe_check *c, const struct probe_obs *in, int i, int e)
{
	enum probe_att_kind k = c->att[i].kind;

	return k == ATT_DENY || ((k == ATT_ALLOW || k == ATT_REACH) && in->got[i] == e);
}

/* Inside, only the controls failed, all with e. Closed from above when,
 * outside the boundary and under the caller's seccomp filter alone, every
 * attack and every one of those controls failed with e too: what refuses
 * them is above the boundary, and binds the agent as it binds the caller.
 * Anything less leaves the check unproven, and the evidence says why. */
static void
above(const struct probe_check *c, const struct probe_outcome *o, int e,
    struct probe_result *res, int text)
{
	const struct probe_above *a = &o->above;
	char inside[sizeof res->evidence], got[32], buf[24];
	int i, bad = -1;

	if (!a->ran || a->obs.magic != PROBE_OBS_MAGIC || a->obs.n != c->natt) {
		if (text)
			ev(res, "; not closed from above: the attempts could not be made outside the boundary");
		return;
	}
	if (a->seccomp != 2) {
		if (text)
			ev(res, "; not closed from above: the caller is under no seccomp filter (Seccomp: %d)", a->seccomp);
		return;
	}
	for (i = 0; i < c->natt && bad < 0; i++)
		if (fails_outside(c, &o->obs, i, e) && a->obs.got[i] != e)
			bad = i;
	if (bad >= 0) {
		if (!text)
			return;
		got_text(&c->att[bad], a->obs.got[bad], got, sizeof got);
		ev(res, "; not closed from above: outside the boundary %s: %s (want %s, as the control)",
		    c->att[bad].what, got, probe_errno_name(e, buf, sizeof buf));
		return;
	}
	res->proven = res->above = 1;
	if (!text)
		return;
	memcpy(inside, res->evidence, sizeof inside);
	res->evidence[0] = '\0';
	ev(res, "closed from above: the caller's seccomp filter (Seccomp: 2, Seccomp_filters: %d) refuses them outside the boundary too: ",
	    a->filters);
	for (i = 0; i < c->natt; i++)
		if (fails_outside(c, &o->obs, i, e)) {
			got_text(&c->att[i], a->obs.got[i], got, sizeof got);
			ev(res, "%s: %s; ", c->att[i].what, got);
		}
	ev(res, "inside: %s", inside);
}

/* The judgement, with its evidence in words (text) or without: the same
 * verdict either way; only probe_judge's callers read the words. */
static int
judge(const struct probe_check *c, const struct probe_outcome *o,
    struct probe_result *res, int text)
{
	const struct probe_obs *ob = &o->obs;
	char buf[24];
	int i, e;

	if (text) {
		memset(res, 0, sizeof *res);
	} else {
		res->proven = res->above = res->natt = 0;
		res->evidence[0] = '\0';
	}
	if (o->end != END_REPORTED) {
		if (!text)
			return 0;
		switch (o->end) {
		case END_TIMEOUT:
			ev(res, "child timed out");
			break;
		case END_SIGNALED:
			ev(res, "child killed by signal %d", o->detail);
			break;
		case END_EXITED:
			ev(res, "child exited with status %d", o->detail);
			break;
		case END_SHORT:
			ev(res, "child sent %d of %zu report bytes", o->detail, sizeof *ob);
			break;
		case END_NOSTART:
			ev(res, "child not started: %s", probe_errno_name(o->detail, buf, sizeof buf));
			break;
		default:
			ev(res, "unknown child outcome");
			break;
		}
		return 0;
	}
	if (ob->magic != PROBE_OBS_MAGIC) {
		if (text)
			ev(res, "malformed child report");
		return 0;
	}
	if (ob->apply_err != 0) {
		if (!text)
			return 0;
		ev(res, "sandbox not applied: %s", probe_errno_name(ob->apply_err, buf, sizeof buf));
		if (memchr(ob->why, '\0', sizeof ob->why) != NULL && ob->why[0] != '\0')
			ev(res, ": %s", ob->why);
		return 0;
	}
	if (ob->n != c->natt || c->natt > PROBE_MAX_ATT) {
		if (text)
			ev(res, "child made %d of %d attempts", ob->n, c->natt);
		return 0;
	}
	res->proven = 1;
	res->natt = c->natt;
	for (i = 0; i < c->natt; i++) {
		const struct probe_attempt *a = &c->att[i];
		struct probe_att_result *ar = &res->att[i];

		ar->ok = attempt_ok(c, ob, i);
		if (!ar->ok)
			res->proven = 0;
		if (!text)
			continue;
		got_text(a, ob->got[i], ar->got, sizeof ar->got);
		want_text(c, a, ar->want, sizeof ar->want);
		if (a->kind == ATT_VALUE || a->kind == ATT_INFO || a->kind == ATT_ZERO_IF)
			ev(res, "%s%s=%s", i ? "; " : "", a->what, ar->got);
		else
			ev(res, "%s%s: %s", i ? "; " : "", a->what, ar->got);
		if (!ar->ok)
			ev(res, " (want %s)", ar->want);
	}
	if (!res->proven && (e = probe_control_refused(c, o)) != 0)
		above(c, o, e, res, text);
	return res->proven;
}

int
probe_judge(const struct probe_check *c, const struct probe_outcome *o,
    struct probe_result *res)
{
	return judge(c, o, res, 1);
}

int
probe_verdict(const struct probe_check *c, const struct probe_outcome *o,
    struct probe_result *res)
{
	return judge(c, o, res, 0);
}

/* Check i's verdict, from the results (r) or a byte per check (p). */
static int
proven_at(const struct probe_result *r, const unsigned char *p, size_t i)
{
	return r != NULL ? r[i].proven != 0 : p[i] != 0;
}

static enum probe_tier
tier_of(const struct probe_check *checks, const struct probe_result *r,
    const unsigned char *p, size_t n)
{
	size_t i;
	int t;

	for (t = TIER_FS; t <= TIER_FULL; t++)
		for (i = 0; i < n; i++)
			if ((int)checks[i].tier == t && !proven_at(r, p, i))
				return (enum probe_tier)(t - 1);
	return TIER_FULL;
}

static int
first_failing(const struct probe_check *checks, const struct probe_result *r,
    const unsigned char *p, size_t n, enum probe_tier want)
{
	int t;
	size_t i;

	/* Lowest tier first: the most basic failure is the useful one to name. */
	for (t = TIER_FS; t <= (int)want; t++)
		for (i = 0; i < n; i++)
			if ((int)checks[i].tier == t && !proven_at(r, p, i))
				return (int)i;
	return -1;
}

enum probe_tier
probe_tier_of(const struct probe_check *checks, const struct probe_result *r, size_t n)
{
	return tier_of(checks, r, NULL, n);
}

int
probe_first_failing(const struct probe_check *checks, const struct probe_result *r,
    size_t n, enum probe_tier want)
{
	return first_failing(checks, r, NULL, n, want);
}

enum probe_tier
probe_tier_of_proven(const struct probe_check *checks, const unsigned char *proven, size_t n)
{
	return tier_of(checks, NULL, proven, n);
}

int
probe_first_failing_proven(const struct probe_check *checks, const unsigned char *proven,
    size_t n, enum probe_tier want)
{
	return first_failing(checks, NULL, proven, n, want);
}
