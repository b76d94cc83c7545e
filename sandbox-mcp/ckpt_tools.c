/* The checkpoint tools: history, diff, rollback, labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "ckpt.h"
#include "git.h"
#include "tree.h"
#include "wspath.h"

enum { DIFF_MAX = 1 << 20, HIST_MAX = 4 << 20 };
#define EMPTY_TREE "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

/* refs/tags: "ID LABEL" lines */
static void
labels_of(struct sbx *s, struct sess *ss, struct run_res *r)
{
	const char *a[] = { "for-each-ref", "--format=%(objectname) %(refname:strip=2)", "refs/tags", NULL };
	char e2[SBX_ERR_MAX];

	git_run(s, ss, a, NULL, 0, 0, r, e2, sizeof e2);
}

static void
labels_for(struct jw *w, const struct run_res *tags, const char *id)
{
	const char *p = tags->out.p ? tags->out.p : "";
	size_t il = strlen(id);

	jw_key(w, "labels");
	jw_open(w, '[');
	while (*p) {
		size_t l = strcspn(p, "\n");
		if (l > il + 1 && strncmp(p, id, il) == 0 && p[il] == ' ')
			jw_strn(w, p + il + 1, l - il - 1);
		p += l + (p[l] == '\n');
	}
	jw_close(w, ']');
}

/* "checkpoints": the line, newest first, with numbers and labels */
static int
history_json(struct sbx *s, struct sess *ss, struct jw *out, char *err, size_t errn)
{
	const char *lg[] = { "log", "--no-color", "--format=%H%x1f%ct%x1f%s", "refs/heads/main", NULL };
	struct run_res r, tags;
	const char *p;
	long num = 0;

	if (git_run(s, ss, lg, NULL, 0, HIST_MAX, &r, err, errn) < 0) {
		run_res_free(&r);
		return -1;
	}
	labels_of(s, ss, &tags);
	jw_key(out, "checkpoints");
	jw_open(out, '[');
	for (p = r.out.p ? r.out.p : ""; *p; p++)
		num += *p == '\n';
	for (p = r.out.p ? r.out.p : ""; *p; ) {
		size_t l = strcspn(p, "\n");
		char line[512], *f1, *f2;
		snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line ? l : sizeof line - 1), p);
		p += l + (p[l] == '\n');
		if ((f1 = strchr(line, '\x1f')) == NULL || (f2 = strchr(f1 + 1, '\x1f')) == NULL)
			continue;
		*f1++ = '\0';
		*f2++ = '\0';
		jw_open(out, '{');
		jw_key(out, "checkpoint_id");
		jw_str(out, line);
		jw_key(out, "number");
		jw_int(out, --num);
		jw_key(out, "time");
		jw_int(out, strtoll(f1, NULL, 10));
		jw_key(out, "message");
		jw_str(out, f2);
		labels_for(out, &tags, line);
		jw_close(out, '}');
	}
	jw_close(out, ']');
	run_res_free(&r);
	run_res_free(&tags);
	return 0;
}

int
tool_session_history(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	struct sess ss;
	int rc;

	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	jw_key(out, "session_id");
	jw_str(out, ss.id);
	rc = history_json(s, &ss, out, err, errn);
	sess_release(&ss);
	return rc;
}

void
ckpt_describe(struct sbx *s, struct sess *ss, struct jw *out)
{
	char cur[SBX_ID_LEN + 1], e2[SBX_ERR_MAX];

	jw_key(out, "session_id");
	jw_str(out, ss->id);
	jw_key(out, "label");
	if (ss->label[0]) jw_str(out, ss->label); else jw_null(out);
	jw_key(out, "current");
	jw_bool(out, sess_current(s, cur) == 0 && strcmp(cur, ss->id) == 0);
	if (ss->parent[0]) {
		jw_key(out, "forked_from");
		jw_str(out, ss->parent);
	}
	if (history_json(s, ss, out, e2, sizeof e2) < 0) {
		jw_key(out, "checkpoints");
		jw_null(out);
	}
}

