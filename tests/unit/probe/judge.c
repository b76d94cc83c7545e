/* probe's pure parts: judging observations, tiers, output formats. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "above.h"
#include "judge.h"
#include "json.h"
#include "report.h"
#include "tap.h"

static int
find(const char *name)
{
	size_t i;

	for (i = 0; i < probe_nchecks; i++)
		if (strcmp(probe_checks[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* probe_judge, and probe_verdict (what probe decides by) beside it: a
 * verdict that differs from the worded judgement is counted. */
static int mismatch, compared, verdicts[2];

static int
judge2(const struct probe_check *c, const struct probe_outcome *o, struct probe_result *res)
{
	struct probe_result v;
	size_t i;
	int r = probe_judge(c, o, res);

	memset(&v, 0x5a, sizeof v);	/* whatever was there before */
	if (probe_verdict(c, o, &v) != r || v.proven != res->proven || v.above != res->above ||
	    v.natt != res->natt || v.evidence[0] != '\0')
		mismatch++;
	for (i = 0; i < (size_t)res->natt && i < PROBE_MAX_ATT; i++)
		if (v.att[i].ok != res->att[i].ok)
			mismatch++;
	compared++;
	verdicts[r != 0]++;
	return r;
}

/* An outcome in which every attempt of check c saw what it wants. */
static void
good(const struct probe_check *c, struct probe_outcome *o)
{
	int i;

	memset(o, 0, sizeof *o);
	o->end = END_REPORTED;
	o->obs.magic = PROBE_OBS_MAGIC;
	o->obs.n = c->natt;
	for (i = 0; i < c->natt; i++) {
		switch (c->att[i].kind) {
		case ATT_DENY: case ATT_ERRNO: o->obs.got[i] = c->att[i].want[0]; break;
		case ATT_ALLOW: o->obs.got[i] = 0; break;
		case ATT_VALUE: o->obs.got[i] = c->att[i].value; break;
		case ATT_INFO: o->obs.got[i] = 1; break;
		case ATT_ZERO_IF: o->obs.got[i] = 0; break;
		case ATT_REACH: o->obs.got[i] = 0; break;
		}
	}
}

static void
all_good(struct probe_result *res)
{
	struct probe_outcome o;
	size_t i;

	for (i = 0; i < probe_nchecks; i++) {
		good(&probe_checks[i], &o);
		judge2(&probe_checks[i], &o, &res[i]);
	}
}

/* The verdicts alone, a byte per check (what probe decides by when it shows
 * no words), give the tier and the first failing check the results give. */
static void
bytes_agree(const struct probe_result *res, const char *what)
{
	unsigned char proven[PROBE_MAX_CHECKS];
	size_t i;
	int t, same = 1;

	for (i = 0; i < probe_nchecks; i++)
		proven[i] = (unsigned char)res[i].proven;
	for (t = TIER_FS; t <= TIER_FULL; t++)
		same &= probe_first_failing_proven(probe_checks, proven, probe_nchecks, (enum probe_tier)t) ==
		    probe_first_failing(probe_checks, res, probe_nchecks, (enum probe_tier)t);
	is_int(probe_tier_of_proven(probe_checks, proven, probe_nchecks),
	    probe_tier_of(probe_checks, res, probe_nchecks), "%s: the same tier from the bytes", what);
	ok(same, "%s: the same first failing check from the bytes, at every tier", what);
}

