/* git-stage: the git workspace step (see git-stage.1): the attempt
 * repository and checkout made before the chain, the agent's work imported
 * as data after it, confined. */
#ifndef CORRAL_GS_H
#define CORRAL_GS_H
#include <stddef.h>

#include "gitws.h"

/* Undo the index symlink (.git/index -> corral-index/index) of the removed
 * --git-protect layout, if this repository still has it. -1: why filled. */
int gitws_undo_protect(const struct gitws *g, char *why, size_t whyn);
/* Make the attempt repository and (worktree mode) its checkout: the
 * attempt's own files under STORE/git/ATTEMPT, the checkout at the
 * repository's first free stable slot (gitws_slot_path). When the user has
 * local changes or untracked files, the attempt starts from g->base, a
 * commit of that state over HEAD whose objects stay in g->basedir. -1 with
 * why filled; what was made is removed. */
int gitws_setup(struct gitws *g, const char *store, const char *attempt, char *why, size_t whyn);
/* Give the checkout's slot back: the checkout is moved into the trash
 * (gitws_trash_reap removes it; the next set-up removes what one left).
 * keep: move it to STORE/git/ATTEMPT/work instead (g->work names it
 * then). */
void gitws_release(struct gitws *g, int keep);
/* Remove STORE/git/trash in a detached process (stdio on /dev/null, no
 * descriptor of the caller's); quick: one child, not waited for (the
 * caller's own output is read to its end by no one), else a grandchild,
 * the caller's descriptors closed when this returns. */
void gitws_trash_reap(const char *store, int quick);
/* Remove STORE/git/ATTEMPT: moved into the trash (gitws_trash_reap
 * removes it); removed here when it cannot be moved. 0, or -1 with
 * errno. */
int gitws_drop_attempt(const char *store, const char *attempt);

/* What an import did. */
struct gitws_result {
	char branch[128];	/* refs/heads/... made ("": nothing to import) */
	char commit[65];
	long commits;		/* start..commit */
	char shortstat[256];	/* git diff --shortstat, start to commit */
	int uncommitted;	/* 1: the agent's uncommitted changes became a commit */
	int overlaps;		/* files where its change overlapped your uncommitted one */
	char overlap[512];	/* ... their paths (carried whole, your change in them) */
	int quarantined;	/* nested repositories and special files moved aside */
	char quarantine[PATH_MAX + 16];	/* where they are */
	char refused[256];	/* "": none; else what was not imported and why */
	int own_deps;		/* dependency links the agent replaced (its own install, not imported) */
	char deps[256];		/* ... their names */
	int xrefs;		/* its other branches and tags imported (gitxref.c) */
	int xrefused;		/* ... and not imported (the attempt stays) */
	char xnames[512];	/* the refs made for them, short */
	char xwhy[512];		/* the ones not imported, and why */
	int done;		/* 1: nothing stays to look at: g->dir can go */
};

/* After every process of the attempt has ended: the agent's commits and
 * files into the real repository as data, on refs/heads/corral/SHORT (SHORT:
 * the attempt id's first 8 characters). 0 on success (r->done: g->dir may go), -1
 * with why filled: g->dir stays, nothing is lost. */
int gitws_import(struct gitws *g, const char *attempt, struct gitws_result *r, char *why, size_t whyn);

/* git pack-objects (the real repository, q as an object source) piped
 * into git index-pack --strict (the real repository alone): what tip
 * reaches and the starting commit does not, checked object by object.
 * 0, or -1 with why filled. */
int gitws_bring(const struct gitws *g, const char *q, const char *tip, char *why, size_t whyn);

/* state.c: what finish needs, into STORE/git/ATTEMPT (g->dir): the
 * record "state" and the checkout's paths "seen"; holder: the pid of the
 * process that holds the checkout's slot (hold.c). 0, or -1 with errno. */
int gs_state_save(const struct gitws *g, const char *store, int holder);
/* ... read back from dir; store (PATH_MAX) filled. 0, or -1 with why. */
int gs_state_load(struct gitws *g, char *store, const char *dir, int *holder, char *why, size_t whyn);

/* hold.c: a process that keeps g->lockfd (the checkout's slot) until
 * finish or discard marks the attempt released (a byte on the FIFO
 * "release" in g->dir, made here) or the caller (the process that ran
 * create) ends. Its pid, or -1 with errno; g->lockfd is closed here either way. */
int gs_hold(struct gitws *g, int caller);
/* Mark the attempt released (the FIFO "release" in g->dir): its holder
 * ends. gitws_release marks it as soon as the checkout's slot is free, so
 * that the holder's end overlaps what follows. */
void gs_released(const struct gitws *g);
/* Wait (bounded) for the holder to end: pidfd from gs_pidfd. */
void gs_unhold(int pidfd);
/* A descriptor to wait for pid's end (pidfd), or -1. */
int gs_pidfd(int pid);

/* narrow.c: finish's boundary, before it reads a byte the agent wrote:
 * write only g->dir, the checkout's slot, STORE/git/trash and the
 * real repository's objects, refs and logs; read the repository and the
 * system; execute the system's programs (git). 0, or -1 with why. */
int gs_narrow(const struct gitws *g, const char *store, char *why, size_t whyn);

/* finish.c: the import and the lines that say where the work is. The
 * exit status: 0, or 1 when the import failed (the attempt stays). */
int gs_finish(struct gitws *g, const char *attempt);

#endif
