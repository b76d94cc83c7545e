/* gitnested: in-place mode, every repository nested in the workspace (any
 * .git below the top, a directory or a file, and the directory a file's
 * "gitdir:" names) fingerprinted by content before the run and compared
 * after: SHA-256 over the names, modes and contents of its control files,
 * which are all but what git writes on every use or checks itself
 * (objects/, refs/, logs/, the index, the *HEAD files, packed-refs). A
 * timestamp says nothing: core.fsmonitor appended to a submodule's
 * .git/config leaves the .git directory's untouched. Special files (FIFOs,
 * sockets, devices) are noted by place. Reads only; no exit. */
#ifndef CORRAL_GITNESTED_H
#define CORRAL_GITNESTED_H
#include "argv.h"

/* "PATH\tFINGERPRINT" into out for each, PATH relative to ws. 0, or -1. */
int gitnested_scan(const char *ws, struct argv *out);
/* 1 when dfd/nm (at PATH in the workspace) is as before the run; 0 when it
 * changed, is new, or cannot be read whole. */
int gitnested_same(const struct argv *before, int dfd, const char *nm, const char *path);

#endif
