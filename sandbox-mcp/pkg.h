/* pkg: session_package_install (see pkg.c). */
#ifndef SBX_PKG_H
#define SBX_PKG_H
#include "pkgspec.h"
#include "sbx.h"

tool_fn tool_session_package_install;

#endif
