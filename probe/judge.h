/*
 * judge.h: probe's checks, their observations and the pure judgement.
 *
 * A check is a few attempts made by a real child process after it applied
 * a policy through confine's sandbox code (lib/sandbox.h); the child writes
 * what it saw (errno or a value per attempt) to a pipe and exits. Checks
 * whose policies fit together share one child (probe_check.child), whose
 * policy is their union. The parent judges each check's observations
 * against the table here; anything else (apply refused, a crash, a short
 * report, a timeout) leaves every check of that child unproven.
 */
#ifndef PROBE_JUDGE_H
#define PROBE_JUDGE_H
#include <stddef.h>
#include <stdint.h>

/* Tiers are cumulative and named from what was proven, never from versions. */
enum probe_tier {
	TIER_NONE = 0,	/* the file boundary itself is unproven */
	TIER_FS,	/* files, capabilities, no_new_privs, fds, /proc environ */
	TIER_FSNET,	/* plus TCP ports */
	TIER_FULL,	/* plus IPC scoping, unix sockets, TIOCSTI, socket families */
};

enum { PROBE_MAX_ATT = 8, PROBE_MAX_CHECKS = 32 };

enum probe_att_kind {
	ATT_DENY,	/* must fail with one of want[] */
	ATT_ALLOW,	/* must succeed */
	ATT_ERRNO,	/* must fail with want[0] and nothing else (a control) */
	ATT_VALUE,	/* must equal value */
	ATT_INFO,	/* recorded as evidence, not judged */
	ATT_ZERO_IF,	/* must be 0 when attempt number `value` saw non-zero */
	ATT_REACH,	/* must not fail with want[0] (the filter's answer):
			   success or the kernel's own error */
};

struct probe_attempt {
	const char *what;		/* "read B/f" */
	enum probe_att_kind kind;
	int want[2];			/* DENY/ERRNO: accepted errnos (0 = unused) */
	int64_t value;			/* VALUE; ZERO_IF: the attempt it depends on */
};

/* What a child reports for each of its checks: fixed size; a child writes
 * all of its checks' reports in one write, under PIPE_BUF. */
#define PROBE_OBS_MAGIC 0x70726f62u
struct probe_obs {
	uint32_t magic;
	int32_t apply_err;		/* 0: the sandbox applied; else errno */
	int32_t n;			/* attempts made */
	int32_t pad;
	int64_t got[PROBE_MAX_ATT];	/* errno (0 = success), or a value */
	char why[256];			/* apply_err: the sandbox's one line */
};

/* How the child ended, as the parent saw it. */
enum probe_end {
	END_REPORTED,		/* full report read, exit status 0 */
	END_TIMEOUT,
	END_SIGNALED,		/* detail: signal number */
	END_EXITED,		/* non-zero exit status; detail: status */
	END_SHORT,		/* no (or a partial) report; detail: bytes */
	END_NOSTART,		/* not started; detail: errno */
};

/* Closed from above: a container runtime's seccomp profile, say, refuses
 * some calls to every process under it (podman's refuses migrate_pages), so
 * a check's control fails inside the boundary as its attack does. When a
 * check (PROBE_ABOVE) saw only its controls fail, and all with one errno,
 * the parent runs its attempts again outside the boundary (above.c), under
 * the caller's filters alone. */
struct probe_above {
	int ran;			/* above holds the outside attempts */
	int seccomp, filters;		/* the caller's Seccomp and Seccomp_filters
					   (/proc/self/status); -1 unknown */
	struct probe_obs obs;
};

struct probe_outcome {
	enum probe_end end;
	int detail;
	struct probe_obs obs;
	struct probe_above above;
};

struct probe_check {
	const char *name;
	enum probe_tier tier;
	const char *claim;		/* one line: what a pass proves */
	const char *hint;		/* one line: what to do when it is not */
	int natt;
	struct probe_attempt att[PROBE_MAX_ATT];
	unsigned flags;			/* PROBE_OWN_MM, PROBE_ABOVE, PROBE_REST, ... */
	int child;			/* which child makes the attempts: 0 .. */
};

