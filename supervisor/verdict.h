/* verdict: what a run's boundary gives one path or one destination, and
 * why; the core of corral why (pure: the plan is already resolved). */
#ifndef CORRAL_VERDICT_H
#define CORRAL_VERDICT_H
#include <stddef.h>

#include "plan.h"

enum access { ACC_NONE = 0, ACC_READ, ACC_EXEC, ACC_WRITE };

struct verdict {
	enum access acc;
	char rule[PATH_MAX + 160];	/* the rule or default behind acc */
	int never;		/* 1: nothing a policy says can grant it */
	int net;		/* a destination: acc is ACC_NONE or ACC_WRITE (allowed) */
	char grant[PATH_MAX + 64]; /* the policy line that would, or "" */
};

/* The boundary's answer for real, an absolute path with symlinks resolved. */
void verdict_path(const struct plan *pl, const char *real, struct verdict *v);
/* ... for a TCP connect to host:port (host an IP literal or a name). */
void verdict_connect(const struct plan *pl, const char *host, unsigned port, struct verdict *v);
const char *access_name(enum access a);

#endif
