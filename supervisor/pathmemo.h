/* pathmemo: lstat and readlink, each path asked of the kernel once a
 * process. Planning a run resolves every grant component by component
 * (linkwalk.c, installtree.c), and the same /usr, /usr/bin, home and store
 * come up for each grant. Only for planning: what is granted is opened
 * again by confine --no-symlinks, which refuses any link found there then. */
#ifndef CORRAL_PATHMEMO_H
#define CORRAL_PATHMEMO_H
#include <sys/stat.h>
#include <sys/types.h>

/* As lstat(2) and readlink(2); a failure is not remembered. */
int memo_lstat(const char *path, struct stat *st);
ssize_t memo_readlink(const char *path, char *buf, size_t n);
/* As getcwd(3) into buf (n bytes): the process's directory, asked once
 * (corral never changes it); NULL with errno as getcwd's. */
char *memo_getcwd(char *buf, size_t n);

#endif
