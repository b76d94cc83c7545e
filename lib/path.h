/* path: facts about absolute path strings and this program's own place. */
#ifndef CORRAL_PATH_H
#define CORRAL_PATH_H
#include <stddef.h>

/* 1 when path b is a, or lies beneath a (by components: /a/bc is not
 * beneath /a/b); every path is beneath "/". Pure: no symlinks resolved. */
int path_within(const char *b, const char *a);
/* 1 when p is absolute with no empty, "." or ".." component ("/" is):
 * the name realpath(1) would print, if no link lies on its way. Pure. */
int path_canonical(const char *p);
/* "dir/name" into out (n bytes), as snprintf("%s/%s") would but without a
 * format to parse (planning joins paths in its inner loops). 0, or -1 when
 * it does not fit (out is then unchanged). */
int path_cat(char *out, size_t n, const char *dir, const char *name);
/* The directory of the running executable (/proc/self/exe) into out.
 * 0, or -1 with errno (ENAMETOOLONG when it does not fit). */
int path_self_dir(char *out, size_t n);
/* chdir to dir, opened without following a symbolic link anywhere on it
 * (openat2 RESOLVE_NO_SYMLINKS, then fchdir): keeper's and confine's
 * --chdir. 0, or -1 with errno. */
int path_enter(const char *dir);

#endif
