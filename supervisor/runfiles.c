/* runfiles: after every run, name each file the run created or changed that
 * something on the user's machine would execute, and what (the table is
 * lib/runrules.c, which sandbox-mcp's export shares).
 *
 * The snapshot keeps only the matching paths (size and SHA-256 of at most
 * 1 MiB each); the walk reads directories, never following a link, at any
 * depth, and does not descend into a .git (or a bare repository: a
 * directory holding HEAD, config and objects/) beyond its hooks and config.
 * Bounded: a tree over RUNFILES_MAX_ENTRIES entries, or with a path longer
 * than PATH_MAX, is reported as partially scanned. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include <bearssl_hash.h>

#include "argv.h"
#include "fdio.h"
#include "msg.h"
#include "runfiles.h"
#include "runrules.h"

static const char hooks_what[] = "git runs it as a hook (core.hooksPath)";

/* the rule for rel: its index, -1 for core.hooksPath, -2 none */
static int
which(const struct runfiles *rf, const char *rel)
{
	size_t hl = strlen(rf->hooks);
	int i = runrules_match(rel);

	if (i >= 0)
		return i;
	if (hl && strncmp(rel, rf->hooks, hl) == 0 && rel[hl] == '/' && strchr(rel + hl + 1, '/') == NULL)
		return -1;
	return -2;
}

const char *
runfiles_reason(const struct runfiles *rf, const char *rel)
{
	int w = which(rf, rel);

	return w == -2 ? NULL : w == -1 ? hooks_what : runrules_what(w);
}

/* Size and SHA-256 of the first MiB of the file (a link: its target). */
static int
measure(int dfd, const char *name, const struct stat *st, struct rf_entry *e)
{
	br_sha256_context c;
	char buf[65536];
	ssize_t n;
	uint64_t left = 1 << 20;
	int fd;

	br_sha256_init(&c);
	e->size = (uint64_t)st->st_size;
	e->islink = S_ISLNK(st->st_mode);
	if (e->islink) {
		if ((n = readlinkat(dfd, name, buf, sizeof buf)) < 0)
			return -1;
		br_sha256_update(&c, buf, (size_t)n);
	} else if (S_ISREG(st->st_mode)) {
		if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
			return -1;
		while (left > 0 && (n = read(fd, buf, left < sizeof buf ? (size_t)left : sizeof buf)) > 0) {
			br_sha256_update(&c, buf, (size_t)n);
			left -= (uint64_t)n;
		}
		close(fd);
	}
	br_sha256_out(&c, e->sha);
	return 0;
}

struct walk {
	struct runfiles *rf;
	struct rf_entry *out;		/* where matches go */
	size_t n, cap, seen;
	int truncated;
	int rootfd;
};

static int
note(struct walk *w, int dfd, const char *name, const char *rel, const struct stat *st, int rule)
{
	struct rf_entry e, *nv;

	if (w->n >= RUNFILES_MAX_MATCHES)
		return w->truncated = 1, 0;
	memset(&e, 0, sizeof e);
	e.rule = rule;
	if (measure(dfd, name, st, &e) < 0)
		return 0;	/* gone, or unreadable to us: nothing to compare */
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		if ((nv = realloc(w->out, w->cap * sizeof *nv)) == NULL)
			return -1;
		w->out = nv;
	}
	if ((e.rel = strdup(rel)) == NULL)
		return -1;
	w->out[w->n++] = e;
	return 0;
}

/* Where a walk is: 0 the tree, 1 a git directory (.git, or a bare
 * repository: 3) where only hooks/ and config count, 2 (4) its hooks/. */
enum { IN_TREE, IN_GIT, IN_HOOKS, IN_BARE, IN_BARE_HOOKS };

