/* session_export: workspace files copied out beneath export_root, by
 * descriptor from the export root down, never through a symbolic link. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "copy.h"
#include "path.h"
#include "sess.h"
#include "wspath.h"

tool_fn tool_session_export;

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
export_root(struct sbx *s, const char *outdir, char *root, const char **rel, char *err, size_t errn)
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
			return sbx_err(err, errn, "output_dir %s is not beneath export_root %s", outdir, root);
		*rel = outdir + strlen(root);
		while (**rel == '/')
			(*rel)++;
	} else {
		*rel = outdir;
	}
	if (**rel && ws_path_check(*rel, err, errn) < 0)
		return -1;
	return 0;
}

int
tool_session_export(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char outdir[PATH_MAX], root[PATH_MAX], key[WS_PATH_MAX + 1];
	const char *rel = "";
	int keys, rootfd = -1, dfd = -1, rc = -1, nk;
	struct copy_opt o = { .fmode = 0644 };
	struct sess ss;

	if (arg_str(a, "output_dir", 1, outdir, sizeof outdir, err, errn) < 0 ||
	    (keys = arg_tok(a, "keys", JSMN_ARRAY, 0, err, errn)) == -2 ||
	    export_root(s, outdir, root, &rel, err, errn) < 0)
		return -1;
	nk = keys >= 0 ? a->t[keys].size : 0;
	if (nk > WS_PATHS_MAX)
		return sbx_err(err, errn, "more than %d keys", WS_PATHS_MAX);
	for (int i = 0; i < nk; i++)
		if (arg_tokstr(a, arg_elem(a, keys, i), "a key", key, sizeof key, err, errn) < 0 ||
		    ws_path_check(key, err, errn) < 0)
			return -1;
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
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
		} else {
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
	rc = 0;
out:
	if (dfd >= 0)
		close(dfd);
	if (rootfd >= 0)
		close(rootfd);
	sess_release(&ss);
	return rc;
}
