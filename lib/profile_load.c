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
	char perr[200], sbuf[4096], *buf;
	size_t len;
	int r;

	if (profiles_defaults(ps) < 0) {
		snprintf(err, errn, "embedded profiles do not parse");
		return -1;
	}
	if (file == NULL)
		return 0;
	if (file_read_bounded_in(AT_FDCWD, file, 1 << 20, sbuf, sizeof sbuf, &buf, &len) < 0) {
		snprintf(err, errn, "unable to read profiles %s: %s", file, strerror(errno));
		return -1;
	}
	r = profiles_parse(buf, len, ps, perr, sizeof perr);
	if (buf != sbuf)
		free(buf);
	if (r < 0) {
		snprintf(err, errn, "profiles %s: %s", file, perr);
		return -1;
	}
	return 0;
}

int
profiles_load_for(const char *file, const char *name, struct profiles *ps, char *err, size_t errn)
{
	char perr[200], sbuf[4096], *buf;
	size_t len;
	int r, e;

	/* Speed: home-stage create --profiles (corral's agent "none", or a
	 * profile of the user's own) spends most of its CPU on parsing the
	 * embedded defaults, which then go unused. */
	if (file != NULL && name != NULL && file_read_bounded_in(AT_FDCWD, file, 1 << 20, sbuf, sizeof sbuf, &buf, &len) == 0) {
		ps->n = 0;
		r = profiles_parse(buf, len, ps, perr, sizeof perr);
		if (buf != sbuf)
			free(buf);
		if (r == 0 && profiles_find(ps, name) != NULL && (e = profiles_embedded_count()) >= 0 &&
		    ps->n + e <= PROF_MAX)
			return 0;
	}
	return profiles_load(file, ps, err, errn);
}
