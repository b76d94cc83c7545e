/* gitxref: the attempt's branches and tags besides its HEAD, read as data
 * (gitxref_list) and imported, each on its own and checked like HEAD,
 * under names of corral's (gitxref_import). */
#ifndef CORRAL_GITXREF_H
#define CORRAL_GITXREF_H
#include <stddef.h>

#include "argv.h"
#include "gitref.h"
#include "gs.h"

enum { GITXREF_MAX = 64 };	/* refs imported beside HEAD, at most */

struct gitxref {
	char name[GITREF_NAME_MAX + 1];
	char oid[GITREF_OID_MAX + 1];
};

struct gitxrefs {
	struct gitxref *v;
	size_t n, cap;
};

/* Lines "OID NAME" (packed-refs, for-each-ref): each under refs/heads/ or
 * refs/tags/ whose name and id check out is set in l (a later line for the
 * same name wins); comments, peeled lines ("^OID") and malformed lines are
 * skipped. Pure. 0, or -1 (ENOMEM). */
int gitxref_parse(const char *buf, size_t len, size_t hexlen, struct gitxrefs *l);
/* Set name to oid in l (replacing). 0, or -1 (ENOMEM). */
int gitxref_set(struct gitxrefs *l, const char *name, const char *oid);
const struct gitxref *gitxref_find(const struct gitxrefs *l, const char *name);
void gitxref_free(struct gitxrefs *l);

/* The branches and tags of the repository at rdir (its packed-refs, then
 * its loose refs under refs/heads and refs/tags, every directory and file
 * opened without following or blocking; symbolic refs and anything not a
 * regular file skipped and counted in *skipped). 0, or -1 with errno. */
int gitxref_list(int rdir, size_t hexlen, struct gitxrefs *l, int *skipped);

/* The attempt's refs that are new or moved since the start (start: the
 * refs it began with) and do not name tip: into todo, at most GITXREF_MAX
 * (*more: how many were left out). */
int gitxref_changed(const struct gitxrefs *now, const struct gitxrefs *start, const char *tip,
    struct gitxrefs *todo, int *more);

/* gitxref_list of the attempt repository (rdir) and gitxref_changed
 * against the refs it started with (afd/start-refs) into todo; what could
 * not be read or was left out is counted and named in r. */
void gitxref_collect(const struct gitws *g, int rdir, int afd, const char *tip, struct gitxrefs *todo,
    struct gitws_result *r);

/* Import each ref of todo: one that grew from the base (your uncommitted
 * state) is carried over onto HEAD like HEAD's work (gitcarry; afd: the
 * attempt's directory, overlap: as there; a tag becomes a plain tag of the
 * carried commit; one holding nothing of its own is left out); its objects
 * (from q, the attempt's objects copied as bytes) through git
 * pack-objects | index-pack --strict, its target a commit, then
 * refs/heads/corral/SHORT-NAME for a branch NAME, refs/tags/corral/SHORT/NAME
 * for a tag (new refs only). What was imported and refused is added to r. */
void gitxref_import(const struct gitws *g, int afd, const char *q, const char *attempt,
    const struct gitxrefs *todo, struct argv *overlap, struct gitws_result *r);

#endif
