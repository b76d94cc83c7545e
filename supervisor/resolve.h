/* resolve: turn a policy and the caller's situation into a plan (I/O: reads
 * /proc/self/exe, the file system, the environment given). */
#ifndef CORRAL_RESOLVE_H
#define CORRAL_RESOLVE_H
#include <stddef.h>

#include "plan.h"

/* Known agent profiles (home-stage's embedded defaults). */

#include "stepdir.h"	/* resolve_stepdir */

/* Fill pl from pol, envp and cmd. agent may be NULL (policy, then command
 * name, then "none"). On failure returns -1 with a one-line reason in why
 * (and a hint in hint, maybe empty). Warnings (PATH entries left out) go to
 * warn as newline-separated lines. */
int plan_resolve(struct plan *pl, const struct policy *pol, char *const envp[],
    char *const *cmd, char *why, size_t whyn, char *hint, size_t hintn,
    char *warn, size_t warnn);

#include "path.h"	/* path_within */

/* An env file as env-filter -f takes it: a regular file (not a symbolic
 * link) owned by the caller, no access for group or others. 0, or -1 with
 * the reason in why. */
int envfile_check(const char *path, char *why, size_t n);

#endif
