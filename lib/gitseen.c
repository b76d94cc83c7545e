/* gitseen: what the agent changed in place in its checkout (gitseen.h).
 * The walk is over corral's own fresh checkout, before the agent runs; it
 * never follows a link. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "gitseen.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* FNV-1a, 64 bits, of dir "/" name (name alone when dir is ""): a
 * collision only makes git hash one more file. Never 0 (an empty slot). */
static uint64_t
hash(const char *dir, const char *name)
{
	uint64_t h = 14695981039346656037ULL;

	for (const char *p = dir; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	if (*dir)
		h = (h ^ '/') * 1099511628211ULL;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h ? h : 1;
}

/* An open-addressing set of hashes, at most half full (musl's qsort moved
 * each element with memcpy: a third of this file's time at 10k files). */
static int
insert(struct gitseen *s, uint64_t h)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 8192;
		uint64_t *v = calloc(nc, sizeof *v);
		if (v == NULL)
			return errno = ENOMEM, -1;
		for (size_t i = 0; i < s->cap; i++)
			for (size_t j = s->paths[i] & (nc - 1); s->paths[i]; j = (j + 1) & (nc - 1))
				if (v[j] == 0) {
					v[j] = s->paths[i];
					break;
				}
		free(s->paths);
		s->paths = v, s->cap = nc;
	}
	for (size_t j = h & (s->cap - 1); ; j = (j + 1) & (s->cap - 1)) {
		if (s->paths[j] == h)
			return 0;
		if (s->paths[j] == 0) {
			s->paths[j] = h;
			s->n++;
			return 0;
		}
	}
}

static int
skipped(const struct argv *skip, const char *path)
{
	for (size_t i = 0; skip && i < skip->n; i++)
		if (strcmp(skip->v[i], path) == 0)
			return 1;
	return 0;
}

static int
walk(struct gitseen *s, int dfd, const char *path, const struct argv *skip, int depth)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0, fd;

	if ((d = dir_fresh(dfd)) == NULL)
		return -1;
	while (r == 0 && (de = readdir(d)) != NULL) {
		const char *nm = de->d_name;
		unsigned char t = de->d_type;
		struct stat st;
		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 || (depth == 0 && strcmp(nm, ".git") == 0))
			continue;
		/* every entry's stat, for the digest */
		if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		t = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : 0;
		if (t != DT_REG && t != DT_LNK && t != DT_DIR)
			continue;
		if (t == DT_REG) {
			gitseen_fold(&s->sum, path, nm, &st);
			s->entries++;
			r = insert(s, hash(path, nm));
			continue;
		}
		if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "/" : "", nm) >= sizeof sub)
			continue;	/* git cannot name it either */
		if (t == DT_LNK && skipped(skip, sub))
			continue;
		gitseen_fold(&s->sum, path, nm, &st);
		s->entries++;
		if (t == DT_LNK)
			r = insert(s, hash(path, nm));
		else if (depth < 200 && (fd = openat(dirfd(d), nm, OPEN_DIR)) >= 0) {
			r = walk(s, fd, sub, skip, depth + 1);
			close(fd);
		}
	}
	closedir(d);
	return r;
}

int
gitseen_take(struct gitseen *s, int wfd, int afd, const struct argv *skip)
{
	struct stat st, ws;
	int fd;

	memset(s, 0, sizeof *s);
	if (fstat(wfd, &ws) < 0 || walk(s, wfd, "", skip, 0) < 0)
		goto fail;
	/* after the walk: every file of the set-up was written before it */
	(void)unlinkat(afd, "sentinel", 0);
	fd = openat(afd, "sentinel", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	close(fd);
	if (st.st_dev != ws.st_dev) {
		errno = EXDEV;	/* another file system's clock and granularity */
		goto fail;
	}
	s->ready = st.st_ctim;
	s->dev = ws.st_dev;
	s->digest = 1;
	s->ok = 1;
	return 0;
fail:
	gitseen_free(s);
	return -1;
}

int
gitseen_changed(const struct gitseen *s, const char *dir, const char *name, const struct stat *st)
{
	uint64_t h;

	if (st->st_ctim.tv_sec < s->ready.tv_sec ||
	    (st->st_ctim.tv_sec == s->ready.tv_sec && st->st_ctim.tv_nsec < s->ready.tv_nsec))
		return 0;	/* unchanged since the set-up */
	if (s->cap == 0)
		return 0;	/* the checkout had no file: every one is new */
	h = hash(dir, name);
	for (size_t j = h & (s->cap - 1); s->paths[j]; j = (j + 1) & (s->cap - 1))
		if (s->paths[j] == h)
			return 1;
	return 0;	/* new: git add -A looks at it anyway */
}

void
gitseen_fold(uint64_t *sum, const char *dir, const char *name, const struct stat *st)
{
	const int64_t v[] = { (int64_t)st->st_mode, (int64_t)st->st_ino, (int64_t)st->st_size,
		(int64_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (int64_t)st->st_ctim.tv_sec, st->st_ctim.tv_nsec };
	uint64_t h = hash(dir, name);

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		for (int b = 0; b < 64; b += 8)
			h = (h ^ (((uint64_t)v[i] >> b) & 0xff)) * 1099511628211ULL;
	/* one more round: a sum of raw FNV values would let near entries cancel */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	*sum += h;
}

int
gitseen_fresh(const struct gitseen *s, const struct stat *st)
{
	return !(st->st_ctim.tv_sec < s->ready.tv_sec ||
	    (st->st_ctim.tv_sec == s->ready.tv_sec && st->st_ctim.tv_nsec < s->ready.tv_nsec));
}

void
gitseen_free(struct gitseen *s)
{
	free(s->paths);
	s->paths = NULL;
	s->n = s->cap = 0;
	s->sum = 0;
	s->entries = 0;
	s->digest = 0;
	s->ok = 0;
}
