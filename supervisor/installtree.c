/* installtree: grant the command's own install tree (see installtree.h). */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execenv.h"
#include "fdio.h"
#include "installtree.h"
#include "pathmemo.h"
#include "json.h"
#include "linkwalk.h"
#include "resolve.h"
#include "toolchains.h"

/* Package and version directories, by the components that name them (each
 * an fnmatch pattern with FNM_PERIOD: '*' never matches a leading dot, so
 * node_modules/.bin is no package). The first match from the left wins: the
 * outermost tree holds the nested packages it depends on. */
static const char *const trees[][4] = {
	{ "node_modules", "@*", "*" },		/* a scoped npm package */
	{ "node_modules", "*" },		/* an npm package */
	{ ".nvm", "versions", "*", "*" },	/* nvm: versions/node/V */
	{ "node-versions", "*", "installation" },	/* fnm */
	{ "image", "*", "*" },			/* volta: tools/image/node/V */
	{ "installs", "*", "*" },		/* asdf, mise: installs/TOOL/V */
	{ "versions", "*" },			/* pyenv, rbenv, Claude Code's native installer */
	{ "toolchains", "*" },			/* rustup */
	{ "venvs", "*" },			/* pipx */
	{ "uv", "tools", "*" },			/* uv tool */
	{ "uv", "python", "*" },		/* uv's own Pythons */
	{ "sdk", "go*" },			/* golang.org/dl */
};

size_t
tree_root(const char *p)
{
	const char *comp[128];
	size_t len[128], nc = 0;

	for (const char *s = p; *s && nc < 128; ) {
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		comp[nc] = s;
		len[nc] = strcspn(s, "/");
		s += len[nc++];
	}
	for (size_t i = 0; i < nc; i++)
		for (size_t t = 0; t < sizeof trees / sizeof trees[0]; t++) {
			size_t k;
			/* each starts with a plain name: a cheap test first */
			if (strlen(trees[t][0]) != len[i] || memcmp(trees[t][0], comp[i], len[i]) != 0)
				continue;
			for (k = 0; k < 4 && trees[t][k]; k++) {
				char c[NAME_MAX + 1];
				if (i + k >= nc || len[i + k] > NAME_MAX)
					break;
				memcpy(c, comp[i + k], len[i + k]);
				c[len[i + k]] = '\0';
				if (fnmatch(trees[t][k], c, FNM_PERIOD) != 0)
					break;
			}
			if (k < 4 && trees[t][k])
				continue;
			return (size_t)(comp[i + k - 1] + len[i + k - 1] - p);
		}
	return 0;
}

int
shebang_parse(const char *buf, size_t n, char *prog, size_t progn)
{
	char line[256], *w[8], *s;
	size_t l, nw = 0, i;

	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return -1;
	for (l = 2; l < n && buf[l] != '\n'; l++)
		;
	if (l == n && n >= sizeof line)
		return -1;	/* no end of line in reach: not a line we read */
	if (l - 2 >= sizeof line)
		return -1;
	memcpy(line, buf + 2, l - 2);
	line[l - 2] = '\0';
	for (s = strtok(line, " \t\r"); s && nw < 8; s = strtok(NULL, " \t\r"))
		w[nw++] = s;
	if (nw == 0 || w[0][0] != '/')
		return -1;
	i = 0;
	s = strrchr(w[0], '/') + 1;
	if (strcmp(s, "env") == 0) {
		/* env [-S] [-i] [NAME=VALUE]... PROG */
		for (i = 1; i < nw && (w[i][0] == '-' || strchr(w[i], '=')); i++)
			;
		if (i == nw)
			return -1;
	}
	if (strlen(w[i]) >= progn)
		return -1;
	strcpy(prog, w[i]);
	return 0;
}

/* The boundary's writable places (trust's linkwalk.c): a link in one may
 * be the agent's. */
static int
writable(const struct plan *pl, const char *p)
{
	char where[PATH_MAX + 64];

	return boundary_writable(pl, p, where, sizeof where);
}

