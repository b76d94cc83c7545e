/* runrules: the one table of files that run code on the user's machine by
 * being there (editor tasks, direnv, agents' hooks and MCP servers, git
 * hooks and drivers), each with what would execute it. corral's after-run
 * report names them (supervisor/runfiles.c); sandbox-mcp's export leaves
 * them out. Pure, except runrules_hooks_from, which reads one file. */
#ifndef CORRAL_RUNRULES_H
#define CORRAL_RUNRULES_H
#include <stddef.h>

/* The entries one walk for them reads at most (runfiles; corral names the
 * bound when it was reached). */
enum { RUNRULES_WALK_MAX = 200000 };

/* The rule rel (a relative path) matches, anchored at its root as the
 * table says: its index, or -1. */
int runrules_match(const char *rel);
/* What decides before a path is built (a walk of a large tree): 0 when no
 * rule can match an entry called name, whatever its directory, unless
 * runrules_dir_may says its directory may hold one: a rule for every name in
 * a directory whose last component is dir[0..n) (".github/workflows",
 * ".husky"); runrules_match still decides. */
int runrules_name_may(const char *name);
int runrules_dir_may(const char *dir, size_t n);
/* Every name runrules_name_may says yes to, into *v: how many. A walk of
 * a directory with no subdirectory can look each up instead of reading it. */
size_t runrules_names(const char *const **v);
/* The same at any depth: rel or any trailing part of it (a/b/.envrc
 * matches ".envrc"). For a tree about to land anywhere in the user's. */
int runrules_match_deep(const char *rel);
/* The rules a walk matches, not a name: a bare repository's config
 * (hook 0) and its hooks (hook 1). */
int runrules_bare(int hook);
/* What executes rule i's file. */
const char *runrules_what(int i);
/* core.hooksPath from one git config file (a [core] section's hooksPath,
 * the last one wins): into out when found, out unchanged otherwise. */
void runrules_hooks_from(const char *path, char *out, size_t n);
/* 1 when name is ".git" in any letter case (git takes it so on
 * case-insensitive file systems). */
int runrules_is_dotgit(const char *name);

#endif
