/* gitloc: locate the real repository; the file helpers of the attempt
 * repository (gitws.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdio.h"
#include "gitref.h"
#include "gitrun.h"
#include "gitws.h"
#include "msg.h"
#include "path.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* path, relative to base unless absolute, resolved into out */
static int
resolve_at(const char *base, const char *path, char *out)
{
	char tmp[PATH_MAX * 2];

	if (path[0] == '/')
		snprintf(tmp, sizeof tmp, "%s", path);
	else if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", base, path) >= PATH_MAX)
		return errno = ENAMETOOLONG, -1;
	return realpath(tmp, out) ? 0 : -1;
}

int
gitws_find_top(const char *dir, char *top, char *sub)
{
	char p[PATH_MAX + 8];
	struct stat st;
	size_t n;

	snprintf(top, PATH_MAX, "%s", dir);
	for (;;) {
		if ((size_t)snprintf(p, sizeof p, "%s/.git", strcmp(top, "/") ? top : "") < sizeof p &&
		    lstat(p, &st) == 0) {
			n = strcmp(top, "/") ? strlen(top) : 0;
			snprintf(sub, PATH_MAX, "%s", dir[n] == '/' ? dir + n + 1 : dir + n);
			return 1;
		}
		char *sl = strrchr(top, '/');
		if (sl == NULL || strcmp(top, "/") == 0)
			return 0;
		sl[sl == top] = '\0';
	}
}

/* FNV-1a: a short name for a path (not a secret, not a security check:
 * a clash only makes two repositories share a row of slots) */
