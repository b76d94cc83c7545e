/* verdict: what a run's boundary gives one path or one destination, and
 * why; the core of corral why (pure: the plan is already resolved). */
#ifndef CORRAL_VERDICT_H
#define CORRAL_VERDICT_H
#include <stddef.h>

#include "plan.h"

enum access { ACC_NONE = 0, ACC_READ, ACC_EXEC, ACC_WRITE };
/* What the path asks of the boundary (corral why looks): an executable or a
 * PATH directory to run, a path not yet made to make (in its nearest
 * existing directory), a unix socket to connect to, else to read. */
enum need { NEED_READ, NEED_EXEC, NEED_WRITE, NEED_SOCKET };

struct verdict {
	enum access acc;
	char rule[PATH_MAX + 160];	/* the rule or default behind acc */
	int never;		/* 1: nothing a policy says can grant it */
	int net;		/* a destination: acc is ACC_NONE or ACC_WRITE (allowed) */
	char grant[PATH_MAX + 64]; /* the policy line that would, or "" */
	const char *verb;	/* what the line lets the agent do: "read", "run", "make", ... */
	int short_of_need;	/* granted, but not what the path needs (grant says what would) */
};

/* The boundary's answer for real, an absolute path with symlinks resolved,
 * asked for need; at is where a line would grant it (real, or for a path
 * not yet made, its nearest existing directory). */
void verdict_path(const struct plan *pl, const char *real, enum need need, const char *at,
    struct verdict *v);
/* ... for a TCP connect to host:port (host an IP literal or a name). */
void verdict_connect(const struct plan *pl, const char *host, unsigned port, struct verdict *v);
const char *access_name(enum access a);

#endif
