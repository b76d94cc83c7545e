/* state: what git-stage finish needs of git-stage create, kept in the
 * attempt's directory in the store (STORE/git/ATTEMPT/state, seen), which
 * the agent cannot write: never read from the workspace. Records are
 * "key=value", each ended by a NUL (a path may hold a newline). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "argv.h"
#include "fdio.h"
#include "gs.h"
#include "msg.h"

#define STATE_MAX (16 << 20)

static void
put(struct argv *a, const char *k, const char *v)
{
	av_pushf(a, "%s=%s", k, v);
}

static int
write_file(int afd, const char *name, const void *buf, size_t len)
{
	char tmp[64];
	int fd;

	snprintf(tmp, sizeof tmp, "%s.tmp", name);
	(void)unlinkat(afd, tmp, 0);
	if ((fd = openat(afd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return -1;
	/* no fsync: read back by finish in the same boot only (after a crash
	 * the attempt is gone, and the store's reaping removes what it left);
	 * an fsync each on a disk's store was two on the run's path */
	if (fd_write_all(fd, buf, len) < 0) {
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return -1;
	return renameat(afd, tmp, afd, name);
}

int
gs_state_save(const struct gitws *g, const char *store, int holder)
{
	struct argv a = { 0 };
	char num[64], *buf;
	size_t len = 0, at = 0;
	int afd, r = -1;

	snprintf(num, sizeof num, "%d", g->mode);
	put(&a, "mode", num);
	put(&a, "from_head", g->from_head ? "1" : "0");
	put(&a, "linked", g->linked ? "1" : "0");
	put(&a, "store", store);
	put(&a, "ws", g->ws);
	put(&a, "sub", g->sub);
	put(&a, "gitdir", g->gitdir);
	put(&a, "common", g->common);
	snprintf(num, sizeof num, "%zu", g->hexlen);
	put(&a, "hexlen", num);
	for (size_t i = 0; i < g->objects.n; i++)
		put(&a, "obj", g->objects.v[i]);
	put(&a, "work", g->work);
	put(&a, "repo", g->repo);
	put(&a, "start", g->start);
	put(&a, "base", g->base);
	put(&a, "basedir", g->basedir);
	for (size_t i = 0; i < g->deplinks.n; i++)
		put(&a, "dep", g->deplinks.v[i]);
	for (size_t i = 0; i < g->nested.n; i++)
		put(&a, "nested", g->nested.v[i]);
	snprintf(num, sizeof num, "%lld.%09ld", (long long)g->t0.tv_sec, g->t0.tv_nsec);
	put(&a, "t0", num);
	snprintf(num, sizeof num, "%d", holder);
	put(&a, "holder", num);
	if (g->seen.ok) {
		/* the checkout's digest at the end of the set-up (gitseen.h) */
		snprintf(num, sizeof num, "%llx.%zu", (unsigned long long)g->seen.sum, g->seen.entries);
		put(&a, "digest", num);
	}
	if (a.err)
		return av_free(&a), errno = ENOMEM, -1;
	for (size_t i = 0; i < a.n; i++)
		len += strlen(a.v[i]) + 1;
	if ((buf = malloc(len + 1)) == NULL)
		return av_free(&a), errno = ENOMEM, -1;
	for (size_t i = 0; i < a.n; i++) {
		memcpy(buf + at, a.v[i], strlen(a.v[i]) + 1);
		at += strlen(a.v[i]) + 1;
	}
	av_free(&a);
	if ((afd = open(g->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return free(buf), -1;
	r = write_file(afd, "state", buf, len);
	free(buf);
	/* the checkout's paths at the end of the set-up (gitseen.h) */
	if (r == 0 && g->seen.ok) {
		size_t n = sizeof g->seen.ready + sizeof g->seen.dev + g->seen.cap * sizeof *g->seen.paths;
		char *s = malloc(n);
		if (s == NULL) {
			r = -1;
		} else {
			memcpy(s, &g->seen.ready, sizeof g->seen.ready);
			memcpy(s + sizeof g->seen.ready, &g->seen.dev, sizeof g->seen.dev);
			/* an empty checkout: no set (paths NULL, cap 0) */
			if (g->seen.cap > 0)
				memcpy(s + sizeof g->seen.ready + sizeof g->seen.dev, g->seen.paths,
				    g->seen.cap * sizeof *g->seen.paths);
			r = write_file(afd, "seen", s, n);
			free(s);
		}
	}
	close(afd);
	return r;
}

static int
copy_to(char *dst, size_t n, const char *v)
{
	return (size_t)snprintf(dst, n, "%s", v) < n ? 0 : -1;
}

int
gs_state_load(struct gitws *g, char *store, const char *dir, int *holder, char *why, size_t whyn)
{
	char p[PATH_MAX + 16], *buf = NULL, *s = NULL;
	size_t len, slen, entries = 0;
	unsigned long long sum = 0;
	int afd, bad = 0, digest = 0;

	memset(g, 0, sizeof *g);
	*holder = -1;
	if ((size_t)snprintf(g->dir, sizeof g->dir, "%s", dir) >= sizeof g->dir)
		return msg_say(why, whyn, "%s: %s", dir, strerror(ENAMETOOLONG));
	if ((afd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return msg_say(why, whyn, "%s: %s", dir, strerror(errno));
	if (file_read_bounded(afd, "state", STATE_MAX, &buf, &len) < 0) {
		int e = errno;
		close(afd);
		return msg_say(why, whyn, "unable to read %s/state: %s", dir, strerror(e));
	}
	for (size_t at = 0; at < len; ) {
		char *k = buf + at, *v = strchr(k, '=');
		at += strlen(k) + 1;
		if (v == NULL) {
			bad = 1;
			break;
		}
		*v++ = '\0';
		if (!strcmp(k, "mode"))
			g->mode = atoi(v);
		else if (!strcmp(k, "from_head"))
			g->from_head = atoi(v);
		else if (!strcmp(k, "linked"))
			g->linked = atoi(v);
		else if (!strcmp(k, "store"))
			bad |= copy_to(store, PATH_MAX, v);
		else if (!strcmp(k, "ws"))
			bad |= copy_to(g->ws, sizeof g->ws, v);
		else if (!strcmp(k, "sub"))
			bad |= copy_to(g->sub, sizeof g->sub, v);
		else if (!strcmp(k, "gitdir"))
			bad |= copy_to(g->gitdir, sizeof g->gitdir, v);
		else if (!strcmp(k, "common"))
			bad |= copy_to(g->common, sizeof g->common, v);
		else if (!strcmp(k, "hexlen"))
			g->hexlen = strcmp(v, "64") ? 40 : 64;
		else if (!strcmp(k, "obj"))
			av_push(&g->objects, v);
		else if (!strcmp(k, "work"))
			bad |= copy_to(g->work, sizeof g->work, v);
		else if (!strcmp(k, "repo"))
			bad |= copy_to(g->repo, sizeof g->repo, v);
		else if (!strcmp(k, "start"))
			bad |= copy_to(g->start, sizeof g->start, v);
		else if (!strcmp(k, "base"))
			bad |= copy_to(g->base, sizeof g->base, v);
		else if (!strcmp(k, "basedir"))
			bad |= copy_to(g->basedir, sizeof g->basedir, v);
		else if (!strcmp(k, "dep"))
			av_push(&g->deplinks, v);
		else if (!strcmp(k, "nested"))
			av_push(&g->nested, v);
		else if (!strcmp(k, "t0")) {
			char *e;
			g->t0.tv_sec = strtoll(v, &e, 10);
			g->t0.tv_nsec = *e == '.' ? strtol(e + 1, NULL, 10) : 0;
		} else if (!strcmp(k, "holder")) {
			*holder = atoi(v);
		} else if (!strcmp(k, "digest")) {
			char *e;
			sum = strtoull(v, &e, 16);
			digest = *e == '.' && e > v;
			entries = digest ? (size_t)strtoull(e + 1, NULL, 10) : 0;
		}
	}
	free(buf);
	if (bad || g->objects.err || g->deplinks.err || g->nested.err || g->objects.n == 0 || !g->ws[0] ||
	    !g->gitdir[0] || !g->common[0] || !g->work[0] || !store[0]) {
		close(afd);
		gitws_free(g);
		return msg_say(why, whyn, "%s/state is not one git-stage create wrote", dir);
	}
	if (file_read_bounded(afd, "seen", 1 << 30, &s, &slen) == 0) {
		size_t h = sizeof g->seen.ready + sizeof g->seen.dev, cap = (slen - h) / sizeof *g->seen.paths;
		/* a power of two (gitseen.c's set) */
		if (slen > h && (slen - h) % sizeof *g->seen.paths == 0 && (cap & (cap - 1)) == 0 &&
		    (g->seen.paths = malloc(slen - h)) != NULL) {
			memcpy(&g->seen.ready, s, sizeof g->seen.ready);
			memcpy(&g->seen.dev, s + sizeof g->seen.ready, sizeof g->seen.dev);
			memcpy(g->seen.paths, s + h, slen - h);
			g->seen.cap = cap;
			for (size_t i = 0; i < cap; i++)
				g->seen.n += g->seen.paths[i] != 0;
			g->seen.ok = 1;
			g->seen.sum = sum;
			g->seen.entries = entries;
			g->seen.digest = digest;
		}
		free(s);
	}
	close(afd);
	(void)p;
	return 0;
}
