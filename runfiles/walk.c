/* walk: see rf.h. Directories are read without following a link, at any
 * depth, each opened from the root (no descriptor held per level); a .git
 * (or a bare repository: a directory holding HEAD, config and objects/) is
 * entered only for its hooks and config. Bounded: RF_MAX_ENTRIES entries
 * read, RF_MAX_MATCHES matches, paths under PATH_MAX; past a bound the
 * result is marked partial.
 *
 * What a directory's times say (the report trusts an unchanged directory's
 * entries without reading it): creating, removing or renaming an entry in
 * it, a hard link made into it, and a utimes(2) on it all set its ctime to
 * the time of the change, and nobody can set a ctime (utimes sets mtime and
 * atime only, and the ctime to now). A file's content can change with no
 * directory's time moving: so every matching file is measured again, in
 * every directory, changed or not. A timestamp is taken from a clock that
 * may tick coarsely (a jiffy; a second or two on old or foreign file
 * systems): a directory whose ctime is that close to the snapshot's start
 * could change again within the same tick, so it is marked racy and read
 * again whatever its times say. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include <bearssl_hash.h>

#include "argv.h"
#include "rf.h"
#include "runrules.h"

static const char hooks_what[] = "git runs it as a hook (core.hooksPath)";

const char *
rf_what(const struct rf_file *f)
{
	return f->rule >= 0 ? runrules_what(f->rule) : hooks_what;
}

void
rf_state_free(struct rf_state *s)
{
	for (size_t i = 0; i < s->nd; i++)
		free(s->d[i].rel);
	for (size_t i = 0; i < s->nf; i++)
		free(s->f[i].rel);
	for (size_t i = 0; i < s->nsub; i++)
		free(s->subs[i]);
	free(s->d);
	free(s->f);
	free(s->subs);
	s->d = NULL;
	s->f = NULL;
	s->subs = NULL;
	s->nd = s->nf = s->nsub = s->capd = s->capf = s->capsub = 0;
}

/* the rule for rel: its index, -1 for core.hooksPath, -2 none */
static int
which(const char *hooks, const char *rel)
{
	size_t hl = strlen(hooks);
	int i = runrules_match(rel);

	if (i >= 0)
		return i;
	if (hl && strncmp(rel, hooks, hl) == 0 && rel[hl] == '/' && strchr(rel + hl + 1, '/') == NULL)
		return -1;
	return -2;
}

static int
grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;

	if (n < *cap)
		return 0;
	if ((nv = realloc(*v, (*cap ? *cap * 2 : 32) * size)) == NULL)
		return -1;
	*v = nv;
	*cap = *cap ? *cap * 2 : 32;
	return 0;
}

/* Size and SHA-256 of the first MiB of the file (a link: its target); a
 * file it cannot read is marked so (and compares as such). */
static void
measure(int dfd, const char *name, const struct stat *st, struct rf_file *e)
{
	br_sha256_context c;
	char buf[65536];
	ssize_t n;
	uint64_t left = 1 << 20;
	int fd;

	br_sha256_init(&c);
	e->size = (uint64_t)st->st_size;
	e->islink = S_ISLNK(st->st_mode);
	e->unreadable = 0;
	if (e->islink) {
		if ((n = readlinkat(dfd, name, buf, sizeof buf)) < 0)
			e->unreadable = 1;
		else
			br_sha256_update(&c, buf, (size_t)n);
	} else if (S_ISREG(st->st_mode)) {
		if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
			e->unreadable = 1;
		} else {
			while (left > 0 && (n = read(fd, buf, left < sizeof buf ? (size_t)left : sizeof buf)) > 0) {
				br_sha256_update(&c, buf, (size_t)n);
				left -= (uint64_t)n;
			}
			if (n < 0)
				e->unreadable = 1;
			close(fd);
		}
	}
	br_sha256_out(&c, e->sha);
}

struct walk {
	struct rf_state *out;
	const struct rf_state *os;	/* the snapshot (the report), or NULL */
	const struct rf_dir **old;	/* its directories, by rel */
	size_t nold;
	size_t seen;
	int rootfd;
	char *sub;			/* PATH_MAX: a path being built (one per walk,
					   not per level: no allocation per directory) */
	int64_t now_s;
	long now_ns;
};

static int
note(struct walk *w, int dfd, const char *name, const char *rel, const struct stat *st, int rule)
{
	struct rf_state *o = w->out;
	struct rf_file e;

	if (o->nf >= RF_MAX_MATCHES)
		return o->truncated = 1, 0;
	memset(&e, 0, sizeof e);
	e.rule = rule;
	measure(dfd, name, st, &e);
	if (grow((void **)&o->f, &o->capf, o->nf, sizeof *o->f) < 0 || (e.rel = strdup(rel)) == NULL)
		return -1;
	e.base = strlen(rel) - strlen(name);
	o->f[o->nf++] = e;
	return 0;
}

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

