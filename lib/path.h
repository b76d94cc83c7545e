/* path: facts about absolute path strings and this program's own place. */
#ifndef CORRAL_PATH_H
#define CORRAL_PATH_H
#include <stddef.h>

/* 1 when path b is a, or lies beneath a (by components: /a/bc is not
 * beneath /a/b); every path is beneath "/". Pure: no symlinks resolved. */
int path_within(const char *b, const char *a);
/* The directory of the running executable (/proc/self/exe) into out.
 * 0, or -1 with errno (ENAMETOOLONG when it does not fit). */
int path_self_dir(char *out, size_t n);

#endif
