/* gitws: (corral, git-stage) the attempt repository of a git workspace. The agent never writes
 * the real repository: it gets a repository of its own (the real objects
 * reached read-only through alternates, the real refs and HEAD, a copy of
 * the index) and, in worktree mode, a checkout of its own, both under
 * STORE/git/ATTEMPT. Its work comes back as data (git-stage). Here: the
 * repository located (corral plans with it, git-stage works with it) and
 * the file helpers both use; the set-up and the import are git-stage's. */
#ifndef CORRAL_GITWS_H
#define CORRAL_GITWS_H
#include <limits.h>
#include <stddef.h>
#include <time.h>

#include "argv.h"
#include "gitseen.h"
#include "gitmode.h"

struct gitws {
	const char *git;	/* absolute path of git */
	int mode;		/* enum git_mode */
	int from_head;		/* worktree: start from HEAD, not the current state */
	int linked;		/* the workspace is a linked worktree (.git is a file) */
	char ws[PATH_MAX];	/* the real workspace: the repository's top */
	char sub[PATH_MAX];	/* where the run started beneath it ("": the top) */
	char *const *deps;	/* policy "git_deps": relative paths */
	size_t ndeps;
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
	int holder;		/* corral: git-stage create's "holder" (0: none),
				   corral's child once create has exited */
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
void gitws_free(struct gitws *g);
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

/* buf into a new file dfd/name (O_EXCL, 0644). 0, or -1 with errno. */
int gitws_write_new(int dfd, const char *name, const char *buf, size_t len);

#endif
