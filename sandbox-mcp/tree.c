#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bearssl_hash.h>

#include "ckpt.h"
#include "fdio.h"
#include "git.h"
#include "parentdir.h"
#include "rmtree.h"
#include "rnd.h"
#include "tree.h"
#include "wspath.h"

/* one file of a tree: its escaped path from the workspace */
struct tent {
	char *path;
	unsigned mode;			/* 0100644, 0100755, 0120000 */
	unsigned char sha[20];
	uint64_t ino, size;
	int64_t mt, ct;			/* ns */
	int ok;				/* checkout: already there as it should be */
};

struct tlist {
	struct tent *v;
	size_t n, cap;
	char commit[CKPT_ID_MAX + 1];	/* the cache: the commit it describes */
	int64_t when;			/* the cache: written at (ns) */
};

static void
tl_free(struct tlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static struct tent *
tl_add(struct tlist *l, const char *path)
{
	struct tent *e;

	if (l->n >= TREE_MAX_ENTRIES)
		return errno = EFBIG, NULL;
	if (l->n == l->cap) {
		size_t c = l->cap ? l->cap * 2 : 256;
		void *v = realloc(l->v, c * sizeof *l->v);
		if (v == NULL)
			return NULL;
		l->v = v;
		l->cap = c;
	}
	e = &l->v[l->n];
	memset(e, 0, sizeof *e);
	if ((e->path = strdup(path)) == NULL)
		return NULL;
	l->n++;
	return e;
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(((const struct tent *)a)->path, ((const struct tent *)b)->path);
}

static struct tent *
tl_find(const struct tlist *l, const char *path)
{
	struct tent k = { .path = (char *)path };

	return l->n ? bsearch(&k, l->v, l->n, sizeof *l->v, by_path) : NULL;
}

static int64_t
ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void
hex(const unsigned char *sha, char *out)
{
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", sha[i]);
}

static int
unhex(const char *s, unsigned char *sha)
{
	for (int i = 0; i < 20; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		sha[i] = (unsigned char)v;
	}
	return 0;
}

int
tree_escape(const char *name, char *out, size_t n)
{
	int esc = strcasecmp(name, ".git") == 0 || strncmp(name, TREE_ESC, sizeof TREE_ESC - 1) == 0;
	int r = snprintf(out, n, "%s%s", esc ? TREE_ESC : "", name);

	return r < 0 || (size_t)r >= n ? -1 : 0;
}

/* The stat cache: "sbxtree1 COMMIT WHEN\n", then one record a file,
 * "MODE SHA INO SIZE MTIME CTIME PATH\0". Entries changed within RACY_NS
 * of the cache's writing are not trusted: file times come from a coarse
 * clock (a tick of up to 10 ms), and a change in the same tick keeps them. */
enum { RACY_NS = 100000000 };
static void
cache_load(struct sess *ss, struct tlist *l)
{
	char *buf, *p, *end;
	size_t len;

	memset(l, 0, sizeof *l);
	if (file_read_bounded(ss->dirfd, "tree.cache", 512 << 20, &buf, &len) < 0)
		return;
	end = buf + len;
	if (sscanf(buf, "sbxtree1 %40s %lld\n", l->commit, (long long *)&l->when) != 2 ||
	    (p = memchr(buf, '\n', len)) == NULL) {
		free(buf);
		l->commit[0] = '\0';
		return;
	}
	for (p++; p < end; ) {
		char *z = memchr(p, '\0', (size_t)(end - p)), *path, shah[41];
		unsigned mode;
		unsigned long long ino, size;
		long long mt, ct;
		struct tent *e;
		int off = 0;
		if (z == NULL)
			break;
		if (sscanf(p, "%o %40s %llu %llu %lld %lld %n", &mode, shah, &ino, &size, &mt, &ct, &off) != 6 ||
		    off == 0) {
			p = z + 1;
			continue;
		}
		path = p + off;
		if (mt < l->when - RACY_NS && ct < l->when - RACY_NS && (e = tl_add(l, path)) != NULL) {
			e->mode = mode;
			e->ino = ino;
			e->size = size;
			e->mt = mt;
			e->ct = ct;
			if (unhex(shah, e->sha) < 0) {
				free(e->path);
				l->n--;
			}
		}
		p = z + 1;
	}
	free(buf);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, by_path);
}

