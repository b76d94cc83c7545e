/* stepdir: where the step programs are (corral and sandbox-mcp run them by
 * absolute path, never through $PATH). */
#ifndef CORRAL_STEPDIR_H
#define CORRAL_STEPDIR_H
#include <stddef.h>

/* The directory holding the step programs: $PREFIX/libexec/corral beside a
 * program installed in $PREFIX/bin, else the program's own directory (the
 * build tree's bin/, or libexec/corral itself). Reads /proc/self/exe. */
int resolve_stepdir(char *out, size_t n);

#endif
