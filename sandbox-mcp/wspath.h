/* wspath: workspace-relative paths, checked before anything is touched,
 * and opened beneath the workspace by descriptor without ever following a
 * symbolic link (an O_NOFOLLOW walk, component by component). */
#ifndef SBX_WSPATH_H
#define SBX_WSPATH_H
#include <stddef.h>

enum { WS_PATH_MAX = 4095, WS_PATHS_MAX = 256, WS_DEPTH_MAX = 128 };

/* Pure. Refused: empty, absolute, longer than WS_PATH_MAX, a "..", "." or
 * empty component, more than WS_DEPTH_MAX components, a control character.
 * (NUL cannot be in a C string: the argument parser refuses it.) */
int ws_path_check(const char *path, char *err, size_t errn);
/* Open the directory holding path's last component (creating missing
 * directories 0755 when create), without following any symlink. *base
 * points into path at the last component. Returns a descriptor or -1
 * with errno (ELOOP: a symlink on the way, ENOTDIR). */
int ws_parent(int wsfd, const char *path, int create, const char **base);
/* Open path beneath the workspace (flags as openat; O_NOFOLLOW added). */
int ws_open(int wsfd, const char *path, int flags, int mode);
/* The reason for an errno from the two above, for a message. */
const char *ws_strerror(int e);

#endif
