#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rmtree.h"

enum { DEPTH_MAX = 1 << 20, RETRY_MAX = 64, LEVELS_FRAME = 16 };

/* The first LEVELS_FRAME levels and their names are on rmtree_at's frame,
 * level 0's name is the caller's: no malloc for a shallow tree (musl's
 * mallocng maps a page for it and unmaps it at its free); deeper levels'
 * names are strdup'd and the levels malloc'd, as before. */
struct level {
	dev_t dev;
	ino_t ino;
	char *name;
};

static void
level_name_free(struct level *lv, size_t i)
{
	if (i >= LEVELS_FRAME)
		free(lv[i].name);
	lv[i].name = NULL;
}

/* Open dirfd/name as the directory we saw (dev, ino), never a symlink.
 * A directory the agent made unreadable is made ours again first. */
static int
open_dir(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;
	char proc[64];
	int fd, e;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		/* O_PATH needs no permission; chmod through its /proc link
		 * reaches exactly that inode. */
		fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -1;
		if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
			close(fd);
			return errno = ESTALE, -1;
		}
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		e = chmod(proc, 0700);
		close(fd);
		if (e < 0)
			return -1;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		return errno = ESTALE, -1;
	}
	if ((st.st_mode & 0700) != 0700 && fchmod(fd, 0700) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
free_levels(struct level *lv, size_t n, struct level *frame)
{
	while (n > 0)
		level_name_free(lv, --n);
	if (lv != frame)
		free(lv);
}

int
rmtree_at(int dirfd, const char *name)
{
	struct level lv_frame[LEVELS_FRAME], *lv = NULL, *nl;
	char names[LEVELS_FRAME][NAME_MAX + 1];
	size_t depth = 0, cap = 0;
	struct stat st;
	struct dirent *de;
	char buf[2048] __attribute__((aligned(8)));
	long got = 0, off;
	int cur = -1, fd, down, e, retries = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ? -1 : 0;
	cap = LEVELS_FRAME;
	lv = memset(lv_frame, 0, sizeof lv_frame);
	lv[0].name = (char *)name;	/* never freed (level_name_free) */
	lv[0].dev = st.st_dev;
	lv[0].ino = st.st_ino;
	depth = 1;
	cur = open_dir(dirfd, name, st.st_dev, st.st_ino);
	if (cur < 0)
		goto fail;
	while (depth > 0) {
		/* cur is always a descriptor opened just now (on the way
		 * down, through "..", for a rescan), so it reads from its
		 * start: getdents64 into buf, no DIR (dir_fresh: an open, two
		 * fcntl, and a mapping unmapped again, each time) */
		down = 0;
		while (!down && (got = syscall(SYS_getdents64, cur, buf, sizeof buf)) > 0) {
			for (off = 0; !down && off < got; off += de->d_reclen) {
				de = (struct dirent *)(buf + off);
				if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
					continue;
				if (fstatat(cur, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
					if (errno == ENOENT)
						continue;
					goto fail;
				}
				if (!S_ISDIR(st.st_mode)) {
					if (unlinkat(cur, de->d_name, 0) < 0 && errno != ENOENT)
						goto fail;
					continue;
				}
				if (st.st_dev != lv[0].dev) {
					errno = EXDEV;
					goto fail;
				}
				/* an empty directory (an attempt's tmp and config)
				 * goes at once: one rmdir(2), never followed, where
				 * the walk below opens it, reads it twice, climbs
				 * back through ".." and removes it. One with entries
				 * says so (ENOTEMPTY) and is walked as before, as
				 * is one whose removal fails otherwise */
				if (unlinkat(cur, de->d_name, AT_REMOVEDIR) == 0 || errno == ENOENT)
					continue;
				if (depth == cap) {
					if (cap >= DEPTH_MAX) {
						errno = ELOOP;
						goto fail;
					}
					nl = lv == lv_frame ? malloc(cap * 2 * sizeof *lv) : realloc(lv, cap * 2 * sizeof *lv);
					if (nl == NULL)
						goto fail;
					if (lv == lv_frame)
						memcpy(nl, lv_frame, sizeof lv_frame);
					lv = nl;
					cap *= 2;
				}
				if (depth < LEVELS_FRAME) {
					if (strlen(de->d_name) >= sizeof names[depth]) {
						errno = ENAMETOOLONG;
						goto fail;
					}
					lv[depth].name = strcpy(names[depth], de->d_name);
				} else if ((lv[depth].name = strdup(de->d_name)) == NULL)
					goto fail;
				lv[depth].dev = st.st_dev;
				lv[depth].ino = st.st_ino;
				fd = open_dir(cur, de->d_name, st.st_dev, st.st_ino);
				if (fd < 0) {
					level_name_free(lv, depth);
					goto fail;
				}
				depth++;
				close(cur);
				cur = fd;
				down = 1;
			}
		}
		if (down)
			continue;
		if (got < 0)
			goto fail;
		/* cur is empty: step up, checking we land where we came from. */
		depth--;
		if (depth == 0) {
			close(cur);
			cur = -1;
			if (unlinkat(dirfd, lv[0].name, AT_REMOVEDIR) == 0 || errno == ENOENT)
				break;
			/* Something was created meanwhile (a process left
			 * running): scan again, a bounded number of times. */
			if (errno != ENOTEMPTY || retries++ >= RETRY_MAX)
				goto fail;
			depth = 1;
			cur = open_dir(dirfd, lv[0].name, lv[0].dev, lv[0].ino);
			if (cur < 0)
				goto fail;
			continue;
		}
		fd = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			depth++;
			goto fail;
		}
		if (fstat(fd, &st) < 0 || st.st_dev != lv[depth - 1].dev || st.st_ino != lv[depth - 1].ino) {
			close(fd);
			depth++;
			errno = ESTALE;
			goto fail;
		}
		close(cur);
		cur = fd;
		if (unlinkat(cur, lv[depth].name, AT_REMOVEDIR) < 0 && errno != ENOENT &&
		    (errno != ENOTEMPTY || retries++ >= RETRY_MAX)) {
			depth++;
			goto fail;
		}
		/* ENOTEMPTY: the rescan of cur finds the directory again */
		level_name_free(lv, depth);
	}
	free_levels(lv, 1, lv_frame);
	return 0;
fail:
	e = errno;
	if (cur >= 0)
		close(cur);
	if (lv != NULL)
		free_levels(lv, depth, lv_frame);
	return errno = e, -1;
}
