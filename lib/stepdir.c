#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "path.h"
#include "stepdir.h"

static int
isexec(const char *dir, const char *prog)
{
	char p[PATH_MAX];

	if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, prog) >= sizeof p)
		return 0;
	return access(p, X_OK) == 0;
}

int
resolve_stepdir(char *out, size_t n)
{
	char exe[PATH_MAX], lib[PATH_MAX + 32], *s;

	if (path_self_dir(exe, sizeof exe) < 0)
		return -1;
	/* installed: $PREFIX/bin/PROG and $PREFIX/libexec/corral/ */
	if ((s = strrchr(exe, '/')) != NULL && strcmp(s, "/bin") == 0) {
		snprintf(lib, sizeof lib, "%.*s/libexec/corral", (int)(s - exe), exe);
		if (isexec(lib, "confine")) {
			if (strlen(lib) >= n)
				return errno = ENAMETOOLONG, -1;
			strcpy(out, lib);
			return 0;
		}
	}
	if (strlen(exe) >= n)
		return errno = ENAMETOOLONG, -1;
	strcpy(out, exe);
	return 0;
}
