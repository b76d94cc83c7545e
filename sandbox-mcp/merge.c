/* session_merge: files of another session's checkpoint laid over this
 * session's workspace, as a new checkpoint. Git does it as data, in the
 * history's own index (nothing else of the engine uses it, and every call
 * on a session holds the session's lock): the source's line is fetched, the index made
 * this session's latest checkpoint, the source's entries (all, or the
 * keys) written over it, and the tree that gives checked out the way a
 * rollback is (bounded by max_workspace_mb). I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "ckpt.h"
#include "git.h"
#include "sess.h"
#include "tree.h"
#include "wspath.h"

tool_fn tool_session_merge;

/* key's stored spelling (each component escaped as the history keeps it) */
static int
stored(const char *key, char *out, size_t n)
{
	size_t o = 0;

	while (*key) {
		char comp[WS_PATH_MAX + 1], esc[WS_PATH_MAX + 16];
		size_t l = strcspn(key, "/");
		snprintf(comp, sizeof comp, "%.*s", (int)l, key);
		if (tree_escape(comp, esc, sizeof esc) < 0 || o + strlen(esc) + 2 > n)
			return -1;
		o += (size_t)snprintf(out + o, n - o, "%s%s", o ? "/" : "", esc);
		key += l + (key[l] == '/');
	}
	return 0;
}

static int
git_ok(struct sbx *s, struct sess *ss, const char *const *av, const char *in, size_t inn, struct run_res *r,
    size_t max, char *err, size_t errn)
{
	int rc = git_run(s, ss, av, in, inn, max, r, err, errn);

	if (rc < 0)
		run_res_free(r);
	return rc;
}

int
tool_session_merge(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char src_id[64], cs[CKPT_ID_MAX + 8], cl[SBX_LABEL_MAX + 8], c[CKPT_ID_MAX], h[CKPT_ID_MAX],
	    tree[CKPT_ID_MAX], m[CKPT_ID_MAX], id[CKPT_ID_MAX], spec[WS_PATH_MAX + 256], msg[128], src[4200];
	const char *f[] = { "fetch", "-q", "--no-tags", src, "+refs/heads/main:refs/meta/merge-src", NULL };
	const char *rt[] = { "read-tree", h, NULL };
	const char *wt[] = { "write-tree", NULL };
	const char *ct[] = { "commit-tree", tree, "-p", h, "-m", "session_merge (the overlay)", NULL };
	struct sess from = { .dirfd = -1, .wsfd = -1 }, to = { .dirfd = -1, .wsfd = -1 };
	struct run_res r, ls = { 0 };
	struct buf info = { 0 };
	int keys, nk, made, rc = -1;

	if (arg_str(a, "source_session_id", 1, src_id, sizeof src_id, err, errn) < 0 ||
	    arg_ckpt(a, "source_checkpoint_id", cs, sizeof cs, err, errn) < 0 ||
	    arg_str(a, "source_checkpoint_label", 0, cl, sizeof cl, err, errn) < 0 ||
	    (keys = arg_tok(a, "keys", JSMN_ARRAY, 0, err, errn)) == -2)
		return -1;
	nk = keys >= 0 ? a->t[keys].size : 0;
	if (nk > WS_PATHS_MAX)
		return sbx_err(err, errn, "more than %d keys", WS_PATHS_MAX);
	for (int i = 0; i < nk; i++) {
		char k[WS_PATH_MAX + 1];
		if (arg_tokstr(a, arg_elem(a, keys, i), "a key", k, sizeof k, err, errn) < 0 ||
		    ws_path_check(k, err, errn) < 0)
			return -1;
	}
	if (cl[0])
		cs[0] = '\0';	/* as drun: the label wins */
	if (sess_open(s, src_id, &from, err, errn) < 0)
		return -1;
	if ((cs[0] || cl[0] ? ckpt_resolve(s, &from, cs, cl, c, err, errn) : ckpt_head(s, &from, c, err, errn)) < 0)
		goto out;
	snprintf(src, sizeof src, "%s", from.git);
	if (sess_pick(s, a, &to, err, errn) < 0)
		goto out;
	if (strcmp(to.id, from.id) == 0) {
		sbx_err(err, errn, "session %s is the session merged into: give another source_session_id", from.id);
		goto out;
	}
	/* the workspace as it is, kept first */
	if (ckpt_commit(s, &to, "before session_merge", h, &made, err, errn) < 0 ||
	    git_ok(s, &to, f, NULL, 0, &r, 0, err, errn) < 0)
		goto out;
	run_res_free(&r);
	if (git_ok(s, &to, rt, NULL, 0, &r, 0, err, errn) < 0)
		goto out;
	run_res_free(&r);
	for (int i = 0; i < (nk ? nk : 1); i++) {
		char k[WS_PATH_MAX + 1], st[WS_PATH_MAX + 64];
		const char *l[] = { "ls-tree", "-r", "-z", "--full-tree", c, "--", spec, NULL };
		if (nk) {
			arg_tokstr(a, arg_elem(a, keys, i), "a key", k, sizeof k, err, errn);
			if (stored(k, st, sizeof st) < 0) {
				sbx_err(err, errn, "key %s: too long", k);
				goto out;
			}
			snprintf(spec, sizeof spec, ":(literal)%s", st);
		} else {
			l[5] = NULL;
		}
		if (git_ok(s, &to, l, NULL, 0, &ls, 64 << 20, err, errn) < 0)
			goto out;
		if (ls.out_bytes > ls.out.len) {
			run_res_free(&ls);
			sbx_err(err, errn, "the source's file list is too long");
			goto out;
		}
		if (nk && ls.out.len == 0) {
			run_res_free(&ls);
			sbx_err(err, errn, "key %s: not in checkpoint %.12s of session %s", k, c, from.id);
			goto out;
		}
		buf_add(&info, ls.out.p ? ls.out.p : "", ls.out.len);
		run_res_free(&ls);
	}
	{
		const char *ui[] = { "update-index", "-z", "--index-info", NULL };
		if (git_ok(s, &to, ui, info.p ? info.p : "", info.len, &r, 0, err, errn) < 0)
			goto out;
		run_res_free(&r);
	}
	if (git_line(s, &to, wt, tree, sizeof tree, err, errn) < 0 || git_line(s, &to, ct, m, sizeof m, err, errn) < 0 ||
	    ckpt_checkout(s, &to, m, err, errn) < 0)
		goto out;
	snprintf(msg, sizeof msg, "session_merge from %s at %.12s", from.id, c);
	if (ckpt_commit(s, &to, msg, id, &made, err, errn) < 0)
		goto out;
	jw_key(out, "session_id");
	jw_str(out, to.id);
	jw_key(out, "source_session_id");
	jw_str(out, from.id);
	jw_key(out, "source_checkpoint_id");
	jw_str(out, c);
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
	jw_key(out, "new_checkpoint");
	jw_bool(out, made);
	rc = 0;
out:
	buf_free(&info);
	sess_release(&from);
	sess_release(&to);
	return rc;
}
