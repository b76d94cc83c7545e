/* wsscan: see wsscan.h. */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wsscan.h"

static void
fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ c[i]) * 0x100000001b3ULL;
}

int64_t
ws_scan(int wsfd, uint64_t *fp)
{
	int fd = openat(wsfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	int64_t total = 0;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (fp) {
			/* any write changes ctime; any entry made or removed, its directory's */
			fnv(fp, de->d_name, strlen(de->d_name) + 1);
			fnv(fp, &st.st_ino, sizeof st.st_ino);
			fnv(fp, &st.st_mode, sizeof st.st_mode);
			fnv(fp, &st.st_size, sizeof st.st_size);
			fnv(fp, &st.st_mtim, sizeof st.st_mtim);
			fnv(fp, &st.st_ctim, sizeof st.st_ctim);
		}
		if (S_ISREG(st.st_mode)) {
			total += st.st_size;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int64_t u = sub >= 0 ? ws_scan(sub, fp) : 0;
			if (sub >= 0)
				close(sub);
			if (u > 0)
				total += u;
		}
	}
	closedir(d);
	return total;
}

int64_t
ws_usage(int wsfd)
{
	return ws_scan(wsfd, NULL);
}
