/* homepath: a PATH directory in the home is granted by the toolchain table
 * (toolchains.h), exactly what the matching entries say, or left out with
 * the policy line that would grant it. Reads the file system; no exit. */
#ifndef CORRAL_HOMEPATH_H
#define CORRAL_HOMEPATH_H
#include <stddef.h>

#include "plan.h"

/* dir is the PATH entry as spelled, real its resolved path (in the home).
 * Returns 1 when an entry granted it (grants into pl->ex and pl->rd, notes
 * and the entry's environment into pl->notes and pl->tcenv), 0 when it is
 * left out (a warning line naming it and the policy line into warn), -1 out
 * of memory. */
int homepath_grant(struct plan *pl, const char *dir, const char *real, char *warn, size_t warnn);

#endif