/* A directory holding HEAD, config and objects/: a bare repository. */
static int
bare(int dfd, const char *n)
{
	char p[NAME_MAX + 16];
	struct stat st;

	return snprintf(p, sizeof p, "%s/HEAD", n) < (int)sizeof p &&
	    fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    snprintf(p, sizeof p, "%s/config", n) < (int)sizeof p &&
	    fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    snprintf(p, sizeof p, "%s/objects", n) < (int)sizeof p &&
	    fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Walk the directory rel. Its subdirectories are listed, and entered once
 * it is closed, each opened from the root without following a link: no
 * descriptor is held per level, so every depth a path can have is
 * walked (a path longer than PATH_MAX is reported as not looked at). */
static int
walk_dir(struct walk *w, const char *rel, int in)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
	struct argv subs = { 0 };
	struct dirent *de;
	struct stat st;
	DIR *dp;
	char *sub;
	int fd, r = 0, rule, dir_may;

	fd = rel[0] ? (int)syscall(SYS_openat2, w->rootfd, rel, &how, sizeof how) : dup(w->rootfd);
	if (fd < 0 || (dp = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if ((sub = malloc(PATH_MAX)) == NULL) {
		closedir(dp);
		return -1;
	}
	{	/* may a rule for every name in a directory (or core.hooksPath) match here? */
		const char *last = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
		dir_may = runrules_dir_may(last, strlen(last)) || (w->rf->hooks[0] && strcmp(rel, w->rf->hooks) == 0);
	}
	while (r == 0 && (de = readdir(dp)) != NULL) {
		const char *n = de->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (++w->seen > RUNFILES_MAX_ENTRIES) {
			w->truncated = 1;
			break;
		}
		if ((in == IN_GIT || in == IN_BARE) && strcmp(n, "hooks") != 0 && strcmp(n, "config") != 0)
			continue;
		/* most entries of a tree: decided by name, before any path */
		if (in == IN_TREE && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN && !dir_may &&
		    !runrules_name_may(n))
			continue;
		if ((size_t)snprintf(sub, PATH_MAX, "%s%s%s", rel, *rel ? "/" : "", n) >= PATH_MAX) {
			w->truncated = 1;
			continue;
		}
		/* stat only directories d_type cannot tell, and matches */
		rule = de->d_type == DT_DIR ? -2 : in == IN_BARE ? (strcmp(n, "config") == 0 ? runrules_bare(0) : -2) :
		    in == IN_BARE_HOOKS ? runrules_bare(1) : which(w->rf, sub);
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN && rule == -2)
			continue;
		if (fstatat(dirfd(dp), n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (in == IN_HOOKS || in == IN_BARE_HOOKS)
				continue;
			int next = in == IN_GIT ? IN_HOOKS : in == IN_BARE ? IN_BARE_HOOKS :
			    strcmp(n, ".git") == 0 ? IN_GIT : bare(dirfd(dp), n) ? IN_BARE : IN_TREE;
			av_pushf(&subs, "%d%s", next, sub);
			continue;
		}
		if (rule != -2)
			r = note(w, dirfd(dp), n, sub, &st, rule);
	}
	closedir(dp);
	free(sub);
	if (subs.err)
		r = -1;
	for (size_t i = 0; i < subs.n && r == 0; i++)
		r = walk_dir(w, subs.v[i] + 1, subs.v[i][0] - '0');
	av_free(&subs);
	return r;
}

static int
scan(struct runfiles *rf, struct rf_entry **out, size_t *n, int *truncated)
{
	struct walk w = { rf, NULL, 0, 0, 0, 0, -1 };
	int r;

	if ((w.rootfd = open(rf->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	r = walk_dir(&w, "", IN_TREE);
	close(w.rootfd);
	*out = w.out;
	*n = w.n;
	*truncated = w.truncated;
	return r;
}

/* The hooks directory git would use in root, relative to root ("" none). */
static void
hooks_path(struct runfiles *rf, const char *ws, const char *home)
{
	char p[PATH_MAX + 32], v[PATH_MAX] = "", *s;
	size_t rl = strlen(rf->root);

	if (home && *home) {
		snprintf(p, sizeof p, "%s/.gitconfig", home);
		runrules_hooks_from(p, v, sizeof v);
	}
	if (ws && *ws) {
		snprintf(p, sizeof p, "%s/.git/config", ws);
		runrules_hooks_from(p, v, sizeof v);
	}
	snprintf(p, sizeof p, "%s/.git/config", rf->root);
	runrules_hooks_from(p, v, sizeof v);
	rf->hooks[0] = '\0';
	if (v[0] == '\0')
		return;
	if (v[0] != '/')
		snprintf(rf->hooks, sizeof rf->hooks, "%s", v);
	else if (strncmp(v, rf->root, rl) == 0 && v[rl] == '/')
		snprintf(rf->hooks, sizeof rf->hooks, "%s", v + rl + 1);
	/* a clean relative path: no "./", no trailing '/' */
	while (strncmp(rf->hooks, "./", 2) == 0)
		memmove(rf->hooks, rf->hooks + 2, strlen(rf->hooks + 2) + 1);
	while ((s = strrchr(rf->hooks, '/')) != NULL && s[1] == '\0')
		*s = '\0';
}

int
runfiles_snapshot(struct runfiles *rf, const char *root, const char *ws, const char *home)
{
	memset(rf, 0, sizeof *rf);
	if ((size_t)snprintf(rf->root, sizeof rf->root, "%s", root) >= sizeof rf->root)
		return rf->root[0] = '\0', -1;
	hooks_path(rf, ws, home);
	if (scan(rf, &rf->v, &rf->n, &rf->truncated) < 0) {
		rf->root[0] = '\0';
		return -1;
	}
	return 0;
}

static const struct rf_entry *
find(const struct rf_entry *v, size_t n, const char *rel)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].rel, rel) == 0)
			return &v[i];
	return NULL;
}

static void
entries_free(struct rf_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].rel);
	free(v);
}

