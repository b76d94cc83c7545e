/* gitimport: the agent's work into the real repository, as data.
 *
 * The attempt repository is hostile input: git never runs with its config,
 * hooks, index or worktree pointers. Its HEAD and refs are read here as
 * bytes and checked (ref name and object id syntax; regular files only,
 * opened without following or blocking); its loose objects and packs are
 * copied as bytes into a directory of ours, each pack re-indexed by git
 * index-pack; then git, run in the REAL repository with that directory as
 * an object source only, packs what the agent's HEAD reaches and index-pack
 * --strict checks every object on the way in. The files the agent left
 * (committed or not) become one more commit, made from a fresh index (our
 * copy of the starting one) once nested repositories and special files
 * have been moved aside. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "fdio.h"
#include "gitcarry.h"
#include "gitref.h"
#include "gitrun.h"
#include "gitnested.h"
#include "gs.h"
#include "gitxref.h"
#include "parentdir.h"
#include "rmtree.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* A loose ref file at rdir/ref, every directory opened without following.
 * 0: read into *buf; -1 with errno (ENOENT: no loose ref). */
static int
read_loose(int rdir, const char *ref, char **buf, size_t *len)
{
	const char *c;
	int fd = parentdir_open(rdir, ref, 0, &c), nd, r;

	if (fd < 0)
		return -1;
	r = file_read_bounded(fd, c, 4096, buf, len);
	nd = errno;
	close(fd);
	return errno = nd, r;
}

/* The commit the attempt's HEAD names, into tip ("" when unborn). -1 with
 * why: malformed or unreadable (nothing of it is trusted then). */
static int
read_tip(const struct gitws *g, int rdir, char *tip, char *why, size_t whyn)
{
	char ref[GITREF_NAME_MAX + 1], *buf = NULL;
	size_t len;
	int kind;

	tip[0] = '\0';
	if (file_read_bounded(rdir, "HEAD", 4096, &buf, &len) < 0)
		return msg_say(why, whyn, "its HEAD is unreadable (%s)", strerror(errno));
	kind = gitref_parse(buf, len, g->hexlen, ref, tip);
	free(buf);
	for (int depth = 0; kind == 1; depth++) {
		if (depth == 5)
			return msg_say(why, whyn, "its HEAD is a chain of symbolic refs");
		if (read_loose(rdir, ref, &buf, &len) == 0) {
			kind = gitref_parse(buf, len, g->hexlen, ref, tip);
			free(buf);
			continue;
		}
		if (errno != ENOENT)
			return msg_say(why, whyn, "%s is not a regular ref file (%s)", ref, strerror(errno));
		if (file_read_bounded(rdir, "packed-refs", 256 << 20, &buf, &len) < 0) {
			if (errno == ENOENT)
				return 0;	/* unborn */
			return msg_say(why, whyn, "its packed-refs is unreadable (%s)", strerror(errno));
		}
		kind = gitref_packed_find(buf, len, ref, g->hexlen, tip);
		free(buf);
		if (kind == 1)
			return tip[0] = '\0', 0;	/* unborn */
	}
	if (kind < 0)
		return msg_say(why, whyn, "its HEAD or a ref it names is malformed");
	return 0;
}

static int
is_hex(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* Index one of the agent's packs into q (index-pack checks every object
 * and writes a fresh .idx; the agent's own .idx is never read). */
static int
index_pack(const struct gitws *g, int pfd, const char *name, const char *q)
{
	const char *const ip[] = { "index-pack", "--stdin", NULL };
	struct gitcall gc = { g->git, g->gitdir, NULL, NULL, q, NULL };
	struct stat st;
	int fd, code;

	fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		close(fd);
		return errno = EINVAL, -1;
	}
	code = gitrun(&gc, ip, fd, -1, NULL, NULL, 0);
	close(fd);
	return code == 0 ? 0 : (errno = EPROTO, -1);
}

/* All the loose objects an import copies, together: they are counted by
 * their size as written, never by what the agent's disk holds. */
#define LOOSE_BUDGET (1ULL << 32)

