#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "path.h"

int
path_within(const char *b, const char *a)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

int
path_canonical(const char *p)
{
	if (p[0] != '/')
		return 0;
	if (p[1] == '\0')
		return 1;
	for (const char *c = p; *c; ) {
		size_t n;
		c++;		/* past the '/' */
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n;
	}
	return 1;
}

int
path_cat(char *out, size_t n, const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);

	if (dl + 1 + nl >= n)
		return -1;
	memcpy(out, dir, dl);
	out[dl] = '/';
	memcpy(out + dl + 1, name, nl + 1);
	return 0;
}

int
path_self_dir(char *out, size_t n)
{
	char exe[PATH_MAX], *s;
	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (l < 0)
		return -1;
	exe[l] = '\0';
	if ((s = strrchr(exe, '/')) == NULL)
		return errno = ENOENT, -1;
	if (s == exe)
		s++;	/* the root directory */
	*s = '\0';
	if ((size_t)(s - exe) + 1 > n)
		return errno = ENAMETOOLONG, -1;
	memcpy(out, exe, (size_t)(s - exe) + 1);
	return 0;
}

int
path_enter(const char *dir)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof how), r, e;

	if (fd < 0)
		return -1;
	r = fchdir(fd);
	e = errno;
	close(fd);
	return errno = e, r;
}
