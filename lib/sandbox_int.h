/* sandbox_int: internals shared by the sandbox_*.c files (not an API). */
#ifndef CORRAL_SANDBOX_INT_H
#define CORRAL_SANDBOX_INT_H
#include "sandbox.h"

#define SB_MAX_EXTRA 1024

/* Rules sb_apply adds on top of the policy (git protection). */
struct sb_extra {
	struct sb_path path[SB_MAX_EXTRA];
	size_t n;
};

/* Fill *e and return -1 (errno = err, or EPERM). */
int sb_fail(struct sb_error *e, enum sb_code code, int err, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* seccomp: can the filter this policy needs be installed here? */
int sb_seccomp_check(const struct sb_policy *p, struct sb_error *e);
/* Install it; with notify_sock >= 0, send the listener fd over it to the
 * broker and close it. */
int sb_seccomp_install(const struct sb_policy *p, int notify_sock, struct sb_error *e);
/* Start the unix socket broker outside the boundary; returns the socket the
 * listener fd goes to, or -1 with *e filled. */
int sb_broker_start(const struct sb_policy *p, struct sb_error *e);

/* git protection for the repository at dir: prepares it and appends the
 * rules to *x. */
int sb_git_prepare(const char *dir, struct sb_extra *x, struct sb_error *e);
/* Refuse a policy whose write grants cover dir/.git. */
int sb_git_conflicts(const struct sb_policy *p, const char *dir, struct sb_error *e);

#endif
