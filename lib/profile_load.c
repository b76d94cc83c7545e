/* profiles_load: the embedded profiles, then a --profiles file over them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdio.h"
#include "profile.h"

/* file read (bounded, no link) and parsed into ps: 0; -1 unreadable
 * (errno); -2 malformed (perr says why) */
static int
parse_file(const char *file, struct profiles *ps, char *perr, size_t n)
{
	char sbuf[4096], *buf;
	size_t len;
	int r;

	if (file_read_bounded_in(AT_FDCWD, file, 1 << 20, sbuf, sizeof sbuf, &buf, &len) < 0)
		return -1;
	r = profiles_parse(buf, len, ps, perr, n);
	if (buf != sbuf)
		free(buf);
	return r < 0 ? -2 : 0;
}

int
profiles_load(const char *file, struct profiles *ps, char *err, size_t errn)
{
	char perr[200];
	int r;

	if (profiles_defaults(ps) < 0) {
		snprintf(err, errn, "embedded profiles do not parse");
		return -1;
	}
	if (file == NULL)
		return 0;
	r = parse_file(file, ps, perr, sizeof perr);
	if (r == -1) {
		snprintf(err, errn, "unable to read profiles %s: %s", file, strerror(errno));
		return -1;
	}
	if (r < 0) {
		snprintf(err, errn, "profiles %s: %s", file, perr);
		return -1;
	}
	return 0;
}

int
profiles_load_for(const char *file, const char *name, struct profiles *ps, char *err, size_t errn)
{
	char perr[200];
	int e;

	/* Speed: home-stage create --profiles (corral's agent "none", or a
	 * profile of the user's own) spends most of its CPU on parsing the
	 * embedded defaults, which then go unused. */
	if (file != NULL && name != NULL) {
		ps->n = 0;
		if (parse_file(file, ps, perr, sizeof perr) == 0 && profiles_find(ps, name) != NULL &&
		    (e = profiles_embedded_count()) >= 0 && ps->n + e <= PROF_MAX)
			return 0;
	}
	return profiles_load(file, ps, err, errn);
}