int
tool_session_diff(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char from[CKPT_ID_MAX + 8], to[CKPT_ID_MAX + 8], fid[CKPT_ID_MAX], tid[CKPT_ID_MAX], wip[CKPT_ID_MAX],
	    fl[SBX_LABEL_MAX + 8], tl[SBX_LABEL_MAX + 8];
	const char *argv[WS_PATHS_MAX + 16];
	char (*paths)[WS_PATH_MAX + 16] = NULL;
	struct run_res r;
	struct sess ss;
	int np = 0, n = 0, rc = -1, arr, to_head = 0;

	if (arg_ckpt(a, "from_checkpoint_id", from, sizeof from, err, errn) < 0 ||
	    arg_ckpt(a, "to_checkpoint_id", to, sizeof to, err, errn) < 0 ||
	    arg_str(a, "from_checkpoint_label", 0, fl, sizeof fl, err, errn) < 0 ||
	    arg_str(a, "to_checkpoint_label", 0, tl, sizeof tl, err, errn) < 0)
		return -1;
	/* as drun: a label wins over an id */
	if (fl[0])
		from[0] = '\0';
	if (tl[0])
		to[0] = '\0';
	if ((arr = arg_tok(a, "paths", JSMN_ARRAY, 0, err, errn)) == -2)
		return -1;
	if (arr >= 0 && a->t[arr].size > WS_PATHS_MAX)
		return sbx_err(err, errn, "more than %d paths", WS_PATHS_MAX);
	if (arr >= 0 && (paths = calloc((size_t)a->t[arr].size + 1, sizeof *paths)) == NULL)
		return sbx_err(err, errn, "out of memory");
	for (int i = 0; arr >= 0 && i < a->t[arr].size; i++) {
		char p[WS_PATH_MAX + 1];
		if (arg_tokstr(a, arg_elem(a, arr, i), "a path", p, sizeof p, err, errn) < 0 ||
		    ws_path_check(p, err, errn) < 0)
			goto out;
		snprintf(paths[np++], WS_PATH_MAX + 16, ":(literal)%s", p);
	}
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out;
	if (from[0] || fl[0] ? ckpt_resolve(s, &ss, from, fl, fid, err, errn) < 0 :
	    ckpt_head(s, &ss, fid, err, errn) < 0)
		goto rel;
	if (tl[0])
		strcpy(to, tl);		/* below: to[0] says "a named end" */
	if (to[0]) {
		if (ckpt_resolve(s, &ss, tl[0] ? NULL : to, tl, tid, err, errn) < 0)
			goto rel;
	} else {
		/* to the workspace as it is now, as a commit off the line; when
		 * it is the latest checkpoint and no from was given, what that
		 * checkpoint changed (a diff of {} is never empty for nothing) */
		char head[CKPT_ID_MAX];
		int same;
		if (tree_commit(s, &ss, fid, "workspace", wip, &same, err, errn) < 0)
			goto rel;
		if (same && !from[0] && !fl[0]) {
			const char *pa[] = { "rev-parse", "-q", "--verify", "refs/heads/main~1^{commit}", NULL };
			char e2[SBX_ERR_MAX];
			strcpy(head, fid);
			if (git_line(s, &ss, pa, fid, sizeof fid, e2, sizeof e2) < 0)
				strcpy(fid, EMPTY_TREE);
			strcpy(wip, head);
			strcpy(tid, head);
			to_head = 1;
		}
	}
	argv[n++] = "diff";
	argv[n++] = "--no-color";
	argv[n++] = "--no-ext-diff";
	argv[n++] = "--no-textconv";
	argv[n++] = "--binary";
	argv[n++] = fid;
	argv[n++] = to[0] ? tid : wip;
	argv[n++] = "--";
	for (int i = 0; i < np; i++)
		argv[n++] = paths[i];
	argv[n] = NULL;
	if (git_run(s, &ss, argv, NULL, 0, DIFF_MAX, &r, err, errn) == 0) {
		jw_key(out, "from_checkpoint_id");
		jw_str(out, fid);
		jw_key(out, "to_checkpoint_id");
		if (to[0] || to_head) jw_str(out, tid); else jw_null(out);
		jw_key(out, "diff");
		jw_strn(out, r.out.p ? r.out.p : "", r.out.len);
		jw_key(out, "bytes");
		jw_int(out, (int64_t)r.out_bytes);
		jw_key(out, "truncated");
		jw_bool(out, r.out_bytes > r.out.len);
		rc = 0;
	}
	run_res_free(&r);
rel:
	sess_release(&ss);
out:
	free(paths);
	return rc;
}

