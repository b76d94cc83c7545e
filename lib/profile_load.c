/* profiles_load: the embedded profiles, then a --profiles file over them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdio.h"
#include "profile.h"

int
profiles_load(const char *file, struct profiles *ps, char *err, size_t errn)
{
	char perr[200], *buf;
	size_t len;
	int r;

	if (profiles_defaults(ps) < 0) {
		snprintf(err, errn, "embedded profiles do not parse");
		return -1;
	}
	if (file == NULL)
		return 0;
	if (file_read_bounded(AT_FDCWD, file, 1 << 20, &buf, &len) < 0) {
		snprintf(err, errn, "unable to read profiles %s: %s", file, strerror(errno));
		return -1;
	}
	r = profiles_parse(buf, len, ps, perr, sizeof perr);
	free(buf);
	if (r < 0) {
		snprintf(err, errn, "profiles %s: %s", file, perr);
		return -1;
	}
	return 0;
}
