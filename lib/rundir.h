/* rundir: (corral, home-stage, session-store) where an attempt's transient
 * tree lives. Nothing in it outlives the attempt (the audit log, the
 * records of what was released, the attempt's result stay in the store),
 * so it goes on the user's own tmpfs where there is one:
 * $XDG_RUNTIME_DIR/corral, when XDG_RUNTIME_DIR is an absolute path to a
 * directory (not a link) owned by the caller, mode 0700, on tmpfs, and
 * short enough that a socket the agent binds in its home fits
 * (STORE_PATH_SOCKET_MAX); else the store, as before. */
#ifndef CORRAL_RUNDIR_H
#define CORRAL_RUNDIR_H
#include <stddef.h>

/* 1 with out = $XDG_RUNTIME_DIR/corral, or 0 (out untouched) with why
 * saying which condition failed ("" when XDG_RUNTIME_DIR is unset). */
int rundir_path(char *const envp[], char *out, size_t n, char *why, size_t whyn);

/* A tree's marker of the store it belongs to (TREE/store): the store's
 * device and inode, "DEV:INO\n". Trees of several stores may share one
 * runtime directory; each store reaps only its own there. */
int rundir_store_key(int storefd, char *out, size_t n);
/* 1 when TREE (a name under dirfd) holds storefd's key, 0 when not (or no
 * key), -1 with errno when the store cannot be examined. */
int rundir_tree_ours(int dirfd, const char *tree, int storefd);

#endif
