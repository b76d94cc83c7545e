/* runfiles: corral's side of the runfiles step (runfiles/, runfiles(1)):
 * files that run code on the user's machine (editor tasks, direnv, agents'
 * hooks and MCP servers, git hooks and drivers), named after a run that
 * created or changed them. A report, not a block list: the workspace is
 * the agent's to edit. The walks are the step's, confined to reading the
 * tree; corral keeps the snapshot in the attempt's directory (ATTEMPT_DIR/
 * runfiles, which the agent cannot write) and says the report. No exit. */
#ifndef CORRAL_RUNFILES_H
#define CORRAL_RUNFILES_H
#include <limits.h>

#include "audit.h"
#include "plan.h"
#include "procspawn.h"

struct runfiles {
	char root[PATH_MAX];		/* "" when not taken */
	struct spawned snap;		/* runfiles snapshot while it runs (pid -1: none) */
	int mem;			/* ... its output, until kept (-1: none) */
	int kept;			/* the snapshot is in ATTEMPT_DIR/runfiles */
	struct spawned rep;		/* runfiles report while it runs (pid -1: none) */
};

/* Before the agent starts: start runfiles snapshot of root (the directory
 * the agent writes: the workspace, or its own checkout) beside whatever
 * corral does next. A failure is said (a warning) and leaves no report. */
void runfiles_start(struct runfiles *rf, const struct plan *pl, const char *root, char *const senv[]);
/* Still before the agent starts, pl->attempt_dir made: wait for the
 * snapshot and keep it in pl->attempt_dir. */
void runfiles_keep(struct runfiles *rf, const struct plan *pl);
/* After every process of the attempt has ended: start runfiles report
 * (its state given as an open descriptor, so that it may run beside
 * home-stage finish, which removes the attempt's directory)... */
void runfiles_report_start(struct runfiles *rf, const struct plan *pl, char *const senv[], int quiet);
/* ... and wait for it: every file it names, on stderr (unless quiet) and
 * as one audit line. Returns how many (0 when none was started). */
int runfiles_report_end(struct runfiles *rf, struct audit *au, int quiet);
/* A snapshot started and never kept (a run that failed first): reaped. */
void runfiles_free(struct runfiles *rf);

#endif
