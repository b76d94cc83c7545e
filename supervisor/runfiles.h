/* runfiles: corral's side of the runfiles step (runfiles/, runfiles(1)):
 * files that run code on the user's machine (editor tasks, direnv, agents'
 * hooks and MCP servers, git hooks and drivers), named after a run that
 * created or changed them. A report, not a block list: the workspace is
 * the agent's to edit. The walks are the step's, confined to reading the
 * tree, in one process (runfiles watch) that keeps the snapshot in its
 * memory, out of the agent's reach, and reports after its go byte; corral
 * says the report. No exit. */
#ifndef CORRAL_RUNFILES_H
#define CORRAL_RUNFILES_H
#include <limits.h>

#include "audit.h"
#include "plan.h"
#include "procspawn.h"

struct runfiles {
	char root[PATH_MAX];		/* "" when not taken */
	struct spawned w;		/* runfiles watch (pid -1: none), its output */
	int go;				/* ... its input's write end (-1: none) */
	int kept;			/* its snapshot is taken */
};

/* Before the agent starts: start runfiles watch of root (the directory the
 * agent writes: the workspace, or its own checkout) beside whatever corral
 * does next; a sweep of corral's children leaves it (proc_sweep_keep). A
 * failure is said (a warning) and leaves no report. */
void runfiles_start(struct runfiles *rf, const struct plan *pl, const char *root, char *const senv[]);
/* Still before the agent starts: wait until the snapshot is taken (its
 * "taken" line); it stays in the watch's memory. */
void runfiles_keep(struct runfiles *rf, const struct plan *pl);
/* After every process of the attempt has ended: the go byte, and the
 * report's walk starts, beside home-stage finish... */
void runfiles_report_start(struct runfiles *rf, const struct plan *pl, char *const senv[], int quiet);
/* ... and wait for it: every file it names, on stderr (unless quiet) and
 * as one audit line. Returns how many (0 when none was started). */
int runfiles_report_end(struct runfiles *rf, struct audit *au, int quiet);
/* A watch started and not reported (a run that failed first): ended
 * (SIGKILL: it only reads) and reaped. */
void runfiles_free(struct runfiles *rf);

#endif
