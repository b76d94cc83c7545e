/* pathmemo: see pathmemo.h. A small table, searched by hash: a plan asks
 * about a few dozen paths; past the table's size, paths are asked anew. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathmemo.h"

enum { MEMO_MAX = 256 };

static struct memo {
	uint32_t h;
	char *path;
	struct stat st;
	char *target;		/* a link's, once read (NULL: not yet) */
} memo[MEMO_MAX];
static size_t nmemo;

static uint32_t
fnv(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct memo *
find(const char *path, uint32_t h)
{
	for (size_t i = 0; i < nmemo; i++)
		if (memo[i].h == h && strcmp(memo[i].path, path) == 0)
			return &memo[i];
	return NULL;
}

int
memo_lstat(const char *path, struct stat *st)
{
	uint32_t h = fnv(path);
	struct memo *m = find(path, h);

	if (m) {
		*st = m->st;
		return 0;
	}
	if (lstat(path, st) < 0)
		return -1;
	if (nmemo < MEMO_MAX && (memo[nmemo].path = strdup(path)) != NULL) {
		memo[nmemo].h = h;
		memo[nmemo].st = *st;
		memo[nmemo].target = NULL;
		nmemo++;
	}
	return 0;
}

ssize_t
memo_readlink(const char *path, char *buf, size_t n)
{
	struct memo *m = find(path, fnv(path));
	ssize_t r;
	size_t tl;

	if (m && m->target) {
		tl = strlen(m->target);
		if (tl > n)
			tl = n;
		memcpy(buf, m->target, tl);
		return (ssize_t)tl;
	}
	if ((r = readlink(path, buf, n)) < 0)
		return -1;
	/* remembered whole only: a target cut short is asked again */
	if (m && (size_t)r < n && (m->target = malloc((size_t)r + 1)) != NULL) {
		memcpy(m->target, buf, (size_t)r);
		m->target[r] = '\0';
	}
	return r;
}

char *
memo_getcwd(char *buf, size_t n)
{
	static char cwd[PATH_MAX];
	static size_t len;	/* 0: not asked yet (a failure is asked again) */

	if (len == 0) {
		if (getcwd(cwd, sizeof cwd) == NULL)
			return NULL;
		len = strlen(cwd);
	}
	if (len >= n)
		return errno = ERANGE, NULL;
	memcpy(buf, cwd, len + 1);
	return buf;
}