/* A loose object is zlib's output, so it is never sparse: one whose blocks
 * hold less than its size (48 KiB of the agent's disk once named a 2.1 GiB
 * object, written out in full) is refused, and so is one past what is left
 * of the budget. The attempt's processes have all ended: nothing changes
 * the file between this look and the copy. */
static int
loose_fits(int dfd, const char *name, unsigned long long *left)
{
	struct stat st;
	unsigned long long size, real;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	size = (unsigned long long)st.st_size;
	real = (unsigned long long)st.st_blocks * 512;
	if (real + 4096 < size || size > *left)
		return 0;
	*left -= size;
	return 1;
}

/* The attempt's objects, as bytes, into q (STORE/git/ATTEMPT/objects):
 * loose objects named as git names them, packs re-indexed. Anything else
 * (FIFOs, symlinks, alternates, the agent's .idx files, sparse or
 * over-budget loose objects) is skipped. */
static int
copy_objects(const struct gitws *g, int rdir, int afd, const char *q, int *skipped)
{
	struct dirent *de, *fe;
	DIR *d, *s;
	int ofd, qfd, sub, qsub;
	unsigned long long left = LOOSE_BUDGET;

	if ((mkdirat(afd, "objects", 0700) < 0 && errno != EEXIST) || (qfd = openat(afd, "objects", OPEN_DIR)) < 0)
		return -1;
	if ((mkdirat(qfd, "pack", 0700) < 0 && errno != EEXIST) || (ofd = openat(rdir, "objects", OPEN_DIR)) < 0 ||
	    (d = fdopendir(ofd)) == NULL) {
		close(qfd);
		return errno == ENOENT ? 0 : -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, "pack") == 0) {
			if ((sub = openat(dirfd(d), "pack", OPEN_DIR)) < 0 || (s = fdopendir(sub)) == NULL) {
				(*skipped)++;
				continue;
			}
			while ((fe = readdir(s)) != NULL) {
				size_t n = strlen(fe->d_name);
				if (n > 10 && strncmp(fe->d_name, "pack-", 5) == 0 &&
				    strcmp(fe->d_name + n - 5, ".pack") == 0 &&
				    index_pack(g, dirfd(s), fe->d_name, q) < 0)
					(*skipped)++;
			}
			closedir(s);
			continue;
		}
		if (!is_hex(de->d_name, 2))
			continue;
		if ((sub = openat(dirfd(d), de->d_name, OPEN_DIR)) < 0 || (s = fdopendir(sub)) == NULL) {
			(*skipped)++;
			continue;
		}
		qsub = -1;
		while ((fe = readdir(s)) != NULL) {
			if (!is_hex(fe->d_name, g->hexlen - 2))
				continue;
			if (qsub < 0 && ((mkdirat(qfd, de->d_name, 0700) < 0 && errno != EEXIST) ||
			    (qsub = openat(qfd, de->d_name, OPEN_DIR)) < 0))
				break;
			if (!loose_fits(dirfd(s), fe->d_name, &left) ||
			    gitws_copy(dirfd(s), fe->d_name, qsub, fe->d_name, LOOSE_BUDGET) < 0)
				(*skipped)++;
		}
		if (qsub >= 0)
			close(qsub);
		closedir(s);
	}
	closedir(d);
	close(qfd);
	return 0;
}

int
gitws_bring(const struct gitws *g, const char *q, const char *tip, char *why, size_t whyn)
{
	const char *const po[] = { "pack-objects", "--revs", "--stdout", "-q", NULL };
	const char *const ip[] = { "index-pack", "--stdin", "--strict", NULL };
	struct gitcall src = { g->git, g->gitdir, NULL, NULL, NULL, q };
	struct gitcall dst = { g->git, g->gitdir, NULL, NULL, NULL, NULL };
	char revs[160];
	int in[2], mid[2], a, b, ca, cb;

	snprintf(revs, sizeof revs, "%s\n%s%s%s", tip, g->start[0] ? "^" : "", g->start,
	    g->start[0] ? "\n" : "");
	if (pipe2(in, O_CLOEXEC) < 0)
		return msg_say(why, whyn, "pipe: %s", strerror(errno));
	if (pipe2(mid, O_CLOEXEC) < 0) {
		close(in[0]), close(in[1]);
		return msg_say(why, whyn, "pipe: %s", strerror(errno));
	}
	a = gitrun_start(&src, po, in[0], mid[1]);
	close(in[0]);
	close(mid[1]);
	b = a < 0 ? -1 : gitrun_start(&dst, ip, mid[0], -1);
	close(mid[0]);
	if (a >= 0)
		(void)fd_write_all(in[1], revs, strlen(revs));	/* a few lines: the pipe holds them */
	close(in[1]);
	ca = a < 0 ? -1 : gitrun_wait(a);
	cb = b < 0 ? -1 : gitrun_wait(b);
	if (ca != 0 || cb != 0)
		return msg_say(why, whyn, "its objects did not pass git pack-objects (status %d) and index-pack --strict (status %d)",
		    ca, cb);
	return 0;
}

