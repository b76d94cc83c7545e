/* installtree: the command's own install tree. CMD is resolved the way the
 * shell would, in the agent's PATH; when the path found, or a symbolic link
 * along it, leads into a package or version directory (node_modules/PKG,
 * node_modules/@SCOPE/PKG, .../versions/V, a venv, a toolchain directory),
 * that directory is granted read + execute, and nothing beside it. The same
 * for the interpreter its "#!" line names ("/usr/bin/env node" looked up in
 * the agent's PATH). A link that lies where the agent can write never
 * widens a grant: it is not followed. Reads the file system; no exit. */
#ifndef CORRAL_INSTALLTREE_H
#define CORRAL_INSTALLTREE_H
#include <stddef.h>

#include "plan.h"

/* The program a "#!" line runs: buf[0..n) is the file's start. The
 * interpreter path goes to interp; for "/usr/bin/env [-S] PROG", PROG goes
 * to prog (to be looked up in PATH), else prog is the interpreter path.
 * Pure. Returns 0, or -1 when buf holds no usable "#!" line. */
int shebang_parse(const char *buf, size_t n, char *prog, size_t progn);

/* The package or version directory the absolute path p lies in, by its
 * spelling alone (the first, outermost, match): its length in p, or 0 when
 * none. Pure. */
size_t tree_root(const char *p);

/* Grant the install trees of cmd0 and of its interpreter into pl->ex; path
 * is the agent's PATH. When cmd0 is not on it, user_path (the user's PATH,
 * or NULL) is tried: a symbolic link there, in a PATH directory of the home
 * left out of the agent's PATH, into a package or version directory grants
 * that directory, and the link's directory joins the end of pl->path
 * (ungranted: the chain finds cmd0 through it). Lines for explain and
 * doctor go to notes: "granted: ..." and "left out: ..." (with the policy
 * line that would grant it). Returns 0, or -1 (out of memory). */
int installtree_grant(struct plan *pl, const char *path, const char *user_path, const char *cmd0,
    struct argv *notes);

#endif
