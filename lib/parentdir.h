/* parentdir: (corral, home-stage, sandbox-mcp) open the directory that
 * holds a relative path's last component, beneath a directory descriptor,
 * every directory on the way opened with O_NOFOLLOW: a symlink in the way
 * is never followed (ELOOP), whoever could have put it there. */
#ifndef CORRAL_PARENTDIR_H
#define CORRAL_PARENTDIR_H
#include <sys/types.h>

/* The directory of rel's parent components under dirfd (rel itself when it
 * has no '/'), making a missing one with mode when mode is not 0; *base is
 * rel's last component. An empty component, one longer than NAME_MAX, or
 * a non-directory in the way fails. The descriptor (O_CLOEXEC), or -1 with
 * errno: ELOOP for a symlink in the way, ENOTDIR, ENOENT, ENAMETOOLONG. */
int parentdir_open(int dirfd, const char *rel, mode_t mode, const char **base);
/* The same; with PARENTDIR_REPLACE (and a mode), a file or symlink where a
 * directory must be is removed and the directory made in its place (the
 * link is removed, never followed): for a tree that must take a given
 * shape whatever the agent left in it. */
#define PARENTDIR_REPLACE 1
int parentdir_openf(int dirfd, const char *rel, mode_t mode, int flags, const char **base);

#endif
