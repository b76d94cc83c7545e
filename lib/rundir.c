/* rundir: see rundir.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "execenv.h"
#include "rundir.h"
#include "store.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

static int
no(char *why, size_t whyn, const char *x, const char *what)
{
	snprintf(why, whyn, "XDG_RUNTIME_DIR %s %s", x, what);
	return 0;
}

int
rundir_path(char *const envp[], char *out, size_t n, char *why, size_t whyn)
{
	const char *x = env_get(envp, "XDG_RUNTIME_DIR");
	char p[STORE_PATH_SOCKET_MAX + 1], real[PATH_MAX];
	struct statfs fs;
	struct stat st;
	int fd, ok, len;

	snprintf(why, whyn, "%s", "");
	if (x == NULL || *x == '\0')
		return 0;
	if (*x != '/')
		return no(why, whyn, x, "is not an absolute path");
	/* not a link itself; its real path, as every grant's (confine
	 * --no-symlinks opens them as named) */
	fd = open(x, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return no(why, whyn, x, errno == ELOOP ? "is a symbolic link" : "is not a directory");
	ok = fstat(fd, &st) == 0 && fstatfs(fd, &fs) == 0 && realpath(x, real) != NULL;
	close(fd);
	if (!ok)
		return no(why, whyn, x, "cannot be examined");
	if (st.st_uid != geteuid())
		return no(why, whyn, x, "is not the caller's own");
	if ((st.st_mode & 07777) != 0700)
		return no(why, whyn, x, "is not mode 0700");
	if ((unsigned long)fs.f_type != TMPFS_MAGIC)
		return no(why, whyn, x, "is not on tmpfs");
	len = snprintf(p, sizeof p, "%s/corral", real);
	if (len < 0 || (size_t)len >= sizeof p || (size_t)len >= n)
		return no(why, whyn, x, "is too long (a socket in the agent's home would not fit)");
	memcpy(out, p, (size_t)len + 1);
	return 1;
}

int
rundir_store_key(int storefd, char *out, size_t n)
{
	struct stat st;
	int r;

	if (fstat(storefd, &st) < 0)
		return -1;
	r = snprintf(out, n, "%" PRIu64 ":%" PRIu64 "\n", (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	return r < 0 || (size_t)r >= n ? (errno = ENAMETOOLONG, -1) : r;
}

int
rundir_tree_ours(int dirfd, const char *tree, int storefd)
{
	char key[48], buf[48];
	ssize_t got;
	int kn = rundir_store_key(storefd, key, sizeof key), fd, tfd;

	if (kn < 0)
		return -1;
	if ((tfd = openat(dirfd, tree, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	fd = openat(tfd, "store", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(tfd);
	if (fd < 0)
		return 0;
	got = read(fd, buf, sizeof buf);
	close(fd);
	return got == kn && memcmp(buf, key, (size_t)kn) == 0;
}
