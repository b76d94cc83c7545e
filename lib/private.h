/* private: (env-filter, corral, mcp-proxy, sandbox-mcp) the one definition
 * of "private enough to hold a secret", for a file and for a directory.
 * (The session store's own check, store_check, is deliberately weaker: a
 * store may be readable by others, never writable; what it keeps private
 * lives in directories of its own.) */
#ifndef CORRAL_PRIVATE_H
#define CORRAL_PRIVATE_H
#include <stddef.h>
#include <sys/stat.h>

/* 0 when st is a regular file owned by the effective uid that neither
 * group nor others may read or write; else -1 with the reason in why
 * ("owned by uid 65534, not by you (uid 0)", "readable by group or others
 * (mode 0640)", ...), to follow the file's name. */
int private_check(const struct stat *st, char *why, size_t n);
/* 0 when st is a directory owned by the effective uid that group and
 * others can neither read, write nor search (mode 0700 or less); else -1
 * with the reason in why, as private_check. */
int private_dir_check(const struct stat *st, char *why, size_t n);

#endif
