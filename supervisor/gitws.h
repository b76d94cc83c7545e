/* gitws: the attempt repository of a git workspace. The agent never writes
 * the real repository: it gets a repository of its own (the real objects
 * reached read-only through alternates, the real refs and HEAD, a copy of
 * the index) and, in worktree mode, a checkout of its own, both under
 * STORE/git/ATTEMPT. Its work comes back as data (gitimport.c). */
#ifndef CORRAL_GITWS_H
#define CORRAL_GITWS_H
#include <limits.h>
#include <stddef.h>
#include <time.h>

#include "argv.h"
#include "gitseen.h"
#include "policy.h"

struct gitws {
	const char *git;	/* absolute path of git */
	int mode;		/* enum git_mode */
	int from_head;		/* worktree: start from HEAD, not the current state */
	int linked;		/* the workspace is a linked worktree (.git is a file) */
	char ws[PATH_MAX];	/* the real workspace: the repository's top */
	char sub[PATH_MAX];	/* where the run started beneath it ("": the top) */
	const struct strlist *deps;	/* policy "git_deps": relative paths (NULL: none) */
	char gitdir[PATH_MAX];	/* its git directory */
	char common[PATH_MAX];	/* its common directory (objects, refs) */
	size_t hexlen;		/* 40 (SHA-1) or 64 (SHA-256) */
	struct argv objects;	/* the real object directories (alternates included) */
	/* set by gitws_setup */
	char dir[PATH_MAX];	/* STORE/git/ATTEMPT, never granted to the agent */
	char work[PATH_MAX];	/* where the agent works */
	char repo[PATH_MAX];	/* the attempt repository */
	char start[65];		/* the commit HEAD named at the start ("": unborn) */
	char base[65];		/* the agent's base: start, or a commit of the
				   user's state over it (never exported) */
	char basedir[PATH_MAX];	/* STORE/git/ATTEMPT/base: that commit's objects */
	struct argv deplinks;	/* the user's dependency directories linked into
				   the checkout (relative paths) */
	int lockfd;		/* worktree: the checkout's slot, held (-1: none) */
	struct timespec t0;	/* when the attempt was set up */
	struct argv nested;	/* in-place: the nested repositories before (gitnested.c) */
	struct gitseen seen;	/* worktree: the checkout at the end of the set-up */
};

/* The repository whose work tree holds dir: its top into top, dir's path
 * beneath it into sub ("" at the top). 1: found, 0: none. */
int gitws_find_top(const char *dir, char *top, char *sub);
/* The stable checkout of a repository (worktree mode): slot n of
 * STORE/git/co, named after the top; into out (PATH_MAX). */
void gitws_slot_path(const char *store, const char *top, int n, char *out, char *lock);

/* Where the repository whose top is ws keeps its files; hexlen. Reads the
 * user's .git as data; runs nothing. -1 with why filled. */
int gitws_locate(struct gitws *g, const char *ws, char *why, size_t whyn);
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
void gitws_free(struct gitws *g);
/* Give the checkout's slot back: the checkout is moved aside and removed
 * by a detached child after corral returns (the next set-up removes what
 * one left). keep: move it to STORE/git/ATTEMPT/work instead (g->work
 * names it then). */
void gitws_release(struct gitws *g, int keep);
/* Remove STORE/git/trash in a detached child (stdio on /dev/null). */
void gitws_trash_reap(const char *store);

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
};

/* After every process of the attempt has ended: the agent's commits and
 * files into the real repository as data, on refs/heads/corral/SHORT (SHORT:
 * the attempt id's first 8 characters). 0 on success (g->dir removed), -1
 * with why filled: g->dir stays, nothing is lost. */
int gitws_import(struct gitws *g, const char *attempt, struct gitws_result *r, char *why, size_t whyn);

/* git pack-objects (the real repository, q as an object source) piped
 * into git index-pack --strict (the real repository alone): what tip
 * reaches and the starting commit does not, checked object by object.
 * 0, or -1 with why filled. */
int gitws_bring(const struct gitws *g, const char *q, const char *tip, char *why, size_t whyn);

/* Copy of a regular file (no symlink, FIFO or device) from sfd/sname to
 * dfd/dname (created, mode 0644 or 0755). 0, or -1 with errno. */
int gitws_copy(int sfd, const char *sname, int dfd, const char *dname, unsigned long long max);

/* name appended to the list in buf (n bytes), ", " between, control
 * bytes as '?'; ", ..." once it is full. */
void gitws_add_name(char *buf, size_t n, const char *name);

/* The real object directories, one a line, into buf (n bytes): the
 * length, n or more when they do not fit. */
size_t gitws_alt(const struct gitws *g, char *buf, size_t n);

/* buf into a new file afd/name (one left there is replaced), opened again
 * for reading: a git command's stdin. The descriptor, or -1 with errno. */
int gitws_stdin(int afd, const char *name, const char *buf, size_t len);

/* gitws_copy of an index, its modification time kept: git takes an entry
 * whose file changed in the second the index was written as "racily
 * clean" and compares its content; a copy with a later time would hide
 * such a change from the import. 0, or -1 with errno. */
int gitws_copy_index(int sfd, const char *sname, int dfd, const char *dname);

#endif