/* What a subdirectory n of a directory walked as in is walked as. */
static int
classify(int in, int dfd, const char *n)
{
	return in == IN_GIT ? IN_HOOKS : in == IN_BARE ? IN_BARE_HOOKS :
	    strcmp(n, ".git") == 0 ? IN_GIT : bare(dfd, n) ? IN_BARE : IN_TREE;
}

static int
by_rel(const void *a, const void *b)
{
	return strcmp((*(const struct rf_dir *const *)a)->rel, (*(const struct rf_dir *const *)b)->rel);
}

static const struct rf_dir *
old_dir(const struct walk *w, const char *rel)
{
	struct rf_dir k = { .rel = (char *)rel };
	const struct rf_dir *kp = &k, **f;

	if (w->nold == 0)
		return NULL;
	f = bsearch(&kp, w->old, w->nold, sizeof *w->old, by_rel);
	return f ? *f : NULL;
}

/* The directory's entries are as the snapshot saw them. */
static int
unchanged(const struct rf_dir *d, const struct stat *st)
{
	return d && !d->racy && d->dev == (uint64_t)st->st_dev && d->ino == (uint64_t)st->st_ino &&
	    d->cs == (int64_t)st->st_ctim.tv_sec && d->cn == st->st_ctim.tv_nsec &&
	    d->ms == (int64_t)st->st_mtim.tv_sec && d->mn == st->st_mtim.tv_nsec &&
	    d->size == (uint64_t)st->st_size && d->nlink == (uint64_t)st->st_nlink;
}

/* ctime within a tick of the snapshot's start: 100 ms where timestamps have
 * a fine grain, 2 s where the nanoseconds look like a coarse clock's (a
 * file system with 1 or 2 s timestamps); a ctime ahead of the start, too */
