/* session_export: workspace files copied out beneath export_root, by
 * descriptor from the export root down, never through a symbolic link.
 * Nothing that would make the user's tools run code lands there: no git
 * control file at any depth (a .git directory or file, a directory git
 * would take for a repository, the hooks directory core.hooksPath names),
 * none of the files corral's after-run report knows (lib/runrules.c). An
 * export into the user's repository never touches its .git. What was left
 * out is answered, each with its reason. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "copy.h"
#include "fdio.h"
#include "path.h"
#include "rmtree.h"
#include "runrules.h"
#include "sess.h"
#include "wspath.h"

tool_fn tool_session_export;

enum { LEFT_OUT_SHOWN = 200 };

struct xctx {
	char dest[PATH_MAX + WS_PATH_MAX + 2];	/* the output directory, absolute */
	char hooks[2 * PATH_MAX + 16];		/* the hooks directory core.hooksPath names there, "" none */
	struct jw lo;			/* left_out's elements */
	long nlo;
};

static const char why_dotgit[] = "a git control file: git takes it for a repository and runs what its config and hooks name";
static const char why_gitdir[] = "a directory git would take for a repository (HEAD, objects, refs): git run in it reads its config";
static const char why_hooks[] = "core.hooksPath names this directory: git runs what is in it as hooks";

static void
left_out(struct xctx *x, const char *rel, const char *why)
{
	if (x->nlo++ >= LEFT_OUT_SHOWN)
		return;
	jw_open(&x->lo, '{');
	jw_key(&x->lo, "path");
	jw_str(&x->lo, rel[0] ? rel : ".");
	jw_key(&x->lo, "reason");
	jw_str(&x->lo, why);
	jw_close(&x->lo, '}');
}

/* 1 when directory pfd/name holds HEAD, objects and refs (git's test) */
static int
looks_gitdir(int pfd, const char *name)
{
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;
	struct stat st;

	if (fd < 0)
		return 0;
	r = fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 && fstatat(fd, "objects", &st, 0) == 0 &&
	    fstatat(fd, "refs", &st, 0) == 0;
	close(fd);
	return r;
}

static int
skip(void *ctx, const char *rel, int pfd, const char *name, const struct stat *st)
{
	struct xctx *x = ctx;
	char full[sizeof x->dest + WS_PATH_MAX + 2];
	int i;

	/* any component: a key may name a path through one */
	for (const char *c = rel; *c; c += strcspn(c, "/"), c += *c == '/') {
		char comp[256];
		snprintf(comp, sizeof comp, "%.*s", (int)strcspn(c, "/"), c);
		if (runrules_is_dotgit(comp))
			return left_out(x, rel, why_dotgit), 1;
	}
	if (S_ISDIR(st->st_mode) && looks_gitdir(pfd, name))
		return left_out(x, rel, why_gitdir), 1;
	snprintf(full, sizeof full, "%s%s%s", x->dest, rel[0] ? "/" : "", rel);
	if (x->hooks[0] && path_within(full, x->hooks))
		return left_out(x, rel, why_hooks), 1;
	if (!S_ISDIR(st->st_mode) && (i = runrules_match_deep(rel)) >= 0)
		return left_out(x, rel, runrules_what(i)), 1;
	return 0;
}

/* The hooks directory git would use for files under dest: core.hooksPath
 * from the user's git configs and the repository dest lies in (its .git
 * directory, or the gitdir a .git file names), made absolute. */