static unsigned long long
fnv64(const char *s)
{
	unsigned long long h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

void
gitws_slot_path(const char *store, const char *top, int n, char *out, char *lock)
{
	const char *b = strrchr(top, '/');

	b = b && b[1] ? b + 1 : "repo";
	snprintf(out, PATH_MAX, "%s/git/co/%016llx.%d/%s", store, fnv64(top), n, b);
	if (lock)
		snprintf(lock, PATH_MAX, "%s/git/co/%016llx.%d.lock", store, fnv64(top), n);
}

static void
find_objects(struct gitws *g)
{
	char obj[PATH_MAX], real[PATH_MAX], *buf, *l, *e;
	size_t len;

	if ((size_t)snprintf(obj, sizeof obj, "%s/objects", g->common) >= sizeof obj - 20 ||
	    realpath(obj, real) == NULL)
		return;
	av_push(&g->objects, real);
	/* a repository borrowing objects (clone --shared, --reference) */
	if (file_read_bounded(AT_FDCWD, strcat(obj, "/info/alternates"), 65536, &buf, &len) < 0)
		return;
	for (l = buf; *l; l = e) {
		e = l + strcspn(l, "\n");
		if (*e)
			*e++ = '\0';
		snprintf(obj, sizeof obj, "%s", g->objects.v[0]);
		if (*l && *l != '#' && resolve_at(obj, l, real) == 0)
			av_push(&g->objects, real);
	}
	free(buf);
}

int
gitws_locate(struct gitws *g, const char *ws, char *why, size_t whyn)
{
	char p[PATH_MAX + 16], pointer[PATH_MAX], *buf;
	struct stat st;
	size_t len;
	int r;

	snprintf(g->ws, sizeof g->ws, "%s", ws);
	snprintf(p, sizeof p, "%s/.git", ws);
	if (lstat(p, &st) < 0)
		return msg_say(why, whyn, "%s: %s", p, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		/* a linked worktree: "gitdir: PATH" */
		if (file_read_bounded(AT_FDCWD, p, 4096, &buf, &len) < 0)
			return msg_say(why, whyn, "unable to read %s: %s", p, strerror(errno));
		r = gitref_gitfile(buf, len, pointer, sizeof pointer);
		free(buf);
		if (r < 0 || resolve_at(ws, pointer, g->gitdir) < 0)
			return msg_say(why, whyn, "%s does not name a git directory", p);
		g->linked = 1;
	} else if (realpath(p, g->gitdir) == NULL || stat(g->gitdir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		return msg_say(why, whyn, "%s is not a git directory", p);
	}
	snprintf(p, sizeof p, "%s/commondir", g->gitdir);
	if (file_read_bounded(AT_FDCWD, p, 4096, &buf, &len) == 0) {
		while (len > 0 && buf[len - 1] == '\n')
			buf[--len] = '\0';
		r = len > 0 && len < sizeof pointer ? resolve_at(g->gitdir, buf, g->common) : -1;
		free(buf);
		if (r < 0)
			return msg_say(why, whyn, "%s does not name the common git directory", p);
	} else {
		snprintf(g->common, sizeof g->common, "%s", g->gitdir);
	}
	g->hexlen = 40;
	snprintf(p, sizeof p, "%s/config", g->common);
	if (file_read_bounded(AT_FDCWD, p, 1 << 20, &buf, &len) == 0) {
		for (char *c = buf; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		if (strstr(buf, "objectformat") && strstr(buf, "sha256"))
			g->hexlen = 64;
		free(buf);
	}
	find_objects(g);
	if (g->objects.err || g->objects.n == 0)
		return msg_say(why, whyn, "%s/objects: not found", g->common);
	return 0;
}

void
gitws_free(struct gitws *g)
{
	av_free(&g->objects);
	av_free(&g->nested);
	av_free(&g->deplinks);
	gitseen_free(&g->seen);
}


int
gitws_write_new(int dfd, const char *name, const char *buf, size_t len)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (fd_write_all(fd, buf, len) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}


int
gitws_copy(int sfd, const char *sname, int dfd, const char *dname, unsigned long long max)
{
	struct stat st;
	char buf[65536];
	ssize_t n;
	int in, out, e;

	in = openat(sfd, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0)
		return -1;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size > max) {
		e = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		close(in);
		return errno = e, -1;
	}
	out = openat(dfd, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    st.st_mode & 0100 ? 0755 : 0644);
	if (out < 0) {
		e = errno;
		close(in);
		return errno = e, -1;
	}
	for (;;) {
		n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP))
			break;	/* fall back to read and write */
		if (n <= 0)
			goto done;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (fd_write_all(out, buf, (size_t)n) < 0) {
			n = -1;
			break;
		}
done:
	e = errno;
	close(in);
	if (close(out) < 0 && n == 0)
		n = -1;
	return n < 0 ? (errno = e, -1) : 0;
}

int
gitws_copy_index(int sfd, const char *sname, int dfd, const char *dname)
{
	struct timespec tv[2];
	struct stat st;

	if (gitws_copy(sfd, sname, dfd, dname, ~0ULL) < 0)
		return -1;
	if (fstatat(sfd, sname, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	tv[0] = st.st_atim;
	tv[1] = st.st_mtim;
	return utimensat(dfd, dname, tv, AT_SYMLINK_NOFOLLOW);
}


void
gitws_add_name(char *buf, size_t n, const char *name)
{
	size_t at = strlen(buf);

	if (at + strlen(name) + 8 < n) {
		snprintf(buf + at, n - at, "%s", at ? ", " : "");
		at = strlen(buf);
		/* a path may hold anything: control bytes are shown as '?' */
		for (const char *c = name; *c && at + 1 < n; c++)
			buf[at++] = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
		buf[at] = '\0';
	} else if (at + 5 < n && strcmp(buf + at - 3, "...") != 0) {
		snprintf(buf + at, n - at, ", ...");
	}
}

size_t
gitws_alt(const struct gitws *g, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < g->objects.n && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s\n", g->objects.v[i]);
	return k;
}

int
gitws_stdin(int afd, const char *name, const char *buf, size_t len)
{
	(void)unlinkat(afd, name, 0);
	if (gitws_write_new(afd, name, buf, len) < 0)
		return -1;
	return openat(afd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}
