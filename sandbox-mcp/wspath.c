#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "parentdir.h"
#include "wspath.h"

int
ws_path_check(const char *p, char *err, size_t errn)
{
	size_t n = strlen(p), depth = 0;

	if (n == 0)
		return sbx_err(err, errn, "an empty path");
	if (n > WS_PATH_MAX)
		return sbx_err(err, errn, "path longer than %d bytes", WS_PATH_MAX);
	if (p[0] == '/')
		return sbx_err(err, errn, "path %s is absolute: paths are relative to the workspace", p);
	for (const char *c = p; *c; ) {
		size_t l = strcspn(c, "/");
		if (l == 0 || (l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return sbx_err(err, errn, "path %s has a \"%.*s\" component: refused", p,
			    (int)l, l ? c : "");
		if (++depth > WS_DEPTH_MAX)
			return sbx_err(err, errn, "path %s is deeper than %d components", p, WS_DEPTH_MAX);
		c += l;
		if (*c == '/' && *++c == '\0')
			return sbx_err(err, errn, "path %s ends in '/'", p);
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return sbx_err(err, errn, "path holds a control character: refused");
	return 0;
}

int
ws_parent(int wsfd, const char *path, int create, const char **base)
{
	return parentdir_open(wsfd, path, create ? 0755 : 0, base);
}

int
ws_open(int wsfd, const char *path, int flags, int mode)
{
	const char *base;
	int d = ws_parent(wsfd, path, 0, &base), fd, e;

	if (d < 0)
		return -1;
	fd = openat(d, base, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	e = errno;
	close(d);
	errno = e;
	return fd;
}

const char *
ws_strerror(int e)
{
	if (e == ELOOP)
		return "a symbolic link is on the way: refused";
	return strerror(e);
}