struct qctx {
	int afd, qfd, n;
	const struct argv *before;	/* in-place: what was there (gitnested.c), else NULL */
	FILE *list;
	const struct gitseen *seen;	/* worktree: the checkout at the set-up (NULL: none) */
	struct argv changed;		/* ... its files changed in place since, for git to hash */
	const struct argv *skip;	/* ... the dependency links (not in its digest) */
	uint64_t sum;			/* ... the digest of what is there now (gitseen.h) */
	size_t entries;
	int fresh;			/* ... an entry made or changed since the set-up */
};

/* Into the digest as gitseen's walk folds it: files, links but the
 * dependency links, directories; each with its ctime looked at. */
static void
fold(struct qctx *c, const char *path, const char *nm, const char *sub, const struct stat *st)
{
	if (c->seen == NULL)
		return;
	if (S_ISLNK(st->st_mode))
		for (size_t i = 0; c->skip && i < c->skip->n; i++)
			if (strcmp(c->skip->v[i], sub) == 0)
				return;
	gitseen_fold(&c->sum, path, nm, st);
	c->entries++;
	c->fresh |= gitseen_fresh(c->seen, st);
}

/* Worktree mode: the checkout is the agent's, all of it goes. In-place: by
 * content against the start, never by timestamp (gitnested.c). */
static int
changed(const struct qctx *c, int dfd, const char *nm, const char *path)
{
	return c->before == NULL || !gitnested_same(c->before, dfd, nm, path);
}

/* Move dfd/name aside into the quarantine directory (numbered). */
static int
move_aside(struct qctx *c, int dfd, const char *name, const char *path)
{
	char n[16];

	if (c->qfd < 0) {
		if ((mkdirat(c->afd, "quarantine", 0700) < 0 && errno != EEXIST) ||
		    (c->qfd = openat(c->afd, "quarantine", OPEN_DIR)) < 0)
			return -1;
		int lf = openat(c->qfd, "LIST", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		c->list = lf < 0 ? NULL : fdopen(lf, "a");
	}
	snprintf(n, sizeof n, "%d", ++c->n);
	if (renameat(dfd, name, c->qfd, n) < 0)
		return -1;
	if (c->list)
		fprintf(c->list, "%s\t%s\n", n, path);
	return 0;
}

/* Walk the agent's tree without following anything: a nested repository
 * (any .git below the top) and anything neither a file, a symlink nor a
 * directory (a FIFO git would block on) is moved aside; files and links
 * changed in place since the set-up are noted (gitseen.h). */
static int
quarantine(struct qctx *c, int dfd, const char *path, int depth)
{
	char sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, r = 0;

	if ((d = dir_fresh(dfd)) == NULL)
		return -1;
	while (r == 0 && (de = readdir(d)) != NULL) {
		const char *nm = de->d_name;
		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0)
			continue;
		if (depth == 0 && strcmp(nm, ".git") == 0)
			continue;	/* the attempt repository itself */
		if ((de->d_type == DT_REG || de->d_type == DT_LNK) && c->seen == NULL && strcasecmp(nm, ".git") != 0)
			continue;
		if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && strcasecmp(nm, ".git") != 0) {
			fold(c, path, nm, NULL, &st);
			if (c->seen && gitseen_changed(c->seen, path, nm, &st))
				av_pushf(&c->changed, "%s%s%s", path, *path ? "/" : "", nm);
			continue;
		}
		if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "/" : "", nm) >= sizeof sub) {
			if (S_ISLNK(st.st_mode) && strcasecmp(nm, ".git") != 0) {
				/* not in gitseen's digest: git cannot name it either */
				if (c->seen && gitseen_changed(c->seen, path, nm, &st))
					av_pushf(&c->changed, "%s/%s", path, nm);
				continue;
			}
			r = move_aside(c, dirfd(d), nm, path);
			continue;
		}
		if (S_ISLNK(st.st_mode) && strcasecmp(nm, ".git") != 0) {
			fold(c, path, nm, sub, &st);
			if (c->seen && gitseen_changed(c->seen, path, nm, &st))
				av_pushf(&c->changed, "%s", sub);
			continue;
		}
		if (strcasecmp(nm, ".git") == 0 ||
		    !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode))) {
			if (changed(c, dirfd(d), nm, sub))
				r = move_aside(c, dirfd(d), nm, sub);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		fold(c, path, nm, sub, &st);
		if (depth >= 200) {
			r = move_aside(c, dirfd(d), nm, sub);
			continue;
		}
		fd = openat(dirfd(d), nm, OPEN_DIR);
		if (fd < 0)
			continue;	/* unreadable: git add --ignore-errors skips it too */
		r = quarantine(c, fd, sub, depth + 1);
		close(fd);
	}
	closedir(d);
	return r;
}