static void
hooks_dir(struct sbx *s, struct xctx *x)
{
	char top[sizeof x->dest], p[sizeof x->dest + 64], v[PATH_MAX] = "", *e;
	struct stat st;

	if (s->home[0]) {
		snprintf(p, sizeof p, "%s/.gitconfig", s->home);
		runrules_hooks_from(p, v, sizeof v);
		snprintf(p, sizeof p, "%s/.config/git/config", s->home);
		runrules_hooks_from(p, v, sizeof v);
	}
	snprintf(top, sizeof top, "%s", x->dest);
	for (;;) {
		snprintf(p, sizeof p, "%s/.git", top);
		if (lstat(p, &st) == 0)
			break;
		if ((e = strrchr(top, '/')) == NULL || e == top) {
			top[0] = '\0';
			break;
		}
		*e = '\0';
	}
	if (top[0] && S_ISDIR(st.st_mode)) {
		snprintf(p, sizeof p, "%s/.git/config", top);
		runrules_hooks_from(p, v, sizeof v);
	} else if (top[0] && S_ISREG(st.st_mode)) {
		char *buf, gd[PATH_MAX];
		size_t len;
		if (file_read_bounded(AT_FDCWD, p, 4096, &buf, &len) == 0) {
			if (strncmp(buf, "gitdir: ", 8) == 0) {
				buf[strcspn(buf, "\r\n")] = '\0';
				if (buf[8] == '/')
					snprintf(gd, sizeof gd, "%s", buf + 8);
				else
					snprintf(gd, sizeof gd, "%s/%s", top, buf + 8);
				snprintf(p, sizeof p, "%s/commondir", gd);
				free(buf);
				if (file_read_bounded(AT_FDCWD, p, 4096, &buf, &len) == 0) {
					buf[strcspn(buf, "\r\n")] = '\0';
					if (buf[0] == '/')
						snprintf(p, sizeof p, "%s/config", buf);
					else
						snprintf(p, sizeof p, "%s/%s/config", gd, buf);
					runrules_hooks_from(p, v, sizeof v);
				}
				snprintf(p, sizeof p, "%s/config", gd);
				runrules_hooks_from(p, v, sizeof v);
			}
			free(buf);
		}
	}
	if (v[0] == '\0')
		return;
	if (v[0] == '/')
		snprintf(x->hooks, sizeof x->hooks, "%s", v);
	else if (strncmp(v, "~/", 2) == 0 && s->home[0])
		snprintf(x->hooks, sizeof x->hooks, "%s/%s", s->home, v + 2);
	else if (top[0])
		snprintf(x->hooks, sizeof x->hooks, "%s/%s", top, v);
	/* a clean path: git's own resolution of "a/./b", "a/" */
	for (size_t l = strlen(x->hooks); l > 1 && x->hooks[l - 1] == '/'; l--)
		x->hooks[l - 1] = '\0';
	if (strlen(x->hooks) < PATH_MAX && realpath(x->hooks, v) != NULL)
		snprintf(x->hooks, sizeof x->hooks, "%s", v);
}

/* The directory rel beneath rootfd, created as needed ("" is the root). */
static int
dir_beneath(int rootfd, const char *rel)
{
	char p[WS_PATH_MAX + 8];
	const char *base;

	if (rel[0] == '\0')
		return openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof p, "%s/x", rel);
	return ws_parent(rootfd, p, 1, &base);
}

static int
export_root(struct sbx *s, const char *what, const char *outdir, char *root, const char **rel, char *err, size_t errn)
{
	if (s->cfg.export_root == NULL)
		return sbx_err(err, errn, "export is off: set \"export_root\" in %s", s->cfgpath);
	if (realpath(s->cfg.export_root, root) == NULL)
		return sbx_err(err, errn, "export_root %s: %s", s->cfg.export_root, strerror(errno));
	if (path_within(s->store, root) || path_within(root, s->store) ||
	    (s->home[0] && path_within(s->home, root)))
		return sbx_err(err, errn, "export_root %s holds the store or the home: export refused", root);
	if (outdir[0] == '/') {
		if (!path_within(outdir, root))
			return sbx_err(err, errn, "%s %s is not beneath export_root %s", what, outdir, root);
		*rel = outdir + strlen(root);
		while (**rel == '/')
			(*rel)++;
	} else {
		*rel = outdir;
	}
	if (**rel && ws_path_check(*rel, err, errn) < 0)
		return -1;
	for (const char *c = *rel; *c; c += strcspn(c, "/"), c += *c == '/')
		if (strcspn(c, "/") == 4 && strncasecmp(c, ".git", 4) == 0)
			return sbx_err(err, errn, "%s %s is in a .git directory: never touched (git control files)", what, outdir);
	return 0;
}

