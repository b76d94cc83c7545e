/* A fetched page is a remote server's bytes: the asset scan and the
 * downloads layout take any of them without a crash, and what they give
 * stays inside their bounds: each reference a NUL-terminated string under
 * ASSET_REF_MAX, not empty, not a bare fragment, none of the schemes left
 * out; each
 * name a single path segment (no '/', not "." or ".."), unique among the
 * names already given. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	char used[8192];
	int n;
};

static void
name_ok(const char *name, const char *used)
{
	size_t n = strlen(name);
	const char *p = used;

	if (n == 0 || strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		abort();
	/* the name was appended to used, once */
	for (int count = 0; (p = strstr(p, name)) != NULL; p += n)
		if ((p == used || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0') && ++count > 1)
			abort();
}

static int
on_ref(void *u, const char *ref)
{
	struct seen *s = u;
	char name[256];

	if (strlen(ref) >= ASSET_REF_MAX || ref[0] == '\0' || ref[0] == '#' || strncasecmp(ref, "data:", 5) == 0 ||
	    strncasecmp(ref, "javascript:", 11) == 0 || strncasecmp(ref, "mailto:", 7) == 0)
		abort();
	if (assets_name(ref, s->used, sizeof s->used, name, sizeof name) == 0)
		name_ok(name, s->used);
	return ++s->n >= 200;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen s;
	char *t, dir[512], name[256];
	size_t half = size / 2;

	memset(&s, 0, sizeof s);
	assets_scan((const char *)data, size, on_ref, &s);
	/* the layout from a host and a path made of the same bytes */
	if ((t = malloc(size + 2)) == NULL)
		return 0;
	memcpy(t, data, size);
	t[half] = '\0';
	t[size] = '\0';
	if (memchr(t, '\0', half) == t + half &&
	    assets_layout(t, t + half + 1 <= t + size ? t + half + 1 : "", "text/html", size & 1, dir, sizeof dir,
	    name, sizeof name) == 0) {
		const char *last = strrchr(dir, '/');
		name_ok(name, name);
		/* the folder's own segment, after downloads/HOST, is no dot name */
		if (last && strcmp(dir, "downloads") != 0 && (strcmp(last, "/.") == 0 || strcmp(last, "/..") == 0))
			abort();
	}
	free(t);
	return 0;
}