/* The import index's time past the set-up's (a git that read it then
 * writes it without comparing racy entries' content). */
static int
future(const struct gitws *g, int afd)
{
	struct timespec tv[2] = { { 0, UTIME_OMIT }, { g->seen.ready.tv_sec + 1, 0 } };

	return g->seen.ok ? utimensat(afd, "import.index", tv, AT_SYMLINK_NOFOLLOW) : 0;
}

/* gitseen.h: the files it changed in place hashed into the import index
 * (taken out, then added: git skips a path whose stat matches; each was in
 * the checkout at the set-up, so in the index), then the index's time set
 * past the set-up's, so that git add -A trusts the stat of every entry
 * instead of reading each file written in the same second as the index
 * (all of a fresh checkout). 0, or -1. */
static int
trust_stat(const struct gitws *g, int afd, const struct gitcall *gc, const struct argv *changed)
{
	const char *const rm[] = { "update-index", "--force-remove", "-z", "--stdin", NULL };
	const char *const ui[] = { "update-index", "--add", "-z", "--stdin", NULL };
	size_t n = 0;
	char *buf;
	int fd, code = 0;

	if (future(g, afd) < 0 && errno != ENOENT)	/* again: read-tree -m wrote it */
		return -1;
	if (changed->n > 0) {
		for (size_t i = 0; i < changed->n; i++)
			n += strlen(changed->v[i]) + 1;
		if ((buf = malloc(n)) == NULL)
			return -1;
		n = 0;
		for (size_t i = 0; i < changed->n; i++) {
			memcpy(buf + n, changed->v[i], strlen(changed->v[i]) + 1);
			n += strlen(changed->v[i]) + 1;
		}
		fd = gitws_stdin(afd, "changed", buf, n);
		free(buf);
		if (fd < 0)
			return -1;
		code = gitrun(gc, rm, fd, -1, NULL, NULL, 0);
		if (code == 0 && lseek(fd, 0, SEEK_SET) == 0)
			code = gitrun(gc, ui, fd, -1, NULL, NULL, 0);
		close(fd);
	}
	if (code != 0 || changed->err)
		return -1;
	return future(g, afd);
}

/* A dependency directory left out of git add: D and everything beneath
 * it, as two wildcard pathspecs matching exactly that (each character
 * git would read as a wildcard escaped, and the first escaped always).
 * A literal pathspec equal to an ignored path makes git add name it
 * ("The following paths are ignored ... hint: Use -f") even in an
 * exclude, and exit 1: git compares every pathspec's part before its
 * first wildcard with the ignored path, and here that part is empty. */
