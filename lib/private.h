/* private: the one definition of "private enough to hold a secret". */
#ifndef CORRAL_PRIVATE_H
#define CORRAL_PRIVATE_H
#include <stddef.h>
#include <sys/stat.h>

/* 0 when st is a regular file owned by the effective uid that neither
 * group nor others may read or write; else -1 with the reason in why
 * ("owned by uid 65534, not by you (uid 0)", "readable by group or others
 * (mode 0640)", ...), to follow the file's name. */
int private_check(const struct stat *st, char *why, size_t n);

#endif
