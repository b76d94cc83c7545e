/* tree: the checkpoint engine's own view of the workspace. Every regular
 * file and symbolic link is kept, nested repositories included: git add
 * would take a directory holding a .git for a submodule (a gitlink only,
 * or an error when it has no commit yet), and never stores a .git itself.
 * Here a path component ".git" (any letter case), or one starting with
 * TREE_ESC, is stored as TREE_ESC + the name, so git keeps it as data and
 * it comes back as it was. Commits are written by git fast-import from a
 * walk by descriptor (never following a link); a stat cache beside the
 * history keeps unchanged files from being read again. A checkout writes
 * exactly a commit's files back, bounded by a byte budget counted at every
 * entry's full size. I/O. */
#ifndef SBX_TREE_H
#define SBX_TREE_H
#include <stddef.h>
#include <stdint.h>

#include "sess.h"

#define TREE_ESC ".sbx-esc-"
enum { TREE_MAX_ENTRIES = 1000000 };

/* A commit of the workspace with parent (NULL or "" for none) and msg;
 * its id in id. *same 1 when its tree is the parent's (then id is the
 * parent, and nothing was written). ref: where the commit goes
 * ("refs/sbx/new": the caller moves refs/heads/main). */
int tree_commit(struct sbx *s, struct sess *ss, const char *parent, const char *msg, char *id,
    int *same, char *err, size_t errn);
/* Make the workspace exactly commit id's files (what it does not hold
 * goes). budget: bytes the commit's files may take in all (every entry at
 * its full size, duplicates each time); over it, nothing is touched. */
int tree_checkout(struct sbx *s, struct sess *ss, const char *id, int64_t budget, char *err,
    size_t errn);
/* The escaped form of one name (into out, n bytes); pure. */
int tree_escape(const char *name, char *out, size_t n);

#endif
