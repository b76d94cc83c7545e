/* gitstep: the git workspace's part of a corral run: planned, set up before
 * the chain, its confine grants, imported after it (gitws.h does the work). */
#ifndef CORRAL_GITSTEP_H
#define CORRAL_GITSTEP_H
#include <stdio.h>

#include "argv.h"
#include "plan.h"
#include "procspawn.h"

/* A workspace beneath a repository's top (not its top): 1, with
 * pl->workspace moved to the top and pl->gw.sub the path beneath it; 0
 * when there is none, or the top holds the home or the state directory. */
int gitstep_top(struct plan *pl);
/* Resolve: find git and the repository; refuse what cannot work (-1, why
 * and hint filled). Nothing for "git": "off". */
int gitws_plan(struct plan *pl, const struct policy *pol, char *why, size_t whyn,
    char *hint, size_t hinth);
/* git-stage's argv: create (phase 0), finish (1), discard (2). 0, or -1. */
int gitstep_argv(const struct plan *pl, int phase, struct argv *a);
/* corral run, once the attempt id is known: git-stage create started
 * (it says the mode in one line; sp->pid -1 when there is nothing to set
 * up), beside the proof and the home. -1: reported. */
int gitstep_start(struct plan *pl, char **senv, struct spawned *sp);
/* ... and collected: pl->agent_ws and the checkout from what it printed.
 * -1: reported. */
int gitstep_collect(struct plan *pl, const char *attempt, char **senv, struct spawned *sp);
/* corral run: git-stage finish started (the import, confined; it says
 * where the work is) while the agent runs (worktree) or beside runfiles
 * report once it ended: it reads the agent's work only once its input
 * held the go byte and ended, *go (the pipe's write end, -1: none;
 * sp->pid -1: nothing started; a second call with sp->pid set: nothing).
 * -1: reported. */
int gitstep_finish_start(struct plan *pl, char **senv, struct spawned *sp, int *go);
/* ... the go byte written and its input ended (every process of the
 * attempt has ended, the report has read the checkout), waited for.
 * -1: reported (the attempt's directory stays). */
int gitstep_finish_end(struct plan *pl, struct spawned *sp, int go);
/* git-stage discard: a set-up attempt the chain never ran in. */
void gitstep_discard(struct plan *pl, char **senv);
/* confine's grants for the workspace (step_chain). */
void gitstep_grants(const struct plan *pl, struct argv *a);
/* env-filter pins for the workspace (PWD in worktree mode). */
void gitstep_pins(const struct plan *pl, struct argv *a);
/* explain: git-stage create (phase 0) or finish (phase 1), with comments. */
void gitstep_explain(FILE *f, const struct plan *pl, int phase);
/* The mode in one word: worktree, in-place, off, or none (no repository). */
const char *gitstep_mode(const struct plan *pl);
/* 1 when a private mount namespace can be had here (in-place needs one). */
int gitstep_ns_ok(void);

#endif
