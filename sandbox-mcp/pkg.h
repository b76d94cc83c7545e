/* pkg: session_package_install (see pkg.c). */
#ifndef SBX_PKG_H
#define SBX_PKG_H
#include "pkgspec.h"
#include "sbx.h"

tool_fn tool_session_package_install;
/* The package record the history keeps (refs/meta/packages) written back
 * to the session directory, after a restore. 0 also when there is none. */
struct sess;
int pkg_record_restore(struct sbx *s, struct sess *ss);

#endif