/* The child must not share the parent's address space: reading another
 * process's /proc/PID/environ is always allowed to a task sharing its mm. */
#define PROBE_OWN_MM 1u
/* Its attempts change nothing when made outside the boundary, and a filter
 * above the caller may refuse its control (see struct probe_above). */
#define PROBE_ABOVE 2u
/* Its attempts use fixtures of probe_setup_rest (A/, B/, the inherited
 * descriptor, the granted port's listener, the abstract listener), which
 * probe removes once every child with such a check ended; never with
 * PROBE_ABOVE (those attempts are made again after the children) or
 * PROBE_EARLY. */
#define PROBE_REST 4u
/* Its policy is applied on top of the boundary of the other checks of its
 * child, after their attempts (a policy theirs contradicts); none of its
 * attempts may be denied by theirs. */
#define PROBE_STACKED 8u
/* Its attempts need only the outside listener (probe_setup_first): its
 * child starts before the rest of the fixtures are made. */
#define PROBE_EARLY 16u

struct probe_att_result {
	char got[32];			/* "EACCES", "ok", "0", "errno 200" */
	char want[64];			/* "EACCES", "ok", "1", "0 when ..." */
	int ok;
};

struct probe_result {
	int proven;
	int above;			/* proven as closed from above */
	int natt;			/* attempts judged (0 when the child failed) */
	struct probe_att_result att[PROBE_MAX_ATT];
	char evidence[768];		/* one line: every attempt, or what went wrong */
};

/* The table (checks.c), in report order: lower tiers first, then the checks
 * added later (appended, whatever their tier). Children are
 * numbered 0 .. probe_nchildren - 1. */
extern const struct probe_check probe_checks[];
extern const size_t probe_nchecks;
extern const int probe_nchildren;

/* Pure: judge one outcome against its check; fills res. Returns res->proven. */
int probe_judge(const struct probe_check *c, const struct probe_outcome *o,
    struct probe_result *res);
/* Pure: the same judgement without the words: res->proven, above, natt and
 * each attempt's ok, evidence empty, got and want untouched (what the tier
 * and the exit status need; probe_judge when the report or a refusal shows
 * the evidence). Returns res->proven. */
int probe_verdict(const struct probe_check *c, const struct probe_outcome *o,
    struct probe_result *res);
/* Pure: the errno with which every failing attempt of o failed, when each
 * is a control (ATT_ALLOW, ATT_REACH) of a PROBE_ABOVE check; else 0. The
 * checks to run again outside the boundary (probe_above). */
int probe_control_refused(const struct probe_check *c, const struct probe_outcome *o);
/* Pure: the tier proven by results[i] for checks[i]. */
enum probe_tier probe_tier_of(const struct probe_check *checks,
    const struct probe_result *results, size_t n);
/* Pure: the first check at or below tier want that is not proven, or -1. */
int probe_first_failing(const struct probe_check *checks,
    const struct probe_result *results, size_t n, enum probe_tier want);
/* Pure: the same two from the verdicts alone, a byte per check (non-zero:
 * proven), as probe_verdict returns them: what probe decides by when it
 * shows no words, so that no result (1.6 KB each) is written. */
enum probe_tier probe_tier_of_proven(const struct probe_check *checks,
    const unsigned char *proven, size_t n);
int probe_first_failing_proven(const struct probe_check *checks,
    const unsigned char *proven, size_t n, enum probe_tier want);
const char *probe_tier_name(enum probe_tier t);
/* "fs", "fs+net", "full" -> tier; -1 with errno EINVAL otherwise ("none" too). */
int probe_tier_parse(const char *s, enum probe_tier *out);
/* "EACCES" for EACCES; "errno N" in buf for unknown ones. */
const char *probe_errno_name(int e, char *buf, size_t n);

#endif
