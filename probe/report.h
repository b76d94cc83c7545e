/* report: probe's three output formats, into a buffer. Pure. */
#ifndef PROBE_REPORT_H
#define PROBE_REPORT_H
#include <stddef.h>

#include "judge.h"

enum probe_format { FMT_DEFAULT, FMT_VERBOSE, FMT_JSON };

struct probe_report {
	enum probe_tier tier;		/* proven */
	enum probe_tier required;	/* --require (TIER_FS by default) */
	int failing;			/* first unproven check at or below
					   required, or -1 */
	const char *kernel;		/* uname release */
	int abi;			/* Landlock ABI as the kernel answers; 0 none */
	const struct probe_check *checks;
	const struct probe_result *results;
	size_t n;
};

#define PROBE_LOCAL_NOTE "this detail stays on this machine: report only platform and tier upstream"

/* Format r into out (cap bytes, NUL-terminated). Returns the length, or -1
 * with errno ENOSPC. */
int probe_format(enum probe_format f, const struct probe_report *r, char *out, size_t cap);

#endif