static void
cache_save(struct sess *ss, const struct tlist *l, const char *commit)
{
	struct buf b = { 0 };
	struct timespec now;
	char line[256], h[41];

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(line, sizeof line, "sbxtree1 %s %lld\n", commit, (long long)ns(&now));
	buf_adds(&b, line);
	for (size_t i = 0; i < l->n; i++) {
		const struct tent *e = &l->v[i];
		if (e->ino == 0)
			continue;
		hex(e->sha, h);
		snprintf(line, sizeof line, "%o %s %llu %llu %lld %lld ", e->mode, h, (unsigned long long)e->ino,
		    (unsigned long long)e->size, (long long)e->mt, (long long)e->ct);
		buf_adds(&b, line);
		buf_add(&b, e->path, strlen(e->path) + 1);
	}
	if (b.p == NULL || file_replace_atomic(ss->dirfd, "tree.cache", b.p, b.len, 0600) < 0)
		unlinkat(ss->dirfd, "tree.cache", 0);
	buf_free(&b);
}

static void
stat_into(struct tent *e, const struct stat *st)
{
	e->ino = st->st_ino;
	e->size = (uint64_t)st->st_size;
	e->mt = ns(&st->st_mtim);
	e->ct = ns(&st->st_ctim);
}

static unsigned
git_mode(const struct stat *st)
{
	return S_ISLNK(st->st_mode) ? 0120000 : (st->st_mode & S_IXUSR) ? 0100755 : 0100644;
}

