/* parentdir: see parentdir.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parentdir.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int
parentdir_open(int dirfd, const char *rel, mode_t mode, const char **base)
{
	return parentdir_openf(dirfd, rel, mode, 0, base);
}

int
parentdir_openf(int dirfd, const char *rel, mode_t mode, int flags, const char **base)
{
	char comp[NAME_MAX + 1];
	const char *c = rel, *slash;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), nfd, e;
	struct stat st;

	while (fd >= 0 && (slash = strchr(c, '/')) != NULL) {
		size_t l = (size_t)(slash - c);
		if (l >= sizeof comp) {
			close(fd);
			return errno = ENAMETOOLONG, -1;
		}
		memcpy(comp, c, l);
		comp[l] = '\0';
		nfd = openat(fd, comp, OPEN_DIR);
		if (nfd < 0 && (errno == ENOTDIR || errno == ELOOP) && mode != 0 &&
		    (flags & PARENTDIR_REPLACE) && unlinkat(fd, comp, 0) == 0)
			errno = ENOENT;
		if (nfd < 0 && errno == ENOENT && mode != 0) {
			if (mkdirat(fd, comp, mode) < 0 && errno != EEXIST)
				nfd = -1;
			else
				nfd = openat(fd, comp, OPEN_DIR);
		}
		if (nfd < 0) {
			/* O_DIRECTORY|O_NOFOLLOW on a symlink gives ENOTDIR or ELOOP */
			e = errno;
			if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				e = ELOOP;
			close(fd);
			return errno = e, -1;
		}
		close(fd);
		fd = nfd;
		c = slash + 1;
	}
	*base = c;
	return fd;
}