/* Lexically clean the absolute path in into out: no "//", ".", "..". */
static int
clean(const char *in, char *out, size_t n)
{
	size_t o = 0;

	for (const char *s = in; *s; ) {
		size_t l;
		while (*s == '/')
			s++;
		l = strcspn(s, "/");
		if (l == 0)
			break;
		if (l == 1 && s[0] == '.') {
			;
		} else if (l == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[--o] != '/')
				;
		} else {
			if (o + l + 2 >= n)
				return -1;
			out[o++] = '/';
			memcpy(out + o, s, l);
			o += l;
		}
		s += l;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

enum { MAXSPELL = 4 };

struct walk {
	char real[PATH_MAX];		/* where it resolves */
	char spell[MAXSPELL][PATH_MAX];	/* as found, then after each link */
	int n;
	char link[PATH_MAX];		/* a link met in a writable place */
};

/* Resolve the absolute path physically, noting each spelling met. 0, 1 when
 * a link lies where the agent can write (not followed), -1 with errno. */
static int
walk(const struct plan *pl, const char *path, struct walk *w)
{
	char rest[PATH_MAX * 2], next[PATH_MAX], tgt[PATH_MAX];
	const char *p;
	struct stat st;
	int links = 0;
	ssize_t tl;

	w->n = 0;
	if (clean(path, w->spell[w->n++], PATH_MAX) < 0)
		return errno = ENAMETOOLONG, -1;
	strcpy(w->real, "/");
	snprintf(rest, sizeof rest, "%s", w->spell[0]);
	p = rest;
	for (;;) {
		size_t cl;
		while (*p == '/')
			p++;
		if (*p == '\0')
			return 0;
		cl = strcspn(p, "/");
		if (cl == 1 && p[0] == '.') {
			p += cl;
			continue;
		}
		if (cl == 2 && p[0] == '.' && p[1] == '.') {
			char *s = strrchr(w->real, '/');
			s == w->real ? (void)(w->real[1] = '\0') : (void)(*s = '\0');
			p += cl;
			continue;
		}
		/* next: real, '/' (but after the root), the component (as
		 * link_walk joins it: no format parsed per component) */
		{
			size_t rl = strlen(w->real);
			if (rl == 1)
				rl = 0;
			if (rl + 1 + cl >= sizeof next)
				return errno = ENAMETOOLONG, -1;
			memcpy(next, w->real, rl);
			next[rl] = '/';
			memcpy(next + rl + 1, p, cl);
			next[rl + 1 + cl] = '\0';
		}
		if (memo_lstat(next, &st) < 0)
			return -1;
		p += cl;
		if (!S_ISLNK(st.st_mode)) {
			strcpy(w->real, next);
			continue;
		}
		if (++links > 40)
			return errno = ELOOP, -1;
		if (writable(pl, next)) {
			snprintf(w->link, sizeof w->link, "%s", next);
			return 1;
		}
		if ((tl = memo_readlink(next, tgt, sizeof tgt - 1)) < 0)
			return -1;
		tgt[tl] = '\0';
		/* rest becomes the target ("REAL/" before a relative one),
		 * then what is left of it (p lies within rest) */
		{
			size_t rl = tgt[0] == '/' ? 0 : strlen(w->real) + 1, pl_ = strlen(p);
			if (rl + (size_t)tl + pl_ >= sizeof rest)
				return errno = ENAMETOOLONG, -1;
			memmove(rest + rl + tl, p, pl_ + 1);
			if (rl) {
				memcpy(rest, w->real, rl - 1);
				rest[rl - 1] = '/';
			}
			memcpy(rest + rl, tgt, (size_t)tl);
		}
		p = rest;
		strcpy(w->real, "/");	/* rest is absolute now */
		if (w->n < MAXSPELL && clean(rest, w->spell[w->n], PATH_MAX) == 0)
			w->n++;
	}
}

struct gctx {
	struct plan *pl;
	struct argv *notes;
	const char *what;
	int n;
};

static int
add(void *arg, const char *path, int ro)
{
	struct gctx *g = arg;
	struct argv *to = ro ? &g->pl->rd : &g->pl->ex;

	for (size_t i = 0; i < to->n; i++)
		if (strcmp(to->v[i], path) == 0)
			return 0;
	av_push(to, path);
	av_pushf(g->notes, "granted: %s (the install tree of %s)", path, g->what);
	g->n++;
	return 0;
}

/* 1 when p is reachable for execution already */
static int
reachable(const struct plan *pl, const char *p)
{
	for (size_t i = 0; i < pl->ex.n; i++)
		if (path_within(p, pl->ex.v[i]))
			return 1;
	return writable(pl, p);
}

/* The policy line that would grant dir: "~/..." inside the home. */
static void
policy_line(const struct plan *pl, const char *dir, char *out, size_t n)
{
	size_t hl = strlen(pl->home);

	if (hl && strncmp(dir, pl->home, hl) == 0 && dir[hl] == '/')
		snprintf(out, n, "\"exec\": [\"~%s\"]", dir + hl);
	else
		snprintf(out, n, "\"exec\": [\"%s\"]", dir);
}

/* 1 when s is an npm package name a directory may carry: [@SCOPE/]NAME of
 * lowercase letters, digits and "-._~", neither part starting with '.'. */
static int
npm_name_ok(const char *s, size_t n)
{
	size_t i = 0, part = 0;

	if (n == 0 || n > 214)
		return 0;
	if (s[0] == '@')
		i = 1, part = 1;
	for (size_t start = i; i < n; i++) {
		char c = s[i];
		if (c == '/' && part == 1 && i > start) {
			part = 2;
			start = i + 1;
			continue;
		}
		if (i == start && c == '.')
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~'))
			return 0;
	}
	return part != 1 && s[n - 1] != '/';
}

/* An npm package's platform package (codex's @openai/codex-linux-x64: its
 * launcher runs the binary in it): each "optionalDependencies" name of
 * root/package.json installed beside root, in the same node_modules, whose
 * own package.json names an "os" or "cpu", is granted with it. Nested ones
 * (root/node_modules/...) are inside root already. */
static void __attribute__((noinline))	/* its 20 KB frame not in grant_path's */
npm_siblings(struct gctx *g, const char *root)
{
	char pj[PATH_MAX + 16], nm[PATH_MAX], sib[PATH_MAX * 2], name[256], *buf = NULL, *sbuf;
	struct walk *rw;
	jsmntok_t *t = NULL, st[512];
	size_t len, slen, l = tree_root(root);
	const char *s;
	int n, od, i, m;

	/* root is node_modules/PKG or node_modules/@SCOPE/PKG: nm is that node_modules */
	if (l != strlen(root) || (s = strstr(root, "/node_modules/")) == NULL)
		return;
	while (strstr(s + 1, "/node_modules/"))
		s = strstr(s + 1, "/node_modules/");
	snprintf(nm, sizeof nm, "%.*s", (int)(s - root) + 13, root);
	snprintf(pj, sizeof pj, "%s/package.json", root);
	if (file_read_bounded(AT_FDCWD, pj, 1 << 20, &buf, &len) < 0)
		return;
	if ((t = malloc(16384 * sizeof *t)) == NULL || (rw = malloc(sizeof *rw)) == NULL)
		goto out;
	if ((n = json_parse(buf, len, t, 16384)) < 0 || t[0].type != JSMN_OBJECT ||
	    (od = json_get(buf, t, 0, "optionalDependencies")) < 0 || t[od].type != JSMN_OBJECT) {
		free(rw);
		goto out;
	}
	for (i = od + 1, m = 0; m < t[od].size; m++, i = json_next(t, i + 1)) {
		int sl;
		if ((sl = json_str(buf, &t[i], name, sizeof name)) < 0 || !npm_name_ok(name, (size_t)sl) ||
		    (size_t)snprintf(sib, sizeof sib, "%s/%s", nm, name) >= PATH_MAX)
			continue;
		/* the sibling itself: no link the agent can write, not writable */
		if (walk(g->pl, sib, rw) != 0 || writable(g->pl, rw->real) || strcmp(rw->real, root) == 0)
			continue;
		snprintf(pj, sizeof pj, "%s/package.json", rw->real);
		if (file_read_bounded(AT_FDCWD, pj, 1 << 16, &sbuf, &slen) < 0)
			continue;
		if (json_parse(sbuf, slen, st, sizeof st / sizeof st[0]) > 0 && st[0].type == JSMN_OBJECT &&
		    (json_get(sbuf, st, 0, "os") >= 0 || json_get(sbuf, st, 0, "cpu") >= 0))
			tc_grant(g->pl->home, rw->real, 0, add, g);
		free(sbuf);
	}
	free(rw);
out:
	free(t);
	free(buf);
}

/* p (resolved to real) is in no granted directory: the note says which
 * line would grant it (a frame of its own: grant_path's stays small) */
static void __attribute__((noinline))
note_ungranted(struct gctx *g, const char *p, const char *real)
{
	char line[PATH_MAX + 32], dir[PATH_MAX], *s;

	snprintf(dir, sizeof dir, "%s", real);
	if ((s = strrchr(dir, '/')) != NULL && s != dir)
		*s = '\0';
	policy_line(g->pl, dir, line, sizeof line);
	av_pushf(g->notes, "left out: %s (%s) is in no granted directory; to grant it: %s",
	    p, real, line);
}

/* Grant the trees along the resolution of the absolute path p. */
static int
grant_path(struct gctx *g, const char *p, char *real, size_t realn)
{
	/* static, not on the stack: -fstack-clash-protection touches every
	 * page of a frame on entry (12 for these 48 KB, the deepest of a
	 * plan), here only the pages the walks write are; a malloc this
	 * size is an mmap. grant_path is never reentered (npm_siblings
	 * walks into its own) */
	static struct walk ws[2];
	struct walk *w = &ws[0], *rw = &ws[1];
	int r, grants = 0;

	r = walk(g->pl, p, w);
	if (r == 1) {
		av_pushf(g->notes, "left out: %s is reached through the symbolic link %s, which the agent can write: its target is not granted",
		    w->spell[0], w->link);
		return 0;
	}
	if (r < 0)
		return 0;	/* absent: the chain reports 127 */
	snprintf(real, realn, "%s", w->real);
	/* the final spelling is the real path */
	if (w->n < MAXSPELL)
		strcpy(w->spell[w->n++], w->real);
	for (int i = 0; i < w->n; i++) {
		char root[PATH_MAX], cfg[PATH_MAX + 16], *s;
		size_t l;
		struct stat st;
		int seen = 0;

		/* a spelling met before grants what it granted then (the
		 * final one is often the last link's: /bin/true's /usr/bin/true
		 * twice): its venv probe and walk are not asked again */
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(w->spell[j], w->spell[i]) == 0;
		if (seen)
			continue;
		l = tree_root(w->spell[i]);

		if (l == 0) {
			/* a venv: VENV/bin/PROG beside VENV/pyvenv.cfg */
			snprintf(root, sizeof root, "%s", w->spell[i]);
			if ((s = strrchr(root, '/')) == NULL || s == root)
				continue;
			*s = '\0';
			if ((s = strrchr(root, '/')) == NULL || strcmp(s, "/bin") != 0 || s == root)
				continue;
			*s = '\0';
			snprintf(cfg, sizeof cfg, "%s/pyvenv.cfg", root);
			if (stat(cfg, &st) < 0)
				continue;
		} else {
			snprintf(root, sizeof root, "%.*s", (int)l, w->spell[i]);
		}
		/* the tree itself must not be reached through a link the agent can write */
		if (walk(g->pl, root, rw) != 0 || writable(g->pl, rw->real))
			continue;
		if (tc_grant(g->pl->home, rw->real, 0, add, g) < 0)
			break;
		npm_siblings(g, rw->real);
		grants++;
	}
	if (grants == 0 && !reachable(g->pl, w->real))
		note_ungranted(g, p, w->real);
	return 0;
}

/* CMD is on the user's PATH only, as dir/CMD in a PATH directory of the
 * home that was left out: when dir/CMD is a symbolic link into a package or
 * version directory (~/.local/bin/TOOL -> ~/.local/share/TOOL/versions/V/TOOL),
 * that directory is granted and dir joins the end of the agent's PATH, so
 * the chain finds CMD there; dir itself and its other entries stay
 * ungranted. 1 when granted, 0 when not, -1 (out of memory). */
static int
user_path_grant(struct gctx *g, const char *found, char *real, size_t realn)
{
	struct plan *pl = g->pl;
	char dir[PATH_MAX], *s;
	size_t hl = strlen(pl->home), pn;
	struct stat st;
	int before = g->n;

	snprintf(dir, sizeof dir, "%s", found);
	if (found[0] != '/' || (s = strrchr(dir, '/')) == NULL || s == dir)
		return 0;
	*s = '\0';
	if (!hl || !path_within(dir, pl->home) || strcmp(dir, pl->home) == 0 ||
	    lstat(found, &st) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	if (grant_path(g, found, real, realn) < 0)
		return -1;
	if (g->n == before)
		return 0;
	pn = strlen(pl->path);
	if (pn + strlen(dir) + 2 >= sizeof pl->path)
		return 0;
	if (pn)
		pl->path[pn++] = ':';
	strcpy(pl->path + pn, dir);
	av_pushf(g->notes, "granted: %s on the agent's PATH for %s only: the directory itself stays ungranted",
	    dir, g->what);
	return 1;
}

int
installtree_grant(struct plan *pl, const char *path, const char *user_path, const char *cmd0,
    struct argv *notes)
{
	char found[PATH_MAX], abs[PATH_MAX], real[PATH_MAX], buf[256], prog[PATH_MAX];
	struct gctx g = { pl, notes, cmd0, 0 };
	ssize_t n;
	int fd;

	if (cmd0 == NULL || *cmd0 == '\0')
		return 0;
	if (exec_resolve(cmd0, path ? path : "/usr/bin:/bin", found, sizeof found) < 0) {
		/* tool: not on the agent's PATH; on the user's, linked into a tree */
		real[0] = '\0';
		if (user_path == NULL || strchr(cmd0, '/') ||
		    exec_resolve(cmd0, user_path, found, sizeof found) < 0 ||
		    user_path_grant(&g, found, real, sizeof real) <= 0)
			return notes->err || pl->ex.err ? -1 : 0;	/* not found: the chain says so (127) */
		goto interp;
	}
	if (found[0] != '/') {
		char cwd[PATH_MAX];
		if (getcwd(cwd, sizeof cwd) == NULL ||
		    (size_t)snprintf(abs, sizeof abs, "%s/%s", cwd, found) >= sizeof abs)
			return 0;
	} else {
		snprintf(abs, sizeof abs, "%s", found);
	}
	real[0] = '\0';
	if (grant_path(&g, abs, real, sizeof real) < 0)
		return -1;
interp:
	/* its interpreter: "#!/usr/bin/env node" looked up in the agent's PATH */
	/* openat: musl's open adds an fcntl for O_CLOEXEC */
	if (!real[0] || (fd = openat(AT_FDCWD, real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return notes->err ? -1 : 0;
	n = read(fd, buf, sizeof buf);
	close(fd);
	if (n > 0 && shebang_parse(buf, (size_t)n, prog, sizeof prog) == 0 &&
	    exec_resolve(prog, path ? path : "/usr/bin:/bin", found, sizeof found) == 0 &&
	    found[0] == '/') {
		char what[NAME_MAX + 32];
		snprintf(what, sizeof what, "%s's interpreter", cmd0);
		g.what = what;
		if (grant_path(&g, found, real, sizeof real) < 0)
			return -1;
	}
	return notes->err || pl->ex.err ? -1 : 0;
}
