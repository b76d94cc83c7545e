/* linkwalk: a grant, the workspace or a policy reached through a symbolic
 * link in a place the boundary can write is refused, not followed: the
 * agent may have replaced a granted directory with a link to ~/.ssh between
 * two runs. We refuse rather than grant the link's own location: a link is
 * never a Landlock rule (the kernel resolves it), so "the link only" would
 * grant nothing useful and hide the change. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linkwalk.h"
#include "pathmemo.h"
#include "profile.h"
#include "resolve.h"
#include "store.h"

int
boundary_writable(const struct plan *pl, const char *p, char *where, size_t n)
{
	size_t sl = strlen(pl->store);
	/* the embedded defaults never change: parse them once (tool: resolving
	 * an install tree asks here for every link it meets) */
	const struct profiles *ps;

	if (pl->workspace[0] && path_within(p, pl->workspace))
		return snprintf(where, n, "the workspace %s", pl->workspace), 1;
	for (size_t i = 0; i < pl->wr.n; i++)
		if (path_within(p, pl->wr.v[i]))
			return snprintf(where, n, "the write grant %s", pl->wr.v[i]), 1;
	for (size_t i = 0; i < pl->fullsetup.n; i++)
		if (path_within(p, pl->fullsetup.v[i]))
			return snprintf(where, n, "the full-setup folder %s", pl->fullsetup.v[i]), 1;
	/* every attempt directory, past or present: STORE/aNONCE, and
	 * $XDG_RUNTIME_DIR/corral/aNONCE (rundir.h) */
	if (store_tree_rest(pl->store, p) != NULL)
		return snprintf(where, n, "an attempt directory of %s", pl->store), 1;
	if (store_tree_rest(pl->trees, p) != NULL)
		return snprintf(where, n, "an attempt directory of %s", pl->trees), 1;
	/* the attempt repositories and checkouts of git workspaces */
	if (sl && strncmp(p, pl->store, sl) == 0 && strncmp(p + sl, "/git/", 5) == 0)
		return snprintf(where, n, "an attempt repository of %s", pl->store), 1;
	/* an agent's own folders, which any --full-setup run could write
	 * (each HOME/DIR: none holds a p outside the home, so the profiles
	 * are not parsed for a link outside it, /bin or /lib) */
	if (pl->home[0] && path_within(p, pl->home) && (ps = profiles_embedded()) != NULL)
		for (int i = 0; i < ps->n; i++)
			for (int j = 0; j < ps->p[i].nfull; j++) {
				char f[PATH_MAX];
				if (path_cat(f, sizeof f, pl->home, ps->p[i].full[j]) == 0 && path_within(p, f))
					return snprintf(where, n, "%s's full-setup folder %s", ps->p[i].name, f), 1;
			}
	return 0;
}

/* Drop the last component of the absolute path cur ("/" stays). */
static void
up(char *cur)
{
	char *s = strrchr(cur, '/');

	if (s == cur)
		cur[1] = '\0';
	else if (s)
		*s = '\0';
}

int
link_walk(const struct plan *pl, const char *path, char *real, char *link, size_t linkn,
    char *where, size_t wheren)
{
	char rest[PATH_MAX * 2], next[PATH_MAX], tgt[PATH_MAX];
	const char *p;
	struct stat st;
	int links = 0;
	size_t cl;
	ssize_t tl;

	size_t rl, len = strlen(path);

	if (len >= PATH_MAX)
		return errno = ENAMETOOLONG, -1;
	if (path[0] == '/')
		strcpy(real, "/");
	else if (memo_getcwd(real, PATH_MAX) == NULL)
		return -1;
	memcpy(rest, path, len + 1);
	p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		cl = strcspn(p, "/");
		if (cl == 1 && p[0] == '.') {
			p += cl;
			continue;
		}
		if (cl == 2 && p[0] == '.' && p[1] == '.') {
			up(real);
			p += cl;
			continue;
		}
		/* next: real, '/' (but after the root), the component */
		rl = strlen(real);
		if (rl == 1)
			rl = 0;
		if (rl + 1 + cl >= sizeof next)
			return errno = ENAMETOOLONG, -1;
		memcpy(next, real, rl);
		next[rl] = '/';
		memcpy(next + rl + 1, p, cl);
		next[rl + 1 + cl] = '\0';
		if (memo_lstat(next, &st) < 0)
			return -1;
		p += cl;
		if (!S_ISLNK(st.st_mode)) {
			if (*p == '/' && !S_ISDIR(st.st_mode))
				return errno = ENOTDIR, -1;
			strcpy(real, next);
			continue;
		}
		if (++links > 40)
			return errno = ELOOP, -1;
		if (pl && boundary_writable(pl, next, where, wheren)) {
			snprintf(link, linkn, "%s", next);
			return 1;
		}
		if ((tl = memo_readlink(next, tgt, sizeof tgt - 1)) < 0)
			return -1;
		tgt[tl] = '\0';
		if ((size_t)tl + strlen(p) >= sizeof rest)
			return errno = ENAMETOOLONG, -1;
		memmove(rest + tl, p, strlen(p) + 1);	/* p lies within rest */
		memcpy(rest, tgt, (size_t)tl);
		p = rest;
		if (tgt[0] == '/')
			strcpy(real, "/");
	}
	return 0;
}

