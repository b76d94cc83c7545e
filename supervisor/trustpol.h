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
/* corral policy approve FILE: record its hash in STORE/approved/. */
int trustpol_approve(const char *path, char *const envp[]);

#endif