int
main(void)
{
	const struct probe_check *fs, *privs;
	struct probe_outcome o;
	struct probe_result r, res[PROBE_MAX_CHECKS];
	struct probe_report rep;
	enum probe_tier t;
	char out[65536], buf[64];
	jsmntok_t tok[2048];
	size_t i;
	int n, k, ifs = find("fs"), iprivs = find("privs"), itcp = find("tcp");
	int isig = find("signal"), iudp = find("udp");

	ok(ifs == 0, "fs is the first check");
	ok(iprivs >= 0 && itcp >= 0 && isig >= 0 && iudp >= 0, "the table has privs, tcp, signal, udp");
	ok(find("fds") >= 0 && find("proc-environ") >= 0 && find("abstract-unix") >= 0 &&
	    find("unix-socket") >= 0 && find("tiocsti") >= 0, "and fds, proc-environ, abstract-unix, unix-socket, tiocsti");
	for (i = 1; i < probe_nchecks; i++)
		if (probe_checks[i].tier < probe_checks[i - 1].tier)
			break;
	ok(i == probe_nchecks, "table in tier order");
	for (i = 0; i < probe_nchecks; i++)
		if ((probe_checks[i].flags & PROBE_REST) &&
		    (probe_checks[i].flags & (PROBE_ABOVE | PROBE_EARLY)))
			break;
	ok(i == probe_nchecks, "no check made again outside (PROBE_ABOVE) or started early uses the fixtures dropped early");
	fs = &probe_checks[ifs];
	privs = &probe_checks[iprivs];

	good(fs, &o);
	is_int(judge2(fs, &o, &r), 1, "fs: B denied EACCES and A allowed is proven");
	is_str(r.evidence, "read unread sibling B/f: EACCES; read granted A/f: ok", "fs evidence names the errno");
	is_int(r.natt, 2, "two attempts judged");
	is_str(r.att[0].want, "EACCES", "want EACCES");

	o.obs.got[0] = 0;
	is_int(judge2(fs, &o, &r), 0, "fs: both allowed is unproven");
	ok(strstr(r.evidence, "read unread sibling B/f: ok (want EACCES)") != NULL, "evidence shows got and want");
	good(fs, &o);
	o.obs.got[1] = EACCES;
	is_int(judge2(fs, &o, &r), 0, "fs: both denied is unproven");
	good(fs, &o);
	o.obs.got[0] = ENOENT;
	is_int(judge2(fs, &o, &r), 0, "fs: B missing (ENOENT) is not a denial");
	good(fs, &o);
	o.obs.got[0] = -5;
	is_int(judge2(fs, &o, &r), 0, "fs: a negative errno is unproven");
	ok(strstr(r.evidence, "bad errno -5") != NULL, "and says so");

	good(fs, &o);
	o.end = END_TIMEOUT;
	is_int(judge2(fs, &o, &r), 0, "timeout is unproven");
	is_str(r.evidence, "child timed out", "timeout evidence");
	o.end = END_SIGNALED; o.detail = 9;
	is_int(judge2(fs, &o, &r), 0, "crash is unproven");
	is_str(r.evidence, "child killed by signal 9", "signal evidence");
	o.end = END_EXITED; o.detail = 3;
	is_int(judge2(fs, &o, &r), 0, "non-zero exit is unproven");
	o.end = END_SHORT; o.detail = 10;
	is_int(judge2(fs, &o, &r), 0, "short report is unproven");
	o.end = END_NOSTART; o.detail = EAGAIN;
	is_int(judge2(fs, &o, &r), 0, "no child is unproven");
	is_str(r.evidence, "child not started: EAGAIN", "fork failure evidence");
	o.end = (enum probe_end)99;
	is_int(judge2(fs, &o, &r), 0, "unknown end is unproven");

	good(fs, &o);
	o.obs.magic = 0;
	is_int(judge2(fs, &o, &r), 0, "bad magic is unproven");
	good(fs, &o);
	o.obs.n = 1;
	is_int(judge2(fs, &o, &r), 0, "too few attempts is unproven");
	good(fs, &o);
	o.obs.n = PROBE_MAX_ATT + 1;
	is_int(judge2(fs, &o, &r), 0, "too many attempts is unproven");
	good(fs, &o);
	o.obs.apply_err = ENOSYS;
	snprintf(o.obs.why, sizeof o.obs.why, "Landlock is not available");
	is_int(judge2(fs, &o, &r), 0, "sandbox refused is unproven");
	is_str(r.evidence, "sandbox not applied: ENOSYS: Landlock is not available", "refusal evidence carries the reason");
	memset(o.obs.why, 'x', sizeof o.obs.why);
	judge2(fs, &o, &r);
	is_str(r.evidence, "sandbox not applied: ENOSYS", "an unterminated reason is dropped");

	/* privs: the bounding set only has to be empty when it could be emptied */
	good(privs, &o);
	o.obs.got[0] = 0;
	o.obs.got[privs->natt - 1] = 41;
	is_int(judge2(privs, &o, &r), 1, "no CAP_SETPCAP: a full bounding set is accepted (no_new_privs)");
	o.obs.got[0] = 1;
	is_int(judge2(privs, &o, &r), 0, "with CAP_SETPCAP the bounding set must be empty");
	good(privs, &o);
	o.obs.got[1] = 0;
	is_int(judge2(privs, &o, &r), 0, "no_new_privs unset is unproven");
	good(privs, &o);
	o.obs.got[2] = 1LL << 21;
	is_int(judge2(privs, &o, &r), 0, "an effective capability is unproven");

	/* closed from above (a container's seccomp profile refuses the control) */
	{
		const struct probe_check *mg = &probe_checks[find("migrate-pages")];
		const struct probe_check *fsx = &probe_checks[ifs];
		const char *st = "Name:\tprobe\nSeccomp:\t2\nSeccomp_filters:\t3\nSpeculation_Store_Bypass:\tx\n";
		int mode, filt;

		ok((mg->flags & PROBE_ABOVE) && !(fsx->flags & PROBE_ABOVE), "migrate-pages may be closed from above, fs may not");
		good(mg, &o);
		is_int(probe_control_refused(mg, &o), 0, "all good: no control refused");
		o.obs.got[1] = EPERM;
		is_int(probe_control_refused(mg, &o), EPERM, "the control refused with EPERM: EPERM");
		is_int(judge2(mg, &o, &r), 0, "not run outside: unproven");
		ok(strstr(r.evidence, "; not closed from above: the attempts could not be made outside the boundary") != NULL, "and says so");
		o.above.ran = 1;
		o.above.seccomp = 2;
		o.above.filters = 1;
		o.above.obs = o.obs;
		is_int(judge2(mg, &o, &r), 1, "attack and control refused outside too, under seccomp: closed");
		is_int(r.above, 1, "closed from above");
		is_str(r.evidence, "closed from above: the caller's seccomp filter (Seccomp: 2, Seccomp_filters: 1) refuses them outside the boundary too: "
		    "migrate_pages(parent, node 0 to none): EPERM; migrate_pages(0, node 0 to none): EPERM; "
		    "inside: migrate_pages(parent, node 0 to none): EPERM; migrate_pages(0, node 0 to none): EPERM (want anything but EPERM)",
		    "the evidence: the seccomp mode, outside, inside");
		o.above.seccomp = 0;
		is_int(judge2(mg, &o, &r), 0, "no seccomp filter above: unproven");
		ok(strstr(r.evidence, "the caller is under no seccomp filter (Seccomp: 0)") != NULL, "and says so");
		o.above.seccomp = 2;
		o.above.obs.got[0] = 0;
		is_int(judge2(mg, &o, &r), 0, "the attack gets through outside (only the control refused): unproven");
		is_int(r.above, 0, "not closed");
		ok(strstr(r.evidence, "not closed from above: outside the boundary migrate_pages(parent, node 0 to none): ok (want EPERM, as the control)") != NULL, "and says so");
		o.above.obs.got[0] = ENOSYS;
		is_int(judge2(mg, &o, &r), 0, "refused outside another way: unproven");
		o.above.obs.got[0] = EPERM;
		o.above.obs.n = 1;
		is_int(judge2(mg, &o, &r), 0, "a short outside report: unproven");
		o.above.obs.n = mg->natt;
		o.above.obs.magic = 0;
		is_int(judge2(mg, &o, &r), 0, "a malformed outside report: unproven");
		o.above.obs.magic = PROBE_OBS_MAGIC;
		o.obs.got[0] = 0;
		is_int(probe_control_refused(mg, &o), 0, "the attack got through inside: never closed from above");
		is_int(judge2(mg, &o, &r), 0, "... unproven");
		good(fsx, &o);
		o.obs.got[1] = EACCES;
		o.above = (struct probe_above){ 1, 2, 1, o.obs };
		is_int(probe_control_refused(fsx, &o), 0, "fs: its control is never judged from above");
		is_int(judge2(fsx, &o, &r), 0, "fs with its control refused: unproven");

		probe_seccomp_parse(st, strlen(st), &mode, &filt);
		ok(mode == 2 && filt == 3, "Seccomp and Seccomp_filters read");
		probe_seccomp_parse("Seccomp:\t0\n", strlen("Seccomp:\t0\n"), &mode, &filt);
		ok(mode == 0 && filt == -1, "mode 0, no Seccomp_filters line: -1");
		probe_seccomp_parse("Seccomp_filters:\t1\nSeccomp:\tx\n", strlen("Seccomp_filters:\t1\nSeccomp:\tx\n"), &mode, &filt);
		ok(mode == -1 && filt == 1, "a malformed mode: -1");
		probe_seccomp_parse("XSeccomp:\t2\nSeccomp:\t2 junk\n", strlen("XSeccomp:\t2\nSeccomp:\t2 junk\n"), &mode, &filt);
		ok(mode == -1, "only a whole line counts");
	}

	/* tiers */
	all_good(res);
	is_int(probe_tier_of(probe_checks, res, probe_nchecks), TIER_FULL, "everything proven: full");
	is_int(probe_first_failing(probe_checks, res, probe_nchecks, TIER_FULL), -1, "nothing failing");
	bytes_agree(res, "all proven");
	res[isig].proven = 0;
	is_int(probe_tier_of(probe_checks, res, probe_nchecks), TIER_FSNET, "signal unproven: fs+net");
	is_int(probe_first_failing(probe_checks, res, probe_nchecks, TIER_FSNET), -1, "fs+net required: met");
	is_int(probe_first_failing(probe_checks, res, probe_nchecks, TIER_FULL), isig, "full required: signal named");
	bytes_agree(res, "signal unproven");
	res[itcp].proven = 0;
	is_int(probe_tier_of(probe_checks, res, probe_nchecks), TIER_FS, "tcp unproven too: fs");
	is_int(probe_first_failing(probe_checks, res, probe_nchecks, TIER_FULL), itcp, "lowest failing tier named first");
	bytes_agree(res, "signal and tcp unproven");
	all_good(res);
	res[itcp].proven = 0;
	is_int(probe_tier_of(probe_checks, res, probe_nchecks), TIER_FS, "tcp alone unproven: fs (tiers are cumulative)");
	bytes_agree(res, "tcp unproven");
	all_good(res);
	res[iprivs].proven = 0;
	is_int(probe_tier_of(probe_checks, res, probe_nchecks), TIER_NONE, "privs unproven: none");
	is_int(probe_first_failing(probe_checks, res, probe_nchecks, TIER_FS), iprivs, "privs named at fs");
	bytes_agree(res, "privs unproven");

	is_int(probe_tier_parse("fs", &t), 0, "fs parses");
	is_int(t, TIER_FS, "fs");
	is_int(probe_tier_parse("fs+net", &t), 0, "fs+net parses");
	is_int(t, TIER_FSNET, "fs+net");
	is_int(probe_tier_parse("full", &t), 0, "full parses");
	is_int(t, TIER_FULL, "full");
	is_int(probe_tier_parse("none", &t), -1, "none is not a requirement");
	is_int(probe_tier_parse("FULL", &t), -1, "case matters");
	is_int(probe_tier_parse("", &t), -1, "empty refused");
	is_int(errno, EINVAL, "EINVAL");
	is_str(probe_tier_name((enum probe_tier)7), "none", "out of range names none");
	is_str(probe_errno_name(EACCES, buf, sizeof buf), "EACCES", "errno name");
	is_str(probe_errno_name(0, buf, sizeof buf), "ok", "0 is ok");
	is_str(probe_errno_name(4000, buf, sizeof buf), "errno 4000", "unknown errno numbered");

	/* output */
	all_good(res);
	memset(&rep, 0, sizeof rep);
	rep.checks = probe_checks;
	rep.results = res;
	rep.n = probe_nchecks;
	rep.tier = TIER_FULL;
	rep.required = TIER_FS;
	rep.failing = -1;
	rep.kernel = "6.18.0 \"x\"";
	rep.abi = 7;
	n = probe_format(FMT_DEFAULT, &rep, out, sizeof out);
	is_str(out, "platform=linux tier=full\n", "default output is exactly two fields");
	is_int(n, 25, "and its length");
	is_int(probe_format(FMT_DEFAULT, &rep, out, 10), -1, "too small a buffer: -1");
	is_int(errno, ENOSPC, "ENOSPC");
	is_str(out, "", "and nothing half-written");

	n = probe_format(FMT_VERBOSE, &rep, out, sizeof out);
	ok(n > 0 && strncmp(out, "platform=linux tier=full\nkernel: 6.18.0 \"x\"\nlandlock abi: 7\n", 60) == 0, "verbose starts with tier, kernel, ABI");
	ok(strstr(out, "check fs: proven [tier fs]\n") != NULL, "verbose lists fs");
	ok(strstr(out, "  evidence: read unread sibling B/f: EACCES; read granted A/f: ok\n") != NULL, "verbose shows evidence");
	ok(strstr(out, "note: this detail stays on this machine") != NULL, "verbose says it stays here");

	rep.tier = TIER_FS;
	rep.required = TIER_FULL;
	res[itcp].proven = 0;
	rep.failing = itcp;
	n = probe_format(FMT_JSON, &rep, out, sizeof out);
	ok(n > 0, "json formats");
	k = json_parse(out, (size_t)n, tok, 2048);
	ok(k > 0 && tok[0].type == JSMN_OBJECT, "json is one object");
	ok(json_eq(out, &tok[json_get(out, tok, 0, "platform")], "linux"), "json platform");
	ok(json_eq(out, &tok[json_get(out, tok, 0, "tier")], "fs"), "json tier");
	ok(json_eq(out, &tok[json_get(out, tok, 0, "required")], "full"), "json required");
	ok(json_eq(out, &tok[json_get(out, tok, 0, "failing")], "tcp"), "json failing check");
	ok(json_eq(out, &tok[json_get(out, tok, 0, "kernel")], "6.18.0 \"x\""), "json kernel, quoted");
	{
		int64_t v;
		int c = json_pointer(out, tok, k, 0, "/checks/4/name");
		int a = json_pointer(out, tok, k, 0, "/checks/0/attempts/0/got");

		ok(json_int(out, &tok[json_get(out, tok, 0, "landlock_abi")], &v) == 0 && v == 7, "json ABI");
		ok(c > 0 && json_eq(out, &tok[c], probe_checks[4].name), "json checks in order");
		ok(a > 0 && json_eq(out, &tok[a], "EACCES"), "json attempt errno");
		c = json_pointer(out, tok, k, 0, "/checks/4/result");
		ok(c > 0 && json_eq(out, &tok[c], itcp == 4 ? "unproven" : "proven"), "json result");
	}
	is_int(mismatch, 0, "probe_verdict agrees with probe_judge on every outcome above (%d, %d proven, %d not)",
	    compared, verdicts[1], verdicts[0]);
	ok(verdicts[0] > 20 && verdicts[1] > 20, "... both verdicts among them");
	return done_testing();
}