int
tool_session_rollback(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char id[CKPT_ID_MAX + 8], label[SBX_LABEL_MAX + 8], to[CKPT_ID_MAX], before[CKPT_ID_MAX],
	    now[CKPT_ID_MAX], msg[128];
	struct sess ss;
	int made, rc = -1;

	if (arg_ckpt(a, "checkpoint_id", id, sizeof id, err, errn) < 0 ||
	    arg_str(a, "checkpoint_label", 0, label, sizeof label, err, errn) < 0)
		return -1;
	if (label[0])
		id[0] = '\0';	/* as drun: the label wins */
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	if (ckpt_resolve(s, &ss, id, label, to, err, errn) < 0)
		goto out;
	/* what the workspace holds now is kept as a checkpoint first */
	if (ckpt_commit(s, &ss, "before rollback", before, &made, err, errn) < 0 ||
	    ckpt_checkout(s, &ss, to, err, errn) < 0)
		goto out;
	snprintf(msg, sizeof msg, "rollback to %.12s", to);
	if (ckpt_commit(s, &ss, msg, now, &made, err, errn) < 0)
		goto out;
	jw_key(out, "rolled_back_to");
	jw_str(out, to);
	jw_key(out, "checkpoint_id");
	jw_str(out, now);
	jw_key(out, "previous_checkpoint_id");
	jw_str(out, before);
	rc = 0;
out:
	sess_release(&ss);
	return rc;
}

int
tool_session_checkpoint_label(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char id[CKPT_ID_MAX + 8], label[SBX_LABEL_MAX + 8], full[CKPT_ID_MAX], ref[SBX_LABEL_MAX + 32];
	const char *ur[] = { "update-ref", "-m", "label", ref, full, NULL };
	struct run_res r;
	struct sess ss;
	int rc = -1;

	if (arg_ckpt(a, "checkpoint_id", id, sizeof id, err, errn) < 0 ||
	    arg_str(a, "label", 1, label, sizeof label, err, errn) < 0)
		return -1;
	if (!ckpt_label_ok(label))
		return sbx_err(err, errn, "label %s: use 1-64 of A-Z a-z 0-9 . _ - (not starting with . or -)", label);
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	if (id[0]) {
		if (ckpt_resolve(s, &ss, id, NULL, full, err, errn) < 0)
			goto out;
	} else if (ckpt_head(s, &ss, full, err, errn) < 0) {
		goto out;
	}
	snprintf(ref, sizeof ref, "refs/tags/%s", label);
	if (git_run(s, &ss, ur, NULL, 0, 0, &r, err, errn) == 0) {
		jw_key(out, "checkpoint_id");
		jw_str(out, full);
		jw_key(out, "label");
		jw_str(out, label);
		rc = 0;
	}
	run_res_free(&r);
out:
	sess_release(&ss);
	return rc;
}

