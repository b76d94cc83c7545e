/* gitcfg: read user.name and user.email from a git config file. Pure. */
#ifndef GITCFG_H
#define GITCFG_H
#include <stddef.h>

enum { GITCFG_VALUE_MAX = 256 };

/* Scan buf for [user] name/email (last one wins, as git does). Values with
 * control characters are skipped. Found values are written NUL-terminated;
 * absent ones leave out untouched. Returns 0, or -1 EINVAL on an
 * unterminated quote or section header. */
int gitcfg_user(const char *buf, size_t len, char *name, char *email);
/* The whole minimal .gitconfig for name/email (either may be ""). Returns
 * its length, or -1 ENOSPC. */
int gitcfg_format(const char *name, const char *email, char *out, size_t n);

#endif
