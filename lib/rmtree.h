/* rmtree: remove a directory tree without ever following a symlink. */
#ifndef CORRAL_RMTREE_H
#define CORRAL_RMTREE_H

/* Remove dirfd/name and everything beneath it. Works by descriptor only:
 * every directory is opened with O_NOFOLLOW relative to its parent and
 * checked (device, inode) against what fstatat saw, every step back up
 * through ".." is checked against the recorded parent, and a symlink is
 * unlinked, never followed. It does not cross into another filesystem
 * (EXDEV). Depth is bounded only by memory (one name per level, no
 * descriptor per level). A directory that fills up again while it is
 * being emptied (a process left running) is rescanned, up to 64 times.
 * An absent name is success. -1 with errno. */
int rmtree_at(int dirfd, const char *name);

#endif