static int
by_rel(const void *a, const void *b)
{
	return strcmp(((const struct rf_entry *)a)->rel, ((const struct rf_entry *)b)->rel);
}

int
runfiles_report(struct runfiles *rf, struct audit *au, int quiet)
{
	struct rf_entry *now = NULL;
	struct argv lines = { 0 };
	size_t n = 0;
	int trunc = 0, k = 0;

	if (rf->root[0] == '\0')
		return 0;
	if (scan(rf, &now, &n, &trunc) < 0) {
		entries_free(now, n);
		if (!quiet)
			msg_warn_sys("unable to look for files that run code in %s", rf->root);
		return 0;
	}
	if (n > 1)
		qsort(now, n, sizeof *now, by_rel);
	for (size_t i = 0; i < n; i++) {
		const struct rf_entry *b = find(rf->v, rf->n, now[i].rel);
		const char *what = now[i].rule >= 0 ? runrules_what(now[i].rule) : hooks_what;
		if (b && b->size == now[i].size && b->islink == now[i].islink &&
		    memcmp(b->sha, now[i].sha, sizeof b->sha) == 0)
			continue;
		av_pushf(&lines, "%s %s%s: %s", b ? "changed" : "created", now[i].rel,
		    now[i].islink ? " (a symbolic link)" : "", what);
		k++;
	}
	trunc |= rf->truncated;
	if (k || trunc) {
		audit_start(au, "run-files");
		audit_str(au, "root", rf->root);
		audit_strs(au, "files", lines.v, lines.n);
		audit_int(au, "partial", trunc);
		audit_end(au);
	}
	if (!quiet && k) {
		msg_warn("this run created or changed %d file%s in %s that run%s code on your machine:",
		    k, k == 1 ? "" : "s", rf->root, k == 1 ? "s" : "");
		for (size_t i = 0; i < lines.n; i++)
			fprintf(stderr, "corral:   %s\n", lines.v[i]);
	}
	if (!quiet && trunc)
		msg_warn("%s holds more than %d entries or a path longer than %d bytes: files that run code were looked for in part",
		    rf->root, RUNFILES_MAX_ENTRIES, PATH_MAX);
	av_free(&lines);
	entries_free(now, n);
	return k;
}

void
runfiles_free(struct runfiles *rf)
{
	entries_free(rf->v, rf->n);
	rf->v = NULL;
	rf->n = 0;
}