static void
dep_exclude(struct argv *add, const char *d)
{
	char e[PATH_MAX * 2 + 8];
	size_t n = 0;

	for (const char *c = d; *c; c++) {
		if (n + 3 >= sizeof e) {
			av_pushf(add, ":(exclude,literal)%s", d);	/* never cut short */
			return;
		}
		if (c == d || strchr("*?[]\\", *c))
			e[n++] = '\\';
		e[n++] = *c;
	}
	e[n] = '\0';
	av_pushf(add, ":(exclude)%s", e);
	av_pushf(add, ":(exclude)%s/*", e);
}

/* The files the agent left over the starting index: a tree (objects into
 * objdir: NULL, the real repository's). The user's dependency directories
 * linked into the checkout, and whatever the agent put in their place, are
 * left out. changed: what it changed in place (gitseen.h), hashed first;
 * git then trusts the stat of every other entry. */
static int
files_tree(const struct gitws *g, int afd, const char *tip, const char *objdir, const struct argv *changed,
    char *tree, char *why, size_t whyn)
{
	char idx[PATH_MAX + 16], *out = NULL;
	const char *const rtm[] = { "read-tree", "-m", "-i", g->base, tip, NULL };
	const char *const rt[] = { "read-tree", tip, NULL };
	const char *const wt[] = { "write-tree", NULL };
	struct gitcall gc = { g->git, g->gitdir, g->work, idx, objdir, NULL };
	struct argv add = { 0 };
	size_t len;
	int code;

	snprintf(idx, sizeof idx, "%s/import.index", g->dir);
	(void)unlinkat(afd, "import.index", 0);
	if (gitws_copy_index(afd, "base.index", afd, "import.index") < 0 && errno != ENOENT)
		return msg_say(why, whyn, "unable to copy %s/base.index: %s", g->dir, strerror(errno));
	if (future(g, afd) < 0 && errno != ENOENT)
		return msg_say(why, whyn, "unable to set the time of %s/import.index: %s", g->dir, strerror(errno));
	if (tip[0] && strcmp(tip, g->base) != 0) {
		/* carry the starting stat information over where it still holds */
		if (!g->base[0] || gitrun(&gc, rtm, -1, -1, NULL, NULL, 0) != 0) {
			(void)unlinkat(afd, "import.index", 0);
			if ((code = gitrun(&gc, rt, -1, -1, NULL, NULL, 0)) != 0)
				return msg_say(why, whyn, "git read-tree %s failed (status %d)", tip, code);
		}
	}
	if (g->seen.ok && trust_stat(g, afd, &gc, changed) < 0)
		return msg_say(why, whyn, "git update-index of the files it changed in %s failed", g->work);
	av_push(&add, "add");
	av_push(&add, "-A");
	av_push(&add, "--ignore-errors");
	av_push(&add, "--");
	av_push(&add, ".");
	for (size_t i = 0; i < g->deplinks.n; i++)
		dep_exclude(&add, g->deplinks.v[i]);
	if (add.err) {
		av_free(&add);
		return msg_say(why, whyn, "out of memory");
	}
	code = gitrun(&gc, (const char *const *)add.v, -1, -1, NULL, NULL, 0);
	av_free(&add);
	if (code != 0 && code != 1)
		return msg_say(why, whyn, "git add -A over %s failed (status %d)", g->work, code);
	/* without the work tree: git write-tree given one spends more than
	 * twice the time (45 against 18 ms at 10k files) */
	gc.work = NULL;
	code = gitrun(&gc, wt, -1, -1, &out, &len, 4096);
	if (code != 0 || len < g->hexlen || !gitref_oid_ok(out, g->hexlen, g->hexlen)) {
		free(out);
		return msg_say(why, whyn, "git write-tree failed (status %d)", code);
	}
	memcpy(tree, out, g->hexlen);
	tree[g->hexlen] = '\0';
	free(out);
	return 0;
}

