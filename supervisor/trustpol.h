/* trustpol: a policy file is trusted only where the agent could not have
 * written it, or when the user approved exactly these bytes. */
#ifndef CORRAL_TRUSTPOL_H
#define CORRAL_TRUSTPOL_H
#include <limits.h>
#include <sys/stat.h>

#include "plan.h"

enum { TRUSTPOL_HASH = 32 };

/* What was read: the path as given, the SHA-256 of the bytes parsed, and
 * fstat of the descriptor they came from. */
struct polsrc {
	int set;
	char path[PATH_MAX];
	unsigned char sha[TRUSTPOL_HASH];
	struct stat st;
};

void trustpol_hash(const void *buf, size_t len, unsigned char out[TRUSTPOL_HASH]);
/* After plan_resolve. 0: use it. -1: refused, reported (fatal + hint). */
int trustpol_check(const struct polsrc *src, const struct plan *pl);
/* Another file corral hands to a step (--profiles, --test-cacert): trusted
 * by the same rules, no approval; its real path into real (PATH_MAX).
 * path NULL: nothing, 0. -1: refused, reported. */
int trustpol_extra(const char *path, const char *what, const struct plan *pl, char *real);
/* corral policy approve: record src's hash for the policy at real (its
 * real path) in STORE/approved/ and say so. The exit status. */
int trustpol_record(const char *real, const struct polsrc *src, char *const envp[]);

#endif
