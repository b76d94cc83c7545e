/* mounts: what a session reaches beyond its workspace (session_mount's
 * read-only overlays, recorded in sessions/ID/overlays, and the package
 * directories session_package_install merged). I/O. */
#ifndef SBX_MOUNTS_H
#define SBX_MOUNTS_H
#include "argv.h"
#include "sess.h"

/* "-r PATH" for each recorded overlay still under a mount_allowlist entry
 * of the configuration in force (an overlay the operator has since
 * unlisted grants nothing). */
int mounts_grants(struct sbx *s, const struct sess *ss, struct argv *av, char *err, size_t errn);
/* -1 with the reason when a mount_allowlist entry is / or holds the home
 * or the store, or lies in the store (checked before every call: such a
 * configuration fails closed). */
int mount_roots_check(const struct sbx *s, char *err, size_t errn);
/* NAME=VALUE pins for the packages merged into the workspace. */
int mounts_env(const struct sess *ss, struct argv *env);

tool_fn tool_session_mount;

#endif
