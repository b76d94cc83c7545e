/* gitcarry: the agent's commits carried from its base onto HEAD. When the
 * user had local changes or untracked files, the attempt started from a
 * commit of that state (g->base, gitws.c), never exported: each of the
 * agent's commits (first parents, base to tip) becomes a commit over HEAD
 * holding what that commit changed against the base, and what it left
 * uncommitted one more. The user's own changes stay out of every commit:
 * a file both changed is merged (git merge-file: HEAD's version with the
 * agent's change only); where the two overlap, its whole version comes
 * back, and the path is noted. */
#ifndef CORRAL_GITCARRY_H
#define CORRAL_GITCARRY_H
#include <stddef.h>

#include "argv.h"
#include "gitrun.h"
#include "gitws.h"

enum { GITCARRY_MAX = 200 };	/* commits carried one by one; more: as one */

/* Every object git writes goes to q (STORE/git/ATTEMPT/objects, whose
 * alternates name the real objects and the base's). tip: the agent's HEAD
 * (base when it made no commit), ftree: the tree of the files it left.
 * The result into out (g->start: nothing changed); *uncommitted: 1 when
 * the last commit holds what it left uncommitted; the paths where its
 * change overlapped yours (carried whole) are added to overlap. 0, or -1
 * with why. */
int gitcarry(const struct gitws *g, int afd, const char *q, const char *tip, const char *ftree,
    const char *attempt, char *out, int *uncommitted, struct argv *overlap, char *why, size_t whyn);

/* Run git and read one object id (its first line) into oid. in: stdin
 * (-1: /dev/null). 0, or -1. */
int gitws_oid(const struct gitws *g, const struct gitcall *gc, const char *const *args, int in, char *oid);

#endif
