/* gitnested: see gitnested.h. */
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

#include "fdio.h"
#include "gitnested.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
enum { MAX_BYTES = 64 << 20, MAX_DEPTH = 16, MAX_TREE = 200 };

/* What git writes on every use, or checks itself (objects by their names):
 * not control files. Only at the top of a git directory. */
static int
skipped(const char *nm)
{
	static const char *const a[] = { "objects", "refs", "logs", "index", "HEAD", "ORIG_HEAD",
		"FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "packed-refs",
		"COMMIT_EDITMSG", NULL };

	for (int i = 0; a[i]; i++)
		if (strcmp(nm, a[i]) == 0)
			return 1;
	return strncmp(nm, "sharedindex.", 12) == 0;
}

static int
cmpname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int digest(br_sha256_context *c, int dfd, const char *nm, int depth, size_t *bytes);

/* A directory's entries in name order (readdir's order is not stable). */
static int
digest_dir(br_sha256_context *c, int fd, int depth, size_t *bytes)
{
	char **v = NULL, **nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0;
	DIR *d;

	if (depth > MAX_DEPTH || (d = dir_fresh(fd)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (depth == 1 && skipped(de->d_name)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			if (cap > 65536 || (nv = realloc(v, cap * sizeof *v)) == NULL) {
				r = -1;
				break;
			}
			v = nv;
		}
		if ((v[n] = strdup(de->d_name)) == NULL) {
			r = -1;
			break;
		}
		n++;
	}
	if (r == 0 && n)
		qsort(v, n, sizeof *v, cmpname);
	for (size_t i = 0; i < n; i++) {
		if (r == 0)
			r = digest(c, dirfd(d), v[i], depth + 1, bytes);
		free(v[i]);
	}
	free(v);
	closedir(d);
	return r;
}

/* name, type and mode, then the content (a link's target, a file's bytes,
 * a directory's entries); nothing followed, nothing opened that could block */
static int
digest(br_sha256_context *c, int dfd, const char *nm, int depth, size_t *bytes)
{
	char buf[16384];
	struct stat st;
	ssize_t k;
	int fd, r = 0;

	if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	br_sha256_update(c, nm, strlen(nm) + 1);
	br_sha256_update(c, &st.st_mode, sizeof st.st_mode);
	if (S_ISLNK(st.st_mode)) {
		if ((k = readlinkat(dfd, nm, buf, sizeof buf)) < 0)
			return -1;
		br_sha256_update(c, buf, (size_t)k);
	} else if (S_ISREG(st.st_mode)) {
		if ((fd = openat(dfd, nm, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
			return -1;
		while ((k = read(fd, buf, sizeof buf)) > 0) {
			if ((*bytes += (size_t)k) > MAX_BYTES) {
				r = -1;
				break;
			}
			br_sha256_update(c, buf, (size_t)k);
		}
		if (k < 0)
			r = -1;
		close(fd);
	} else if (S_ISDIR(st.st_mode)) {
		if ((fd = openat(dfd, nm, OPEN_DIR)) < 0)
			return -1;
		r = digest_dir(c, fd, depth, bytes);
		close(fd);
	}
	br_sha256_update(c, "\n", 1);
	return r;
}

/* The fingerprint of the repository dfd/nm (a .git directory or file; a
 * file's "gitdir:" directory too): 64 hex digits into hex, or "unreadable". */
static void
fingerprint(int dfd, const char *nm, char hex[65])
{
	unsigned char out[32];
	br_sha256_context c;
	size_t bytes = 0;
	struct stat st;
	char buf[PATH_MAX + 16];
	int r, fd;
	ssize_t k;

	br_sha256_init(&c);
	r = digest(&c, dfd, nm, 1, &bytes);
	if (r == 0 && fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    (fd = openat(dfd, nm, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) >= 0) {
		/* "gitdir: PATH": the git directory it names is read as well */
		k = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (k > 8 && strncmp(buf, "gitdir: ", 8) == 0) {
			buf[k] = '\0';
			buf[strcspn(buf, "\r\n")] = '\0';
			struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS };
			int gfd = (int)syscall(SYS_openat2, dfd, buf + 8, &how, sizeof how);
			if (gfd >= 0) {
				r = digest(&c, gfd, ".", 1, &bytes);
				close(gfd);
			}
		}
	}
	if (r != 0) {
		snprintf(hex, 65, "unreadable");
		return;
	}
	br_sha256_out(&c, out);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
}

static int
special(mode_t m)
{
	return !(S_ISREG(m) || S_ISLNK(m) || S_ISDIR(m));
}

static int
scan(int dfd, const char *path, int depth, struct argv *out)
{
	char sub[PATH_MAX], hex[65];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if ((d = dir_fresh(dfd)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		const char *nm = de->d_name;
		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 ||
		    (depth == 0 && strcmp(nm, ".git") == 0))
			continue;
		if ((de->d_type == DT_REG || de->d_type == DT_LNK) && strcasecmp(nm, ".git") != 0)
			continue;
		if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (size_t)snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "/" : "", nm) >= sizeof sub)
			continue;	/* the import moves it aside whatever it was */
		if (strcasecmp(nm, ".git") == 0) {
			fingerprint(dirfd(d), nm, hex);
			av_pushf(out, "%s\t%s", sub, hex);
		} else if (special(st.st_mode)) {
			av_pushf(out, "%s\tspecial", sub);
		} else if (S_ISDIR(st.st_mode) && depth < MAX_TREE &&
		    (fd = openat(dirfd(d), nm, OPEN_DIR)) >= 0) {
			(void)scan(fd, sub, depth + 1, out);
			close(fd);
		}
	}
	closedir(d);
	return out->err ? -1 : 0;
}

int
gitnested_scan(const char *ws, struct argv *out)
{
	int fd = open(ws, OPEN_DIR), r;

	if (fd < 0)
		return -1;
	r = scan(fd, "", 0, out);
	close(fd);
	return r;
}

int
gitnested_same(const struct argv *before, int dfd, const char *nm, const char *path)
{
	char want[PATH_MAX + 80], hex[65];
	struct stat st;

	if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (strcasecmp(nm, ".git") == 0) {
		fingerprint(dfd, nm, hex);
		if (strcmp(hex, "unreadable") == 0)
			return 0;
	} else if (special(st.st_mode)) {
		snprintf(hex, sizeof hex, "special");
	} else {
		return 0;
	}
	if ((size_t)snprintf(want, sizeof want, "%s\t%s", path, hex) >= sizeof want)
		return 0;
	for (size_t i = 0; i < before->n; i++)
		if (strcmp(before->v[i], want) == 0)
			return 1;
	return 0;
}