/* A path quoted for fast-import (C style). */
static void
quote(FILE *f, const char *p)
{
	putc('"', f);
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\%03o", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

struct walk {
	struct tlist *cache, *now;
	FILE *f;			/* the fast-import stream */
	long miss;
	char path[WS_PATH_MAX * 2 + 64];
};

/* One file's content inline, hashed on the way as git hashes a blob. */
static int
inline_blob(struct walk *w, int dfd, const char *name, const struct stat *st, struct tent *e)
{
	br_sha1_context c;
	char buf[65536], hdr[64];
	uint64_t left = (uint64_t)st->st_size;
	ssize_t n;
	int fd, hl;

	br_sha1_init(&c);
	hl = snprintf(hdr, sizeof hdr, "blob %llu", (unsigned long long)st->st_size);
	br_sha1_update(&c, hdr, (size_t)hl + 1);
	fprintf(w->f, "M %o inline ", e->mode);
	quote(w->f, w->path);
	fprintf(w->f, "\ndata %llu\n", (unsigned long long)st->st_size);
	if (S_ISLNK(st->st_mode)) {
		if ((n = readlinkat(dfd, name, buf, sizeof buf)) < 0 || (uint64_t)n != left)
			return errno = n < 0 ? errno : EAGAIN, -1;
		br_sha1_update(&c, buf, (size_t)n);
		fwrite(buf, 1, (size_t)n, w->f);
	} else {
		if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
			return -1;
		while (left > 0 && (n = read(fd, buf, left < sizeof buf ? (size_t)left : sizeof buf)) > 0) {
			br_sha1_update(&c, buf, (size_t)n);
			fwrite(buf, 1, (size_t)n, w->f);
			left -= (uint64_t)n;
		}
		close(fd);
		if (left)
			return errno = EAGAIN, -1;	/* it shrank under us */
	}
	putc('\n', w->f);
	br_sha1_out(&c, e->sha);
	w->miss++;
	return 0;
}

static int
walk_dir(struct walk *w, int dfd, size_t pl, int depth)
{
	struct dirent *de;
	DIR *d = dir_fresh(dfd);
	int rc = 0;

	if (d == NULL)
		return -1;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char en[512];
		struct stat st;
		struct tent *e, *c;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			continue;	/* fifos, sockets, devices: not files to keep */
		if (tree_escape(de->d_name, en, sizeof en) < 0 ||
		    pl + strlen(en) + 2 > WS_PATH_MAX) {
			rc = -1;
			errno = ENAMETOOLONG;
			break;
		}
		snprintf(w->path + pl, sizeof w->path - pl, "%s%s", pl ? "/" : "", en);
		if (S_ISDIR(st.st_mode)) {
			int sub;
			if (depth >= WS_DEPTH_MAX) {
				rc = -1;
				errno = ELOOP;
				break;
			}
			if ((sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
				continue;
			rc = walk_dir(w, sub, strlen(w->path), depth + 1);
			close(sub);
			w->path[pl] = '\0';
			continue;
		}
		if ((e = tl_add(w->now, w->path)) == NULL) {
			rc = -1;
			break;
		}
		e->mode = git_mode(&st);
		stat_into(e, &st);
		c = tl_find(w->cache, w->path);
		if (c && c->mode == e->mode && c->ino == e->ino && c->size == e->size && c->mt == e->mt &&
		    c->ct == e->ct) {
			char h[41];
			memcpy(e->sha, c->sha, 20);
			hex(e->sha, h);
			fprintf(w->f, "M %o %s ", e->mode, h);
			quote(w->f, w->path);
			putc('\n', w->f);
		} else {
			rc = inline_blob(w, dirfd(d), de->d_name, &st, e);
		}
		w->path[pl] = '\0';
	}
	closedir(d);
	return rc;
}

/* A temporary file in the session's stage (cleaned at the next open if
 * we die), unlinked at once: only its descriptor is left. */
static int
stage_tmp(struct sess *ss)
{
	char name[32];
	int sfd = openat(ss->dirfd, "stage", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd;

	if (sfd < 0)
		return -1;
	memcpy(name, "tree-", 5);
	rnd_hex(name + 5, 8);
	fd = openat(sfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		unlinkat(sfd, name, 0);
	close(sfd);
	return fd;
}

/* Run git with stdin from infd and stdout into outfd (either may be 0). */
static int
git_io(struct sbx *s, struct sess *ss, const char *const *args, int infd, int outfd,
    const char *input, size_t inputn, char *err, size_t errn)
{
	struct run_res r;
	int rc;

	rc = git_run_io(s, ss, args, input, inputn, infd, outfd, 0, &r, err, errn);
	run_res_free(&r);
	return rc;
}

static int
import(struct sbx *s, struct sess *ss, const char *parent, const char *msg, struct tlist *cache,
    struct tlist *now, long *miss, char *err, size_t errn)
{
	const char *fi[] = { "fast-import", "--quiet", "--force", "--done", "--date-format=raw", NULL };
	struct walk w = { cache, now, NULL, 0, "" };
	int fd = stage_tmp(ss), dup_fd, rc;

	if (fd < 0 || (dup_fd = dup(fd)) < 0 || (w.f = fdopen(dup_fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		return sbx_err(err, errn, "checkpoint: a temporary file: %s", strerror(errno));
	}
	fprintf(w.f, "feature done\ncommit refs/sbx/new\ncommitter sandbox-mcp <sandbox-mcp@localhost> %lld +0000\n"
	    "data %zu\n%s\n", (long long)time(NULL), strlen(msg), msg);
	if (parent && *parent)
		fprintf(w.f, "from %s\n", parent);
	fputs("deleteall\n", w.f);
	rc = walk_dir(&w, ss->wsfd, 0, 0);
	fputs("\ndone\n", w.f);
	if (fflush(w.f) != 0)
		rc = -1;
	if (rc < 0) {
		int e = errno;
		fclose(w.f);
		close(fd);
		return sbx_err(err, errn, "checkpoint: reading the workspace: %s",
		    e == EFBIG ? "more files than a checkpoint keeps" : e == ELOOP ? "directories nested too deep" :
		    e == EAGAIN ? "a file changed while it was read" : strerror(e));
	}
	fclose(w.f);
	lseek(fd, 0, SEEK_SET);
	*miss = w.miss;
	rc = git_io(s, ss, fi, fd, 0, NULL, 0, err, errn);
	close(fd);
	return rc;
}

int
tree_commit(struct sbx *s, struct sess *ss, const char *parent, const char *msg, char *id,
    int *same, char *err, size_t errn)
{
	char spec[CKPT_ID_MAX + 16], e2[SBX_ERR_MAX];
	const char *rp[] = { "rev-parse", "refs/sbx/new", "refs/sbx/new^{tree}", spec, NULL };
	struct tlist cache, now = { 0 };
	struct run_res r;
	long miss = 0;
	int rc;

	*same = 0;
	cache_load(ss, &cache);
	rc = import(s, ss, parent, msg, &cache, &now, &miss, e2, sizeof e2);
	if (rc < 0 && cache.n) {
		/* a cached blob the history lacks (a stale cache): read everything */
		tl_free(&cache);
		tl_free(&now);
		rc = import(s, ss, parent, msg, &cache, &now, &miss, e2, sizeof e2);
	}
	tl_free(&cache);
	if (rc < 0) {
		tl_free(&now);
		return sbx_err(err, errn, "%s", e2);
	}
	if (parent && *parent)
		snprintf(spec, sizeof spec, "%s^{tree}", parent);
	else
		rp[3] = NULL;
	if (git_run(s, ss, rp, NULL, 0, 4096, &r, err, errn) < 0) {
		run_res_free(&r);
		tl_free(&now);
		return -1;
	}
	{
		/* three lines: the commit, its tree, the parent's tree */
		const char *o = r.out.p ? r.out.p : "", *l2 = strchr(o, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
		size_t n1 = l2 ? (size_t)(l2 - o) : 0;
		if (n1 < 40 || n1 > CKPT_ID_MAX - 1 || l3 == NULL) {
			run_res_free(&r);
			tl_free(&now);
			return sbx_err(err, errn, "git fast-import: no commit made");
		}
		memcpy(id, o, n1);
		id[n1] = '\0';
		if (parent && *parent && strncmp(l2 + 1, l3 + 1, (size_t)(l3 - l2)) == 0) {
			*same = 1;
			strcpy(id, parent);
		}
	}
	run_res_free(&r);
	if (now.n > 1)	/* qsort(NULL, 0) is undefined: an empty workspace */
		qsort(now.v, now.n, sizeof *now.v, by_path);
	cache_save(ss, &now, id);
	tl_free(&now);
	return 0;
}

/* ---- checkout ---- */

/* Parse `ls-tree -r -z -l` output: "MODE TYPE SHA SIZE\tPATH\0". */
static int
parse_list(const char *p, size_t len, struct tlist *l, int64_t *total, char *err, size_t errn)
{
	const char *end = p + len;

	*total = 0;
	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p)), *tab;
		char type[16], shah[CKPT_ID_MAX + 1], size[32];
		unsigned mode;
		struct tent *e;
		if (z == NULL || (tab = memchr(p, '\t', (size_t)(z - p))) == NULL)
			break;
		if (sscanf(p, "%o %15s %64s %31s", &mode, type, shah, size) != 4)
			return sbx_err(err, errn, "checkpoint: a malformed listing");
		if (strcmp(type, "blob") == 0 && (mode == 0100644 || mode == 0100755 || mode == 0120000)) {
			if ((e = tl_add(l, tab + 1)) == NULL)
				return sbx_err(err, errn, "checkpoint: more files than a checkout takes");
			e->mode = mode;
			e->size = strtoull(size, NULL, 10);
			if (strlen(shah) != 40 || unhex(shah, e->sha) < 0)
				return sbx_err(err, errn, "checkpoint: a malformed object id");
			*total += (int64_t)e->size;
		}
		/* gitlinks of older checkpoints: nothing to write */
		p = z + 1;
	}
	return 0;
}

/* 1 when some entry of l lies beneath directory path p */
static int
holds_beneath(const struct tlist *l, const char *p)
{
	size_t pl = strlen(p), lo = 0, hi = l->n;

	/* the first entry >= "p/" */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(l->v[mid].path, p, pl);
		if (c < 0 || (c == 0 && (unsigned char)l->v[mid].path[pl] < '/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && strncmp(l->v[lo].path, p, pl) == 0 && l->v[lo].path[pl] == '/';
}

struct prune {
	struct tlist *want, *cache;
	char path[WS_PATH_MAX * 2 + 64];
};

/* Remove what the target does not hold; mark what is already right. */
static int
prune_dir(struct prune *p, int dfd, size_t pl)
{
	struct dirent *de;
	DIR *d = dir_fresh(dfd);

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char en[512];
		struct stat st;
		struct tent *t, *c;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (tree_escape(de->d_name, en, sizeof en) < 0 || pl + strlen(en) + 2 > sizeof p->path) {
			rmtree_at(dirfd(d), de->d_name);
			continue;
		}
		snprintf(p->path + pl, sizeof p->path - pl, "%s%s", pl ? "/" : "", en);
		if (S_ISDIR(st.st_mode)) {
			int sub;
			if (!holds_beneath(p->want, p->path)) {
				rmtree_at(dirfd(d), de->d_name);
			} else if ((sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
				prune_dir(p, sub, strlen(p->path));
				close(sub);
			}
		} else if ((t = tl_find(p->want, p->path)) == NULL) {
			unlinkat(dirfd(d), de->d_name, 0);
		} else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && git_mode(&st) == t->mode &&
		    (c = tl_find(p->cache, p->path)) != NULL && memcmp(c->sha, t->sha, 20) == 0 &&
		    c->mode == t->mode && c->ino == (uint64_t)st.st_ino && c->size == (uint64_t)st.st_size &&
		    c->mt == ns(&st.st_mtim) && c->ct == ns(&st.st_ctim)) {
			t->ok = 1;
			stat_into(t, &st);
		}
		p->path[pl] = '\0';
	}
	closedir(d);
	return 0;
}

/* The directory holding escaped path's last component, made as needed,
 * whatever was in the way (a file, a link) removed (lib/parentdir); the
 * path unescaped into buf first, *base its last component there. */
static int
open_parent(int wsfd, const char *path, char *buf, size_t n, const char **base)
{
	size_t o = 0;
	const char *c = path;

	for (;;) {
		size_t l = strcspn(c, "/");
		if (strncmp(c, TREE_ESC, sizeof TREE_ESC - 1) == 0 && l >= sizeof TREE_ESC - 1) {
			c += sizeof TREE_ESC - 1;
			l -= sizeof TREE_ESC - 1;
		}
		if (o + l + 2 > n)
			return errno = ENAMETOOLONG, -1;
		memcpy(buf + o, c, l);
		o += l;
		if (c[l] == '\0')
			break;
		buf[o++] = '/';
		c += l + 1;
	}
	buf[o] = '\0';
	return parentdir_openf(wsfd, buf, 0755, PARENTDIR_REPLACE, base);
}

/* Write one entry from the blob stream (n bytes of content next in f). */
static int
put(struct sess *ss, struct tent *t, FILE *f, uint64_t n, int64_t *budget)
{
	char tmp[32], buf[65536], path[4096];
	const char *base;
	struct stat st;
	int dfd = open_parent(ss->wsfd, t->path, path, sizeof path, &base), fd = -1, rc = -1;

	if (dfd < 0)
		return -1;
	if ((int64_t)n > *budget) {
		close(dfd);
		return errno = EFBIG, -1;
	}
	*budget -= (int64_t)n;
	memcpy(tmp, ".sbx-", 5);
	rnd_hex(tmp + 5, 8);
	if (t->mode == 0120000) {
		char target[4097];
		if (n >= sizeof target || fread(target, 1, n, f) != n)
			goto out;
		target[n] = '\0';
		if (symlinkat(target, dfd, tmp) < 0)
			goto out;
	} else {
		if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    t->mode == 0100755 ? 0755 : 0644)) < 0)
			goto out;
		while (n > 0) {
			size_t k = fread(buf, 1, n < sizeof buf ? (size_t)n : sizeof buf, f);
			if (k == 0 || fd_write_all(fd, buf, k) < 0)
				goto out;
			n -= k;
		}
		if (fchmod(fd, t->mode == 0100755 ? 0755 : 0644) < 0 || close(fd) < 0) {
			fd = -1;
			goto out;
		}
		fd = -1;
	}
	/* a directory where the file goes: the file wins, as in the checkpoint */
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		rmtree_at(dfd, base);
	if (renameat(dfd, tmp, dfd, base) < 0)
		goto out;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
		stat_into(t, &st);
	rc = 0;
out:
	if (rc < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		unlinkat(dfd, tmp, 0);
		errno = e;
	}
	close(dfd);
	return rc;
}

int
tree_checkout(struct sbx *s, struct sess *ss, const char *id, int64_t budget, char *err, size_t errn)
{
	const char *ls[] = { "ls-tree", "-r", "-z", "-l", "--full-tree", id, NULL };
	const char *cf[] = { "cat-file", "--batch", NULL };
	struct tlist want = { 0 }, cache;
	struct prune *pr = NULL;
	struct buf req = { 0 };
	struct run_res r;
	int64_t total;
	int fd = -1, rc = -1;
	FILE *f = NULL;

	if (git_run(s, ss, ls, NULL, 0, 512 << 20, &r, err, errn) < 0) {
		run_res_free(&r);
		return -1;
	}
	if (r.out_bytes > r.out.len) {
		run_res_free(&r);
		return sbx_err(err, errn, "checkpoint %.12s: its listing is too long", id);
	}
	if (parse_list(r.out.p ? r.out.p : "", r.out.len, &want, &total, err, errn) < 0) {
		run_res_free(&r);
		tl_free(&want);
		return -1;
	}
	run_res_free(&r);
	if (total > budget) {
		tl_free(&want);
		return sbx_err(err, errn, "checkpoint %.12s holds %lld bytes (each file at its full size), over max_workspace_mb (%lld MB): nothing written",
		    id, (long long)total, (long long)(s->cfg.max_workspace_mb));
	}
	if (want.n > 1)
		qsort(want.v, want.n, sizeof *want.v, by_path);
	cache_load(ss, &cache);
	if ((pr = calloc(1, sizeof *pr)) == NULL)
		goto out;
	pr->want = &want;
	pr->cache = &cache;
	prune_dir(pr, ss->wsfd, 0);
	for (size_t i = 0; i < want.n; i++) {
		char h[48];
		if (want.v[i].ok)
			continue;
		hex(want.v[i].sha, h);
		strcat(h, "\n");
		buf_adds(&req, h);
	}
	if (req.len) {
		if ((fd = stage_tmp(ss)) < 0) {
			sbx_err(err, errn, "checkout: a temporary file: %s", strerror(errno));
			goto out;
		}
		if (git_io(s, ss, cf, 0, fd, req.p, req.len, err, errn) < 0)
			goto out;
		lseek(fd, 0, SEEK_SET);
		if ((f = fdopen(fd, "r")) == NULL)
			goto out;
		fd = -1;
		for (size_t i = 0; i < want.n; i++) {
			char line[160], shah[CKPT_ID_MAX + 1], type[16];
			unsigned long long n;
			if (want.v[i].ok)
				continue;
			if (fgets(line, sizeof line, f) == NULL || sscanf(line, "%64s %15s %llu", shah, type, &n) != 3 ||
			    strcmp(type, "blob") != 0) {
				sbx_err(err, errn, "checkout: a blob missing from the history");
				goto out;
			}
			if (put(ss, &want.v[i], f, n, &budget) < 0) {
				sbx_err(err, errn, "checkout: %s: %s", want.v[i].path,
				    errno == EFBIG ? "over max_workspace_mb" : strerror(errno));
				goto out;
			}
			getc(f);	/* the newline after each blob */
		}
	}
	cache_save(ss, &want, id);
	rc = 0;
out:
	if (rc < 0 && err[0] == '\0')
		sbx_err(err, errn, "checkout: %s", strerror(errno));
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	buf_free(&req);
	free(pr);
	tl_free(&cache);
	tl_free(&want);
	return rc;
}
