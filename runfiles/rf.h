/* runfiles: the walk for files that run code on the user's machine (the
 * table is lib/runrules.c), as a step program of its own: a snapshot before
 * the run, a report after. The snapshot keeps, per directory walked, its
 * identity and times (dev, ino, ctime, mtime, size, links), the names of its
 * subdirectories and its matching files (size and SHA-256 of their first
 * MiB); the report re-reads only the directories that changed since, and
 * re-measures every matching file (content changes leave a directory's
 * times alone). walk.c reads the file system; state.c is pure. */
#ifndef CORRAL_RF_H
#define CORRAL_RF_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "runrules.h"

enum {
	RF_MAX_ENTRIES = RUNRULES_WALK_MAX,	/* entries read by one walk */
	RF_MAX_MATCHES = 4096,
	RF_STATE_MAX = 64 << 20,	/* bytes of a state file */
};

/* Where a walk is: a tree, a git directory (.git, or a bare repository)
 * where only hooks/ and config count, its hooks/. */
enum { IN_TREE, IN_GIT, IN_HOOKS, IN_BARE, IN_BARE_HOOKS, IN_N };

struct rf_file {
	char *rel;			/* relative to the root */
	size_t base;			/* where its name starts in rel */
	int rule;			/* runrules index, -1: core.hooksPath */
	uint64_t size;
	unsigned char sha[32];		/* of the content (a link: of its target) */
	int islink, unreadable;
};

struct rf_dir {
	char *rel;			/* "" the root */
	int mode;			/* IN_* */
	int racy;			/* changed too close to the snapshot: re-read */
	uint64_t dev, ino, size, nlink;
	int64_t cs, ms;			/* ctime, mtime: seconds */
	long cn, mn;			/* ... nanoseconds */
	size_t s0, ns;			/* its subdirectories' names: subs[s0..s0+ns) */
	size_t f0, nf;			/* its matching files: f[f0..f0+nf) */
};

struct rf_state {
	char hooks[PATH_MAX];		/* core.hooksPath relative to the root, "" none */
	struct rf_dir *d;
	size_t nd, capd;
	struct rf_file *f;
	size_t nf, capf;
	char **subs;
	size_t nsub, capsub;
	int truncated;			/* a bound was reached: looked for in part */
};

void rf_state_free(struct rf_state *s);

/* state.c. The state file's text (a version line, then one record a line,
 * names escaped: '\\' and bytes below 0x20 or 0x7f as \xHH, so a name never
 * ends a line; an end line last). format: 0, or -1 ENOMEM. parse: 0, or -1
 * with a reason in why; bounded by RF_MAX_*. Pure. */
int rf_state_format(const struct rf_state *s, char **out, size_t *len);
int rf_state_parse(const char *buf, size_t len, struct rf_state *s, char *why, size_t cap);
/* s, escaped as above, into out (cap bytes): the length, or -1. */
int rf_escape(const char *s, char *out, size_t cap);

/* walk.c. The snapshot of root (old NULL) or, after the run, the walk that
 * re-reads only what changed since old. 0, or -1 with errno (the root
 * cannot be opened, ENOMEM). now_s/now_ns: when the snapshot started. */
int rf_walk(const char *root, const struct rf_state *old, int64_t now_s, long now_ns, struct rf_state *out);
/* core.hooksPath for root from git config files (later ones win), then
 * root's own .git/config, relative to root ("" none). */
void rf_hooks(const char *root, char *const *configs, size_t n, char *out, size_t cap);
/* The report: one line per matching file created or changed since old
 * ("created REL: WHAT", "changed REL (a symbolic link): WHAT", REL
 * escaped), sorted, into lines; returns how many, -1 ENOMEM. */
struct argv;
int rf_compare(const struct rf_state *old, struct rf_state *now, struct argv *lines);
/* What executes f. */
const char *rf_what(const struct rf_file *f);

/* narrow.c: read-only of root and of the files in ro (which may be
 * missing), nothing else to open, no exec, no network. 0, or -1 why. */
int rf_narrow(const char *root, char *const *ro, size_t nro, char *why, size_t cap);

#endif
