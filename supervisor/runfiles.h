/* runfiles: files that run code on the user's machine (editor tasks, direnv,
 * agents' hooks and MCP servers, git hooks and drivers), named after a run
 * that created or changed them. A report, not a block list: the workspace
 * is the agent's to edit. Reads the file system; no exit. */
#ifndef CORRAL_RUNFILES_H
#define CORRAL_RUNFILES_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"

enum { RUNFILES_MAX_ENTRIES = 200000, RUNFILES_MAX_MATCHES = 4096 };

struct rf_entry {
	char *rel;			/* relative to the root */
	int rule;			/* index into the table, or -1: core.hooksPath */
	uint64_t size;
	unsigned char sha[32];		/* of the content (a link: of its target) */
	int islink;
};

struct runfiles {
	char root[PATH_MAX];		/* "" when not taken */
	char hooks[PATH_MAX];		/* core.hooksPath, relative to root ("" none) */
	struct rf_entry *v;
	size_t n, cap;
	int truncated;			/* a bound was reached: the scan is partial */
};

/* The table's own lookup (tests): the rule's reason for rel, or NULL. */
const char *runfiles_reason(const struct runfiles *rf, const char *rel);
/* Before the run: find the matching files under root (the directory the
 * agent writes: the workspace, or its own checkout) and note each. The git
 * configs of ws (the user's workspace) and home may name core.hooksPath.
 * 0 or -1. */
int runfiles_snapshot(struct runfiles *rf, const char *root, const char *ws, const char *home);
/* After: every matching file created or changed since the snapshot, on
 * stderr (unless quiet) and as one audit line. Returns how many. */
int runfiles_report(struct runfiles *rf, struct audit *au, int quiet);
void runfiles_free(struct runfiles *rf);

#endif
