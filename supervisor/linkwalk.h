/* linkwalk: what the boundary can write, and whether a path's resolution
 * passes through a symbolic link in such a place (the agent could have
 * re-pointed it). Reads the file system; no exit. */
#ifndef CORRAL_LINKWALK_H
#define CORRAL_LINKWALK_H
#include <stddef.h>

#include "argv.h"
#include "plan.h"

/* 1 when the absolute, resolved path p lies where the boundary can write:
 * the workspace, a write grant, an attempt directory of the store, an
 * agent's full-setup folder of the real home. where (n bytes) names it. */
int boundary_writable(const struct plan *pl, const char *p, char *where, size_t n);

/* Resolve path physically, as realpath(3) does, into real (PATH_MAX).
 * Returns 0; 1 when a symbolic link met on the way lies where the boundary
 * can write (link gets the link's own path, where the place); -1 with errno
 * (ENOENT, ELOOP, ENAMETOOLONG, ...). pl NULL: no link is refused. */
int link_walk(const struct plan *pl, const char *path, char *real, char *link, size_t linkn,
    char *where, size_t wheren);

/* realpath(3) into real (PATH_MAX), through pathmemo: a plan resolves the
 * same components for many paths. 0, or -1 with errno. */
int link_realpath(const char *path, char *real);

/* link_walk for what ("the workspace") into real: 0; -1 refused, a link
 * the agent can write on the way (why and hint say so); -2 with errno when
 * path cannot be resolved. */
int link_resolve(const struct plan *pl, const char *what, const char *path, char *real,
    char *why, size_t whyn, char *hint, size_t hintn);

/* "policy \"KEY\" grants" (the first kl bytes of key) into what (n
 * bytes), as snprintf would write it, without a format to parse: a plan
 * names one per grant, twice, for a refusal it seldom makes. */
void link_what(char *what, size_t n, const char *key, size_t kl);

/* Every path corral resolves for the plan: the workspace, the grants named
 * in seen ("KEY\tPATH" lines, as resolve.c met them), env files, MCP
 * credential files. 0, or -1 with the reason in why and a hint. */
int links_check(const struct plan *pl, const struct argv *seen, char *why, size_t whyn,
    char *hint, size_t hintn);

#endif
