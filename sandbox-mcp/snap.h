/* snap: snapshots, one file each (a git bundle of the session's history)
 * under snapshots_dir (default STORE/snapshots). I/O. */
#ifndef SBX_SNAP_H
#define SBX_SNAP_H
#include <stddef.h>

#include "sess.h"

enum { SNAP_NAME_MAX = 128 };

/* Checkpoint the workspace, then write the snapshot, named want (checked
 * by the caller) or a fresh name; its file name into name (n bytes) when
 * name is not NULL. */
int snap_take(struct sbx *s, struct sess *ss, const char *want, char *name, size_t n, char *err, size_t errn);

tool_fn tool_session_snapshot, tool_list_snapshots, tool_session_restore;

/* Close what has been idle past session_idle_timeout_secs (snapshotting
 * first when snapshot_on_close). Returns how many were closed. */
int snap_reap_idle(struct sbx *s);

#endif