/* The line's ids, oldest first, into ids (at most max); the count or -1. */
static int
line_ids(struct sbx *s, struct sess *ss, char (*ids)[41], int max, char *err, size_t errn)
{
	const char *a[] = { "rev-list", "--reverse", "refs/heads/main", NULL };
	struct run_res r;
	const char *p;
	int n = 0;

	if (git_run(s, ss, a, NULL, 0, HIST_MAX, &r, err, errn) < 0) {
		run_res_free(&r);
		return -1;
	}
	for (p = r.out.p ? r.out.p : ""; *p && n < max; n++) {
		snprintf(ids[n], 41, "%.40s", p);
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	run_res_free(&r);
	return n;
}

/* squash (1) or drop (0) checkpoints from..to: the history is regrafted
 * (git replace --graft, as max_checkpoints prunes it), so no id changes:
 * drop hangs the one after to on the one before from; squash hangs to
 * itself there, keeping its files (each checkpoint is a whole tree).
 * Labels of the checkpoints taken out go. */
static int
regraft(struct sbx *s, const struct targs *a, struct jw *out, int squash, char *err, size_t errn)
{
	char fs[CKPT_ID_MAX + 8], ts[CKPT_ID_MAX + 8], f[CKPT_ID_MAX], t[CKPT_ID_MAX], label[SBX_LABEL_MAX + 8],
	    (*ids)[41] = NULL, ref[SBX_LABEL_MAX + 32];
	struct run_res r, tags;
	struct sess ss;
	long fn, tn;
	int n, rc = -1;

	if (arg_ckpt(a, "from_checkpoint_id", fs, sizeof fs, err, errn) < 0 ||
	    arg_ckpt(a, "to_checkpoint_id", ts, sizeof ts, err, errn) < 0 ||
	    (squash && arg_str(a, "label", 0, label, sizeof label, err, errn) < 0))
		return -1;
	if (!fs[0] || !ts[0])
		return sbx_err(err, errn, "arguments \"from_checkpoint_id\" and \"to_checkpoint_id\" are required");
	if (squash && label[0] && !ckpt_label_ok(label))
		return sbx_err(err, errn, "label %s: use 1-64 of A-Z a-z 0-9 . _ - (not starting with . or -)", label);
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	if (ckpt_resolve(s, &ss, fs, NULL, f, err, errn) < 0 || ckpt_resolve(s, &ss, ts, NULL, t, err, errn) < 0)
		goto out;
	fn = ckpt_number(s, &ss, f);
	tn = ckpt_number(s, &ss, t);
	if ((ids = calloc(8192, sizeof *ids)) == NULL || (n = line_ids(s, &ss, ids, 8192, err, errn)) < 0) {
		if (!err[0])
			sbx_err(err, errn, "out of memory");
		goto out;
	}
	if (fn < 1 || tn < fn || tn >= n) {
		sbx_err(err, errn, "checkpoints %ld to %ld: the range must start at 1 or later (0 is the baseline diff compares against) and not end before it starts",
		    fn, tn);
		goto out;
	}
	if (!squash && tn == n - 1) {
		sbx_err(err, errn, "checkpoint %ld is the latest: it cannot be dropped", tn);
		goto out;
	}
	{
		const char *g[] = { "replace", "-f", "--graft", squash ? ids[tn] : ids[tn + 1], ids[fn - 1], NULL };
		if (git_run(s, &ss, g, NULL, 0, 0, &r, err, errn) < 0) {
			run_res_free(&r);
			goto out;
		}
		run_res_free(&r);
	}
	/* the labels of what left the line */
	labels_of(s, &ss, &tags);
	for (const char *p = tags.out.p ? tags.out.p : ""; *p; ) {
		size_t l = strcspn(p, "\n");
		for (long k = fn; k <= tn - squash && l > 41; k++)
			if (strncmp(p, ids[k], 40) == 0 && p[40] == ' ') {
				const char *d[] = { "update-ref", "-d", ref, NULL };
				snprintf(ref, sizeof ref, "refs/tags/%.*s", (int)(l - 41 < SBX_LABEL_MAX ? l - 41 : SBX_LABEL_MAX), p + 41);
				git_run(s, &ss, d, NULL, 0, 0, &r, err, errn);
				run_res_free(&r);
			}
		p += l + (p[l] == '\n');
	}
	run_res_free(&tags);
	if (squash && label[0]) {
		const char *u[] = { "update-ref", "-m", "label", ref, t, NULL };
		snprintf(ref, sizeof ref, "refs/tags/%s", label);
		if (git_run(s, &ss, u, NULL, 0, 0, &r, err, errn) < 0) {
			run_res_free(&r);
			goto out;
		}
		run_res_free(&r);
	}
	err[0] = '\0';
	jw_key(out, squash ? "squashed" : "dropped");
	jw_int(out, tn - fn + !squash);
	jw_key(out, "session_id");
	jw_str(out, ss.id);
	rc = history_json(s, &ss, out, err, errn);
out:
	free(ids);
	sess_release(&ss);
	return rc;
}

int
tool_session_checkpoint_squash(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	return regraft(s, a, out, 1, err, errn);
}

int
tool_session_checkpoint_drop(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	return regraft(s, a, out, 0, err, errn);
}
