/* homepath: PATH directories in the home (see homepath.h). */
#include <stdio.h>
#include <string.h>

#include "homepath.h"
#include "resolve.h"
#include "toolchains.h"

struct hctx {
	struct plan *pl;
	const struct toolchain *e;
};

static int
add(void *arg, const char *path, int ro)
{
	struct hctx *h = arg;
	struct argv *to = ro ? &h->pl->rd : &h->pl->ex;

	for (size_t i = 0; i < to->n; i++)
		if (strcmp(to->v[i], path) == 0)
			return 0;
	av_push(to, path);
	av_pushcat(&h->pl->notes, "granted: ", path, ro ? " (read-only)" : "", " (toolchain ",
	    h->e->name, ": ", h->e->why, ")", (char *)NULL);
	return 0;
}

static int
has_env(const struct argv *a, const char *kv)
{
	size_t n = strcspn(kv, "=");

	for (size_t i = 0; i < a->n; i++)
		if (strncmp(a->v[i], kv, n + 1) == 0)
			return 1;
	return 0;
}

static void
addline(char *warn, size_t n, const char *line)
{
	size_t l = strlen(warn);

	if (strstr(warn, line))
		return;
	if (l + strlen(line) + 2 < n) {
		strcpy(warn + l, line);
		strcat(warn + l, "\n");
	}
}

int
homepath_grant(struct plan *pl, const char *dir, const char *real, char *warn, size_t warnn)
{
	char cap[256], line[PATH_MAX * 2 + 160];
	size_t hl = strlen(pl->home);
	int from = 0, i, any = 0;

	/* granted by the policy's own "exec": it is on the agent's PATH too */
	for (size_t k = 0; k < pl->ex.n; k++)
		if (path_within(real, pl->ex.v[k]))
			return 1;
	while ((i = tc_match(pl->home, real, &from, cap, sizeof cap)) >= 0) {
		const struct toolchain *e = &toolchains[i];
		struct hctx h = { pl, e };
		any = 1;
		if (tc_grants(e, pl->home, cap, add, &h) < 0)
			return -1;
		for (int k = 0; k < TC_MAX_ENV && e->env[k]; k++) {
			const char *v = strchr(e->env[k], '=') + 1;
			if (has_env(&pl->tcenv, e->env[k]))
				continue;
			if (v[0] == '~')
				av_pushf(&pl->tcenv, "%.*s%s%s", (int)(v - e->env[k]), e->env[k], pl->home, v + 1);
			else
				av_push(&pl->tcenv, e->env[k]);
		}
	}
	if (any)
		return pl->ex.err || pl->rd.err || pl->notes.err || pl->tcenv.err ? -1 : 1;
	if (path_within(real, pl->home) && strcmp(pl->home, real) != 0)
		snprintf(line, sizeof line, "PATH directory %.*s is in your home and no toolchain entry matches it: not granted; to grant it: \"exec\": [\"~%.*s\"]",
		    PATH_MAX, dir, PATH_MAX, real + hl);
	else
		snprintf(line, sizeof line, "PATH directory %.*s is in (or holds) your home: not granted",
		    PATH_MAX, dir);
	addline(warn, warnn, line);
	av_pushf(&pl->notes, "left out: %s", line);
	return pl->notes.err ? -1 : 0;
}
