/* pkgspec: the package specifiers session_package_install accepts, checked
 * before anything runs. Strict on purpose: a name, with pip's extras and
 * version clauses or npm's scope and one version, range or tag; never an
 * option (a leading '-'), a shell metacharacter, a path, a URL, a VCS or
 * alias form, whitespace or a control character. Pure. */
#ifndef SBX_PKGSPEC_H
#define SBX_PKGSPEC_H
#include <stddef.h>

enum pkg_mgr { PKG_PIP, PKG_NPM };

enum {
	PKG_SPEC_MAX = 214,		/* bytes of one specifier (npm's name limit) */
	PKG_SPECS_MAX = 32,		/* specifiers in one call */
};

/* "pip" or "npm" into *m: 0, or -1. */
int pkg_mgr_parse(const char *s, enum pkg_mgr *m);
const char *pkg_mgr_name(enum pkg_mgr m);
/* 1 when s (len bytes, no NUL inside) is a specifier m accepts; else 0
 * with a short reason in why (never the specifier itself). */
int pkg_spec_ok(enum pkg_mgr m, const char *s, size_t len, char *why, size_t whyn);

/* 1 when the session's packages record (a NUL-terminated text, one
 * manager a line) names m. */
int pkg_recorded(const char *record, enum pkg_mgr m);

#endif
