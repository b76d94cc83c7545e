/* storeseen: whether a directory is, lies in or holds a corral or
 * sandbox-mcp store, so that no copy takes another store's sessions,
 * attempts or sign-ins. I/O. */
#ifndef CORRAL_STORESEEN_H
#define CORRAL_STORESEEN_H
#include <stddef.h>

/* 1 when dfd looks like a store: a .lock file beside one of the
 * directories a store keeps (sessions, snapshots: sandbox-mcp; attempts,
 * creds, released, env, prev: corral's session-store). */
int store_seen(int dfd);
/* For an absolute, resolved path: 1 when it or a directory above it is a
 * store, or a directory beneath it is one (never following a link), with
 * that store's path in found; 0 when none; -1 with errno when the walk
 * could not finish (ELOOP: deeper than it looks). */
int store_near(const char *real, char *found, size_t n);

#endif