static void
summarize(const struct gitws *g, struct gitws_result *res)
{
	struct gitcall gc = { g->git, g->gitdir, NULL, NULL, NULL, NULL };
	char neg[80], *out = NULL;
	const char *const rl[] = { "rev-list", "--count", res->commit, g->start[0] ? neg : NULL, NULL };
	const char *const ds[] = { "diff-tree", "--shortstat", "-r", g->start[0] ? g->start : "--root",
		res->commit, NULL };
	size_t len;

	int pid, fd;

	snprintf(neg, sizeof neg, "^%s", g->start);
	/* the two at once: neither writes */
	pid = gitrun_spawn(&gc, rl, -1, &fd);
	if (gitrun(&gc, ds, -1, -1, &out, &len, 4096) == 0) {
		char *l = out + strspn(out, " \n");
		if (!g->start[0])
			l += strcspn(l, "\n"), l += strspn(l, " \n");	/* --root prints the commit */
		snprintf(res->shortstat, sizeof res->shortstat, "%.*s", (int)strcspn(l, "\n"), l);
	}
	free(out);
	out = NULL;
	if (pid > 0 && gitrun_collect(pid, fd, &out, &len, 64) == 0)
		res->commits = strtol(out, NULL, 10);
	free(out);
	if (!res->shortstat[0])
		snprintf(res->shortstat, sizeof res->shortstat, "no files changed");
}

/* STORE/git/ATTEMPT/objects, where git writes while carrying the agent's
 * commits over: it reads the real objects and the base's through it. */
static int
make_q(const struct gitws *g, int afd)
{
	char alt[PATH_MAX * 4];
	size_t n = 0;
	int qfd, fd, r = -1;

	n = gitws_alt(g, alt, sizeof alt);
	if (n < sizeof alt)
		n += (size_t)snprintf(alt + n, sizeof alt - n, "%s\n", g->basedir);
	if (n >= sizeof alt)
		return errno = ENAMETOOLONG, -1;
	if ((mkdirat(afd, "objects", 0700) < 0 && errno != EEXIST) || (qfd = openat(afd, "objects", OPEN_DIR)) < 0)
		return -1;
	(void)mkdirat(qfd, "pack", 0700);
	(void)mkdirat(qfd, "info", 0700);
	fd = openat(qfd, "info/alternates", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && fd_write_all(fd, alt, n) == 0)
		r = 0;
	if (fd >= 0 && close(fd) < 0)
		r = -1;
	close(qfd);
	return r;
}

/* The dependency links the agent replaced: its own install, not imported. */
static void
own_deps(const struct gitws *g, struct gitws_result *res)
{
	char p[PATH_MAX * 2], l[PATH_MAX * 2], want[PATH_MAX * 2];
	ssize_t n;

	for (size_t i = 0; i < g->deplinks.n; i++) {
		snprintf(p, sizeof p, "%s/%s", g->work, g->deplinks.v[i]);
		snprintf(want, sizeof want, "%s/%s", g->ws, g->deplinks.v[i]);
		if ((n = readlink(p, l, sizeof l - 1)) >= 0 && (l[n] = '\0', strcmp(l, want) == 0))
			continue;
		if (n < 0 && errno == ENOENT)
			continue;	/* removed: nothing of its own there */
		res->own_deps++;
		size_t at = strlen(res->deps);
		snprintf(res->deps + at, sizeof res->deps - at, "%s%s", at ? ", " : "", g->deplinks.v[i]);
	}
}

/* 1 when the agent left everything as the set-up made it: its HEAD the
 * base, no other ref new or moved, and its checkout the same entries with
 * the same stat information (inode, size, mode, mtime, ctime: the digest
 * of gitseen.h, which git's own test of an index entry uses) and none of
 * them made or changed since the set-up's end (a change within the
 * timestamps' granularity, which the same stat would hide). Then git add
 * -A would hash nothing and the tree would be the base's: the import has
 * nothing to run git for. */
static int
untouched(const struct gitws *g, const struct qctx *c, const struct gitxrefs *todo, const char *tip,
    const struct gitws_result *res)
{
	return g->mode == GIT_WORKTREE && g->seen.ok && g->seen.digest && c->seen != NULL && !c->fresh &&
	    c->n == 0 && c->changed.n == 0 && !c->changed.err && c->entries == g->seen.entries &&
	    c->sum == g->seen.sum && todo->n == 0 && !res->refused[0] && res->xrefs == 0 &&
	    res->xrefused == 0 && res->own_deps == 0 && tip[0] && strcmp(tip, g->base) == 0;
}