static int
racy(const struct walk *w, const struct stat *st)
{
	int64_t margin_ns = st->st_ctim.tv_nsec % 1000000 == 0 ? 2000000000LL : 100000000LL;
	int64_t c = (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;

	return c >= w->now_s * 1000000000LL + w->now_ns - margin_ns;
}

static int
push_dir(struct walk *w, const char *rel, int in, const struct stat *st)
{
	struct rf_state *o = w->out;
	struct rf_dir d;

	memset(&d, 0, sizeof d);
	if (grow((void **)&o->d, &o->capd, o->nd, sizeof *o->d) < 0 || (d.rel = strdup(rel)) == NULL)
		return -1;
	d.mode = in;
	d.racy = racy(w, st);
	d.dev = (uint64_t)st->st_dev;
	d.ino = (uint64_t)st->st_ino;
	d.size = (uint64_t)st->st_size;
	d.nlink = (uint64_t)st->st_nlink;
	d.cs = (int64_t)st->st_ctim.tv_sec;
	d.cn = st->st_ctim.tv_nsec;
	d.ms = (int64_t)st->st_mtim.tv_sec;
	d.mn = st->st_mtim.tv_nsec;
	d.s0 = o->nsub;
	d.f0 = o->nf;
	o->d[o->nd++] = d;
	return 0;
}

static int
push_sub(struct walk *w, const char *name)
{
	struct rf_state *o = w->out;
	char *s;

	if (grow((void **)&o->subs, &o->capsub, o->nsub, sizeof *o->subs) < 0 || (s = strdup(name)) == NULL)
		return -1;
	o->subs[o->nsub++] = s;
	return 0;
}

/* A directory unchanged since the snapshot: no readdir; its matching files
 * measured again (a content change moves no directory's time), its
 * subdirectories looked at, an fstatat each, into subs ("MODE" "rel"). */
static int
reuse(struct walk *w, int dfd, const char *rel, const struct rf_dir *od, struct argv *subs)
{
	const struct rf_state *os = w->os;
	struct rf_state *o = w->out;
	struct stat st;
	char *sub = w->sub;
	int r = 0;

	if (od->f0 + od->nf > os->nf || od->s0 + od->ns > os->nsub)
		return errno = EINVAL, -1;
	for (size_t i = od->f0; i < od->f0 + od->nf && r == 0; i++) {
		const struct rf_file *f = &os->f[i];
		if (fstatat(dfd, f->rel + f->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* gone: the directory would have changed */
		if (S_ISDIR(st.st_mode))
			continue;
		r = note(w, dfd, f->rel + f->base, f->rel, &st, f->rule);	/* same path, same rule */
	}
	if (r < 0)
		return -1;
	for (size_t i = od->s0; i < od->s0 + od->ns && r == 0; i++) {
		const char *n = os->subs[i];
		const struct rf_dir *c;
		if ((size_t)snprintf(sub, PATH_MAX, "%s%s%s", rel, *rel ? "/" : "", n) >= PATH_MAX) {
			o->truncated = 1;
			continue;
		}
		if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if ((r = push_sub(w, n)) < 0)
			break;
		/* a subdirectory itself unchanged keeps what it was walked as */
		c = old_dir(w, sub);
		av_pushf(subs, "%d%s", unchanged(c, &st) ? c->mode : classify(od->mode, dfd, n), sub);
	}
	return r;
}

/* A directory of the tree with no subdirectory: only a name of the table
 * can match in it, so each such name is looked up (an fstatat) instead of
 * reading every entry. */
static int
lookup_names(struct walk *w, int dfd, const char *rel)
{
	const char *const *names;
	size_t n = runrules_names(&names);
	struct stat st;
	int r = 0, rule;

	for (size_t i = 0; i < n && r == 0; i++) {
		if ((size_t)snprintf(w->sub, PATH_MAX, "%s%s%s", rel, *rel ? "/" : "", names[i]) >= PATH_MAX) {
			w->out->truncated = 1;
			continue;
		}
		if ((rule = which(w->out->hooks, w->sub)) == -2)
			continue;
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
			continue;
		r = note(w, dfd, names[i], w->sub, &st, rule);
	}
	return r;
}

/* Read the directory rel (walked as in), or, when the snapshot saw it as
 * it is, take its entries from there. Its subdirectories are entered once
 * it is closed, each opened from the root without following a link: no
 * descriptor is held per level, so every depth a path can have is walked
 * (a path longer than PATH_MAX is reported as not looked at). */
static int
walk_dir(struct walk *w, const char *rel, int in)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
	struct rf_state *o = w->out;
	const struct rf_dir *od;
	struct argv subs = { 0 };
	struct dirent *de;
	struct stat st, dst;
	DIR *dp;
	char *sub = w->sub;
	size_t di;
	int fd, r = 0, rule, dir_may;

	fd = rel[0] ? (int)syscall(SYS_openat2, w->rootfd, rel, &how, sizeof how) :
	    openat(w->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &dst) < 0) {
		close(fd);
		return 0;
	}
	di = o->nd;
	if (push_dir(w, rel, in, &dst) < 0) {
		close(fd);
		return -1;
	}
	od = old_dir(w, rel);
	if (unchanged(od, &dst) && od->mode == in) {
		r = reuse(w, fd, rel, od, &subs);
		close(fd);
		goto done;
	}
	{	/* may a rule for every name in a directory (or core.hooksPath) match here? */
		const char *last = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
		dir_may = runrules_dir_may(last, strlen(last)) || (o->hooks[0] && strcmp(rel, o->hooks) == 0);
	}
	/* a directory's link count is 2 and its subdirectories where a file
	 * system keeps it (ext4, xfs, tmpfs; btrfs and overlayfs say 1: read);
	 * 2: no subdirectory, nothing to read but the table's names */
	if (in == IN_TREE && !dir_may && dst.st_nlink == 2) {
		r = lookup_names(w, fd, rel);
		close(fd);
		goto done;
	}
	if ((dp = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (r == 0 && (de = readdir(dp)) != NULL) {
		const char *n = de->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (++w->seen > RF_MAX_ENTRIES) {
			o->truncated = 1;
			break;
		}
		if ((in == IN_GIT || in == IN_BARE) && strcmp(n, "hooks") != 0 && strcmp(n, "config") != 0)
			continue;
		/* most entries of a tree: decided by name, before any path */
		if (in == IN_TREE && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN && !dir_may &&
		    !runrules_name_may(n))
			continue;
		if ((size_t)snprintf(sub, PATH_MAX, "%s%s%s", rel, *rel ? "/" : "", n) >= PATH_MAX) {
			o->truncated = 1;
			continue;
		}
		/* stat only directories d_type cannot tell, and matches */
		rule = de->d_type == DT_DIR ? -2 : in == IN_BARE ? (strcmp(n, "config") == 0 ? runrules_bare(0) : -2) :
		    in == IN_BARE_HOOKS ? runrules_bare(1) : which(o->hooks, sub);
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN && rule == -2)
			continue;
		if (fstatat(dirfd(dp), n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (in == IN_HOOKS || in == IN_BARE_HOOKS || ((in == IN_GIT || in == IN_BARE) && strcmp(n, "hooks") != 0))
				continue;
			if ((r = push_sub(w, n)) < 0)
				break;
			av_pushf(&subs, "%d%s", classify(in, dirfd(dp), n), sub);
			continue;
		}
		if (rule != -2)
			r = note(w, dirfd(dp), n, sub, &st, rule);
	}
	closedir(dp);
done:
	o->d[di].ns = o->nsub - o->d[di].s0;
	o->d[di].nf = o->nf - o->d[di].f0;
	if (subs.err)
		r = -1;
	for (size_t i = 0; i < subs.n && r == 0; i++)
		r = walk_dir(w, subs.v[i] + 1, subs.v[i][0] - '0');
	av_free(&subs);
	return r;
}

int
rf_walk(const char *root, const struct rf_state *old, int64_t now_s, long now_ns, struct rf_state *out)
{
	struct walk w;
	int r, e;

	memset(&w, 0, sizeof w);
	w.out = out;
	w.os = old;
	w.now_s = now_s;
	w.now_ns = now_ns;
	if (old && old->nd) {
		if ((w.old = malloc(old->nd * sizeof *w.old)) == NULL)
			return -1;
		for (size_t i = 0; i < old->nd; i++)
			w.old[i] = &old->d[i];
		qsort(w.old, old->nd, sizeof *w.old, by_rel);
		w.nold = old->nd;
	}
	/* the path buffer static, not malloc's: 4 KB from malloc is a
	 * mapping of its own (an mmap, two faults, a munmap per walk; two
	 * walks per run); runfiles walks one tree at a time. openat, not
	 * open(2): musl's open adds an fcntl(F_SETFD) for O_CLOEXEC */
	static char sub[PATH_MAX];
	w.sub = sub;
	if ((w.rootfd = openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		e = errno;
		free(w.old);
		return errno = e, -1;
	}
	r = walk_dir(&w, "", IN_TREE);
	e = errno;
	close(w.rootfd);
	free(w.old);
	return errno = e, r;
}

/* The hooks directory git would use in root, relative to root ("" none). */
void
rf_hooks(const char *root, char *const *configs, size_t n, char *out, size_t cap)
{
	char p[PATH_MAX + 32], v[PATH_MAX] = "", *s;
	size_t rl = strlen(root);

	for (size_t i = 0; i < n; i++)
		runrules_hooks_from(configs[i], v, sizeof v);
	snprintf(p, sizeof p, "%s/.git/config", root);
	runrules_hooks_from(p, v, sizeof v);
	out[0] = '\0';
	if (v[0] == '\0')
		return;
	if (v[0] != '/')
		snprintf(out, cap, "%s", v);
	else if (strncmp(v, root, rl) == 0 && v[rl] == '/')
		snprintf(out, cap, "%s", v + rl + 1);
	/* a clean relative path: no "./", no trailing '/' */
	while (strncmp(out, "./", 2) == 0)
		memmove(out, out + 2, strlen(out + 2) + 1);
	while ((s = strrchr(out, '/')) != NULL && s[1] == '\0')
		*s = '\0';
}

static int
file_by_rel(const void *a, const void *b)
{
	return strcmp((*(const struct rf_file *const *)a)->rel, (*(const struct rf_file *const *)b)->rel);
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rf_file *)a)->rel, ((const struct rf_file *)b)->rel);
}

/* One line of the report, in a frame of its own: the quoted path's 16 KB
 * (whose pages -fstack-clash-protection touches on entry, a fault each)
 * only when there is a line, not on every compare. */
static __attribute__((noinline)) void
push_line(struct argv *lines, const struct rf_file *n, int changed)
{
	char q[PATH_MAX * 4 + 16];

	if (rf_escape(n->rel, q, sizeof q) < 0)
		snprintf(q, sizeof q, "(a path too long to show)");
	av_pushf(lines, "%s %s%s: %s", changed ? "changed" : "created", q, n->islink ? " (a symbolic link)" : "",
	    rf_what(n));
}

int
rf_compare(const struct rf_state *old, struct rf_state *now, struct argv *lines)
{
	const struct rf_file **ob = NULL;
	int k = 0;

	if (old->nf && (ob = malloc(old->nf * sizeof *ob)) == NULL)
		return -1;
	for (size_t i = 0; i < old->nf; i++)
		ob[i] = &old->f[i];
	if (old->nf > 1)
		qsort(ob, old->nf, sizeof *ob, file_by_rel);
	/* the report is sorted (the directories' ranges are not needed after) */
	if (now->nf > 1)
		qsort(now->f, now->nf, sizeof *now->f, file_cmp);
	for (size_t i = 0; i < now->nf; i++) {
		const struct rf_file *n = &now->f[i], *kp = n, **bp;
		const struct rf_file *b;
		bp = old->nf ? bsearch(&kp, ob, old->nf, sizeof *ob, file_by_rel) : NULL;
		b = bp ? *bp : NULL;
		if (b && b->size == n->size && b->islink == n->islink && b->unreadable == n->unreadable &&
		    memcmp(b->sha, n->sha, sizeof b->sha) == 0)
			continue;
		push_line(lines, n, b != NULL);
		k++;
	}
	free(ob);
	return lines->err ? -1 : k;
}