int
tool_session_export(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char outdir[PATH_MAX], root[PATH_MAX], key[WS_PATH_MAX + 1];
	const char *rel = "";
	int keys, rootfd = -1, dfd = -1, rc = -1, nk;
	struct copy_opt o = { .fmode = 0644, .skip = skip };
	struct xctx *x = calloc(1, sizeof *x);
	struct sess ss;

	if (x == NULL)
		return sbx_err(err, errn, "out of memory");
	o.ctx = x;

	if (arg_str(a, "output_dir", 1, outdir, sizeof outdir, err, errn) < 0 ||
	    (keys = arg_tok(a, "keys", JSMN_ARRAY, 0, err, errn)) == -2 ||
	    export_root(s, "output_dir", outdir, root, &rel, err, errn) < 0)
		return free(x), -1;
	nk = keys >= 0 ? a->t[keys].size : 0;
	if (nk > WS_PATHS_MAX)
		return free(x), sbx_err(err, errn, "more than %d keys", WS_PATHS_MAX);
	for (int i = 0; i < nk; i++)
		if (arg_tokstr(a, arg_elem(a, keys, i), "a key", key, sizeof key, err, errn) < 0 ||
		    ws_path_check(key, err, errn) < 0)
			return free(x), -1;
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return free(x), -1;
	snprintf(x->dest, sizeof x->dest, "%s%s%s", root, rel[0] ? "/" : "", rel);
	hooks_dir(s, x);
	jw_open(&x->lo, '[');
	o.budget = s->cfg.max_workspace_mb << 20;
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (dfd = dir_beneath(rootfd, rel)) < 0) {
		sbx_err(err, errn, "output_dir %s/%s: %s", root, rel, ws_strerror(errno));
		goto out;
	}
	jw_key(out, "exported");
	jw_open(out, '[');
	for (int i = 0; i < (nk ? nk : 1); i++) {
		const char *sb, *db;
		int sp, dp;
		if (nk)
			arg_tokstr(a, arg_elem(a, keys, i), "a key", key, sizeof key, err, errn);
		if (nk == 0) {
			/* no keys: the whole workspace */
			sp = openat(ss.wsfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			dp = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			sb = db = ".";
			strcpy(key, ".");
			o.rel[0] = '\0';
		} else {
			snprintf(o.rel, sizeof o.rel, "%s", key);
			sp = ws_parent(ss.wsfd, key, 0, &sb);
			dp = sp >= 0 ? ws_parent(dfd, key, 1, &db) : -1;
		}
		if (sp < 0 || dp < 0 || copy_at(sp, sb, dp, db, &o) < 0) {
			int e = errno;
			if (sp >= 0) close(sp);
			if (dp >= 0) close(dp);
			jw_close(out, ']');
			sbx_err(err, errn, "%s: %s", key, e == EFBIG ? "over max_workspace_mb" : ws_strerror(e));
			goto out;
		}
		close(sp);
		close(dp);
		jw_str(out, key);
	}
	jw_close(out, ']');
	jw_key(out, "output_dir");
	{
		char full[PATH_MAX + WS_PATH_MAX + 2];
		snprintf(full, sizeof full, "%s%s%s", root, rel[0] ? "/" : "", rel);
		jw_str(out, full);
	}
	copy_counts_json(out, &o);
	jw_close(&x->lo, ']');
	jw_key(out, "left_out");
	jw_raw(out, x->lo.b.p ? x->lo.b.p : "[]", x->lo.b.p ? x->lo.b.len : 2);
	jw_key(out, "left_out_count");
	jw_int(out, x->nlo);
	if (x->lo.err)
		out->err = 1;
	rc = 0;
out:
	buf_free(&x->lo.b);
	free(x);
	if (dfd >= 0)
		close(dfd);
	if (rootfd >= 0)
		close(rootfd);
	sess_release(&ss);
	return rc;
}

/* delete_from_host: drun's one way to delete on the host, kept on export's
 * ground: only beneath export_root (never the root itself, never a .git
 * component), reached component by component without following a link;
 * a link itself is removed, never what it names; a directory goes with
 * rmtree_at, which never follows one either. Gone already: a no-op. */
int
tool_delete_from_host(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char path[PATH_MAX], root[PATH_MAX];
	const char *rel = "", *base;
	int rootfd, pfd, rc = -1;
	struct stat st;

	if (arg_str(a, "path", 1, path, sizeof path, err, errn) < 0 ||
	    export_root(s, "path", path, root, &rel, err, errn) < 0)
		return -1;
	if (rel[0] == '\0')
		return sbx_err(err, errn, "path %s is export_root itself: refused (name what to delete beneath it)", path);
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return sbx_err(err, errn, "export_root %s: %s", root, strerror(errno));
	jw_key(out, "path");
	{
		char full[PATH_MAX + WS_PATH_MAX + 2];
		snprintf(full, sizeof full, "%s/%s", root, rel);
		jw_str(out, full);
	}
	if ((pfd = ws_parent(rootfd, rel, 0, &base)) < 0 || fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int e = errno;
		if (e == ENOENT) {
			jw_key(out, "deleted");
			jw_bool(out, 0);
			jw_key(out, "note");
			jw_str(out, "not there: nothing to do");
			rc = 0;
		} else {
			sbx_err(err, errn, "%s: %s", path, ws_strerror(e));
		}
		goto out;
	}
	if ((S_ISDIR(st.st_mode) ? rmtree_at(pfd, base) : unlinkat(pfd, base, 0)) < 0) {
		sbx_err(err, errn, "%s: %s", path, strerror(errno));
		goto out;
	}
	jw_key(out, "deleted");
	jw_bool(out, 1);
	jw_key(out, "kind");
	jw_str(out, S_ISDIR(st.st_mode) ? "directory" : S_ISLNK(st.st_mode) ? "symbolic link (the link only)" : "file");
	rc = 0;
out:
	if (pfd >= 0)
		close(pfd);
	close(rootfd);
	return rc;
}