int
gitws_import(struct gitws *g, const char *attempt, struct gitws_result *res, char *why, size_t whyn)
{
	struct gitcall gc = { g->git, g->gitdir, NULL, NULL, NULL, NULL };
	char tip[GITREF_OID_MAX + 1], tree[GITREF_OID_MAX + 1], q[PATH_MAX + 16], spec[160];
	char msg[160], c1[GITREF_OID_MAX + 4], c2[GITREF_OID_MAX + 4], ptip[GITREF_OID_MAX + 16];
	struct qctx qc = { -1, -1, 0, g->mode == GIT_INPLACE ? &g->nested : NULL, NULL,
		g->seen.ok ? &g->seen : NULL, { 0 }, NULL, 0, 0, 0 };
	struct gitxrefs todo = { 0 };
	struct argv ov = { 0 };		/* files both changed, carried whole */
	int afd, rdir, wfd, skipped = 0, r = -1;
	/* the attempt began from the user's state, not HEAD: its commits are
	 * carried over (gitcarry.c), git writing to q, never the real objects */
	int carry = strcmp(g->base, g->start) != 0;

	memset(res, 0, sizeof *res);
	if ((afd = open(g->dir, OPEN_DIR)) < 0)
		return msg_say(why, whyn, "%s: %s", g->dir, strerror(errno));
	qc.afd = afd;
	snprintf(q, sizeof q, "%s/objects", g->dir);
	/* 1. the agent's HEAD, as data */
	rdir = open(g->repo, OPEN_DIR);
	if (rdir < 0)
		snprintf(res->refused, sizeof res->refused, "the attempt repository is gone: its commits were not imported");
	else if (read_tip(g, rdir, tip, msg, sizeof msg) < 0)
		snprintf(res->refused, sizeof res->refused, "the attempt repository's %s: its commits were not imported", msg);
	if (res->refused[0] || !tip[0])
		snprintf(tip, sizeof tip, "%s", g->base);
	/* its other branches and tags: new or moved since the start */
	if (rdir >= 0 && !res->refused[0])
		gitxref_collect(g, rdir, afd, tip, &todo, res);
	/* 2. its objects, checked on the way in */
	if (carry && make_q(g, afd) < 0) {
		msg_say(why, whyn, "unable to make %s: %s", q, strerror(errno));
		goto out;
	}
	if (rdir >= 0 && (todo.n > 0 || (tip[0] && strcmp(tip, g->base) != 0)) &&
	    copy_objects(g, rdir, afd, q, &skipped) < 0) {
		msg_say(why, whyn, "unable to copy the attempt's objects into %s: %s", q, strerror(errno));
		goto out;
	}
	if (skipped)
		msg_warn("git: %d of the attempt's object files left out (not a git object file, sparse, "
		    "or past the import's %llu MiB for loose objects)", skipped, LOOSE_BUDGET >> 20);
	gitxref_import(g, afd, q, attempt, &todo, &ov, res);
	if (!carry && rdir >= 0 && tip[0] && strcmp(tip, g->start) != 0) {
		if (gitws_bring(g, q, tip, msg, sizeof msg) < 0) {
			msg_say(why, whyn, "the attempt's commits were refused: %s", msg);
			goto out;
		}
		snprintf(ptip, sizeof ptip, "%s^{commit}", tip);
		const char *const rp[] = { "rev-parse", "--verify", "-q", ptip, NULL };
		if (gitws_oid(g, &gc, rp, -1, c1) < 0 || strcmp(c1, tip) != 0) {
			msg_say(why, whyn, "the attempt's HEAD %s is not a commit", tip);
			goto out;
		}
	}
	if (rdir >= 0)
		close(rdir);
	rdir = -1;
	/* 3. the files it left: nested repositories and special files aside */
	if ((wfd = open(g->work, OPEN_DIR)) < 0) {
		msg_say(why, whyn, "%s: %s", g->work, strerror(errno));
		goto out;
	}
	qc.skip = &g->deplinks;
	r = quarantine(&qc, wfd, "", 0);
	close(wfd);
	if (qc.list)
		fclose(qc.list);
	if (qc.qfd >= 0)
		close(qc.qfd);
	if (r < 0) {
		msg_say(why, whyn, "unable to move nested repositories aside in %s: %s", g->work, strerror(errno));
		goto out;
	}
	r = -1;
	res->quarantined = qc.n;
	if (qc.n)
		snprintf(res->quarantine, sizeof res->quarantine, "%s/quarantine", g->dir);
	own_deps(g, res);
	if (untouched(g, &qc, &todo, tip, res)) {
		/* nothing for git to hash: the files are the base's, no ref moved */
		snprintf(res->commit, sizeof res->commit, "%s", g->start);
		r = 0;
		goto done;
	}
	snprintf(ptip, sizeof ptip, "%s^{tree}", tip);
	{
		/* the tip's tree, asked beside git add and write-tree (it reads
		 * the real repository, they write the import index and objects) */
		const char *const rpt[] = { "rev-parse", "--verify", "-q", ptip, NULL };
		char *o = NULL;
		size_t ol = 0;
		int rfd = -1, rpid = !carry && tip[0] ? gitrun_spawn(&gc, rpt, -1, &rfd) : -1;
		int fr = files_tree(g, afd, tip, carry ? q : NULL, &qc.changed, tree, why, whyn);
		if (rpid > 0 && gitrun_collect(rpid, rfd, &o, &ol, 4096) == 0 && ol >= g->hexlen &&
		    gitref_oid_ok(o, g->hexlen, g->hexlen))
			snprintf(c2, sizeof c2, "%.*s", (int)g->hexlen, o);
		else
			c2[0] = '\0';
		free(o);
		if (fr < 0)
			goto out;
	}
	snprintf(res->commit, sizeof res->commit, "%.64s", tip);
	if (carry) {
		if (gitcarry(g, afd, q, tip, tree, attempt, res->commit, &res->uncommitted, &ov, why, whyn) < 0)
			goto out;
		if (strcmp(res->commit, g->start) != 0 && gitws_bring(g, q, res->commit, msg, sizeof msg) < 0) {
			msg_say(why, whyn, "the attempt's commits were refused: %s", msg);
			goto out;
		}
	} else {
		if (!tip[0] || !c2[0] || strcmp(c2, tree) != 0) {
			const char *const ct[] = { "commit-tree", tree, "-m", msg, tip[0] ? "-p" : NULL, tip, NULL };
			snprintf(msg, sizeof msg, "corral: the changes attempt %s left uncommitted", attempt);
			if (gitws_oid(g, &gc, ct, -1, c1) < 0) {
				msg_say(why, whyn, "git commit-tree failed");
				goto out;
			}
			snprintf(res->commit, sizeof res->commit, "%.64s", c1);
			res->uncommitted = 1;
		}
	}
	if (!res->commit[0] || strcmp(res->commit, g->start) == 0) {
		r = 0;		/* nothing to import */
		goto done;
	}
	/* 4. the branch: a new ref, never an existing one */
	snprintf(res->branch, sizeof res->branch, "refs/heads/corral/%.8s", attempt);
	/* the reflog names where it started: corral branches sizes it from there */
	snprintf(spec, sizeof spec, "corral: attempt %s from %s", attempt, g->start[0] ? g->start : "root");
	{
		const char *const ur[] = { "update-ref", "-m", spec, res->branch, res->commit, "", NULL };
		int code = gitrun(&gc, ur, -1, -1, NULL, NULL, 0);
		if (code != 0) {
			msg_say(why, whyn, "git update-ref %s failed (status %d)", res->branch, code);
			res->branch[0] = '\0';
			goto out;
		}
	}
	summarize(g, res);
	r = 0;
done:
	/* the caller removes g->dir once the checkout's slot is given back */
	res->done = res->quarantined == 0 && res->xrefused == 0;
out:
	res->overlaps = (int)ov.n;
	for (size_t i = 0; i < ov.n; i++)
		gitws_add_name(res->overlap, sizeof res->overlap, ov.v[i]);
	av_free(&ov);
	av_free(&qc.changed);
	if (rdir >= 0)
		close(rdir);
	close(afd);
	gitxref_free(&todo);
	return r;
}
