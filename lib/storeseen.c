/* A store recognized by its layout (lib/store.h, sandbox-mcp(1) FILES),
 * not by where it is: --store and --state put one anywhere. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storeseen.h"

enum { WALK_DEPTH = 256 };

int
store_seen(int dfd)
{
	static const char *const sub[] = { "sessions", "snapshots", "attempts", "creds", "released", "env", "prev" };
	struct stat st;

	if (fstatat(dfd, ".lock", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	for (size_t i = 0; i < sizeof sub / sizeof *sub; i++)
		if (fstatat(dfd, sub[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			return 1;
	return 0;
}

/* path (len bytes used, n the room) is the directory dfd (taken). */
static int
walk(int dfd, char *path, size_t len, size_t n, int depth)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (store_seen(dfd)) {
		close(dfd);
		return 1;
	}
	if (depth >= WALK_DEPTH) {
		close(dfd);
		return errno = ELOOP, -1;
	}
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;
		int fd;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type != DT_DIR && (de->d_type != DT_UNKNOWN ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)))
			continue;
		if (len + 1 + strlen(de->d_name) >= n) {
			rc = -1;
			errno = ENAMETOOLONG;
			break;
		}
		snprintf(path + len, n - len, "/%s", de->d_name);
		if ((fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			path[len] = '\0';
			continue;	/* unreadable: no copy takes it either */
		}
		if ((rc = walk(fd, path, len + 1 + strlen(de->d_name), n, depth + 1)) == 0)
			path[len] = '\0';
	}
	{
		int e = errno;
		closedir(d);
		errno = e;
	}
	return rc;
}

int
store_near(const char *real, char *found, size_t n)
{
	char p[PATH_MAX];
	size_t l;
	int fd, rc;

	if (real[0] != '/' || strlen(real) >= sizeof p)
		return errno = EINVAL, -1;
	/* the path and each directory above it */
	snprintf(p, sizeof p, "%s", real);
	for (l = strlen(p); l > 0; ) {
		if ((fd = open(l > 1 ? p : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			int seen = store_seen(fd);
			close(fd);
			if (seen) {
				snprintf(found, n, "%s", l > 1 ? p : "/");
				return 1;
			}
		}
		while (l > 1 && p[l - 1] != '/')
			l--;
		if (l <= 1)
			break;
		p[--l] = '\0';
	}
	/* and beneath it */
	if ((fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOTDIR ? 0 : -1;
	snprintf(p, sizeof p, "%s", real);
	if ((rc = walk(fd, p, strlen(p), sizeof p, 0)) == 1)
		snprintf(found, n, "%s", p);
	return rc;
}