int
link_realpath(const char *path, char *real)
{
	char link[PATH_MAX], where[64];

	if (path[0] == '\0')
		return errno = ENOENT, -1;	/* as realpath(3) */
	return link_walk(NULL, path, real, link, sizeof link, where, sizeof where);
}

int
link_resolve(const struct plan *pl, const char *what, const char *path, char *real,
    char *why, size_t whyn, char *hint, size_t hintn)
{
	/* static: written only for a refusal, where a frame of them was
	 * touched page by page on every call (-fstack-clash-protection);
	 * link_resolve is never reentered */
	static char link[PATH_MAX], where[PATH_MAX + 64];
	int r = link_walk(pl, path, real, link, sizeof link, where, sizeof where);

	if (r != 1)
		return r < 0 ? -2 : 0;
	snprintf(why, whyn, "%s %s: its resolution passes through the symbolic link %s, in %s, which the agent can write",
	    what, path, link, where);
	snprintf(hint, hintn, "see what the agent changed there; name real paths outside the agent's reach in the policy");
	return -1;
}

/* One path: 0 fine (or absent: the caller's own resolution reports that),
 * -1 refused with the reason. */
static int
one(const struct plan *pl, const char *what, const char *path, char *why, size_t whyn,
    char *hint, size_t hintn)
{
	static char real[PATH_MAX];	/* not kept: static, as link_resolve's */

	return link_resolve(pl, what, path, real, why, whyn, hint, hintn) == -1 ? -1 : 0;
}

void
link_what(char *what, size_t n, const char *key, size_t kl)
{
	if (kl + sizeof "policy \"\" grants" > n) {
		snprintf(what, n, "policy \"%.*s\" grants", (int)kl, key);
		return;
	}
	memcpy(what, "policy \"", 8);
	memcpy(what + 8, key, kl);
	memcpy(what + 8 + kl, "\" grants", sizeof "\" grants");
}

int
links_check(const struct plan *pl, const struct argv *seen, char *why, size_t whyn,
    char *hint, size_t hintn)
{
	const struct policy *pol = pl->pol;
	char what[64];

	if (pl->workspace[0] && one(pl, "the workspace", pol->workspace ? pol->workspace : ".",
	    why, whyn, hint, hintn) < 0)
		return -1;
	for (size_t i = 0; i < seen->n; i++) {
		const char *t = strchr(seen->v[i], '\t');
		if (t == NULL)
			continue;
		link_what(what, sizeof what, seen->v[i], (size_t)(t - seen->v[i]));
		if (one(pl, what, t + 1, why, whyn, hint, hintn) < 0)
			return -1;
	}
	for (size_t i = 0; i < pl->envfiles.n; i++)
		if (one(pl, "the env file", pl->envfiles.v[i], why, whyn, hint, hintn) < 0)
			return -1;
	for (size_t i = 0; i < pol->nmcp; i++) {
		char cred[PATH_MAX];
		if (pol->mcp[i].credential_file && plan_tilde(pl, pol->mcp[i].credential_file, cred, sizeof cred) == 0 &&
		    one(pl, "the MCP credential file", cred, why, whyn, hint, hintn) < 0)
			return -1;
	}
	return 0;
}
