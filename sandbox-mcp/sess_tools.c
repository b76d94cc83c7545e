/* The session tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "fdio.h"
#include "ckpt.h"
#include "git.h"
#include "sess.h"
#include "streams.h"
#include "snap.h"
#include "wsscan.h"

static void
describe(struct sbx *s, struct sess *ss, struct jw *out, int full)
{
	char cur[SBX_ID_LEN + 1], head[CKPT_ID_MAX], e2[SBX_ERR_MAX];

	jw_key(out, "session_id");
	jw_str(out, ss->id);
	jw_key(out, "label");
	if (ss->label[0]) jw_str(out, ss->label); else jw_null(out);
	jw_key(out, "created");
	jw_int(out, ss->created / 1000000000);
	jw_key(out, "last_used");
	jw_int(out, ss->used);
	jw_key(out, "current");
	jw_bool(out, sess_current(s, cur) == 0 && strcmp(cur, ss->id) == 0);
	if (ss->parent[0]) {
		jw_key(out, "forked_from");
		jw_str(out, ss->parent);
	}
	if (!full)
		return;
	jw_key(out, "workspace_bytes");
	jw_int(out, ws_usage(ss->wsfd));
	jw_key(out, "max_workspace_bytes");
	jw_int(out, s->cfg.max_workspace_mb << 20);
	jw_key(out, "checkpoints");
	jw_int(out, ckpt_count(s, ss));
	jw_key(out, "checkpoint_id");
	if (ckpt_head(s, ss, head, e2, sizeof e2) == 0) jw_str(out, head); else jw_null(out);
	jw_key(out, "idle_timeout_secs");
	jw_int(out, s->cfg.session_idle_timeout_secs);
}

int
tool_create_session(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char label[SBX_LABEL_MAX + 8];
	struct sess ss;

	if (arg_str(a, "label", 0, label, sizeof label, err, errn) < 0)
		return -1;
	if (label[0] && !sess_label_ok(label))
		return sbx_err(err, errn, "label %s: use 1-64 of A-Z a-z 0-9 . _ : + -", label);
	if (sess_create(s, label[0] ? label : NULL, NULL, &ss, err, errn) < 0)
		return -1;
	describe(s, &ss, out, 1);
	sess_release(&ss);
	return 0;
}

int
tool_session_switch(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char id[64];
	struct sess ss;

	if (arg_str(a, "session_id", 1, id, sizeof id, err, errn) < 0 || sess_open(s, id, &ss, err, errn) < 0)
		return -1;
	if (sess_set_current(s, ss.id) < 0) {
		sess_release(&ss);
		return sbx_err(err, errn, "unable to record the current session");
	}
	sess_touch(&ss);
	describe(s, &ss, out, 1);
	sess_release(&ss);
	return 0;
}

int
tool_session_list(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char (*ids)[SBX_ID_LEN + 1] = malloc(4096 * sizeof *ids), e2[SBX_ERR_MAX];
	int n;

	if (ids == NULL)
		return sbx_err(err, errn, "out of memory");
	n = sess_ids(s, ids, 4096);
	jw_key(out, "sessions");
	jw_open(out, '[');
	for (int i = 0; i < n; i++) {
		struct sess ss;
		if (sess_open(s, ids[i], &ss, e2, sizeof e2) < 0)
			continue;
		jw_open(out, '{');
		describe(s, &ss, out, 0);
		jw_close(out, '}');
		sess_release(&ss);
	}
	jw_close(out, ']');
	jw_key(out, "max_sessions");
	jw_int(out, s->cfg.max_sessions);
	free(ids);
	return 0;
}

int
tool_session_close(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char snap[SNAP_NAME_MAX + 1] = "";
	struct sess ss;

	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	if (s->cfg.snapshot_on_close && snap_take(s, &ss, NULL, snap, sizeof snap, err, errn) < 0) {
		sess_release(&ss);
		return -1;
	}
	/* removed under its lock: a call waiting for it then says it is gone */
	if (sess_remove(s, ss.id, err, errn) < 0) {
		sess_release(&ss);
		return -1;
	}
	ss.picked = 0;
	sess_release(&ss);
	jw_key(out, "session_id");
	jw_str(out, ss.id);
	jw_key(out, "closed");
	jw_bool(out, 1);
	jw_key(out, "snapshot");
	if (snap[0]) jw_str(out, snap); else jw_null(out);
	return 0;
}

int
tool_get_session_state(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	struct sess ss;

	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	describe(s, &ss, out, 1);
	jw_key(out, "workspace");
	jw_str(out, ss.ws);
	sess_release(&ss);
	return 0;
}

int
tool_session_label(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char label[SBX_LABEL_MAX + 8];
	struct sess ss;

	if (arg_str(a, "label", 1, label, sizeof label, err, errn) < 0)
		return -1;
	if (!sess_label_ok(label))
		return sbx_err(err, errn, "label %s: use 1-64 of A-Z a-z 0-9 . _ : + -", label);
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	memcpy(ss.label, label, strlen(label) + 1);	/* sess_label_ok: at most 64 */
	if (sess_save(&ss) < 0) {
		sess_release(&ss);
		return sbx_err(err, errn, "session %s: unable to save its label", ss.id);
	}
	describe(s, &ss, out, 0);
	sess_release(&ss);
	return 0;
}

int
tool_session_fork(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char cid[CKPT_ID_MAX + 8], at[CKPT_ID_MAX], label[SBX_LABEL_MAX + 8], id[CKPT_ID_MAX], cl[SBX_LABEL_MAX + 8],
	    src[PATH_MAX + 8], e2[SBX_ERR_MAX];
	const char *f[] = { "fetch", "-q", "--no-tags", "--update-head-ok", src,
	    "+refs/heads/main:refs/heads/main", "+refs/tags/*:refs/tags/*", "+refs/meta/*:refs/meta/*", "+refs/replace/*:refs/replace/*", NULL };
	struct sess from, to;
	struct run_res r;
	int made;

	if (arg_ckpt(a, "checkpoint_id", cid, sizeof cid, err, errn) < 0 ||
	    arg_str(a, "checkpoint_label", 0, cl, sizeof cl, err, errn) < 0 ||
	    arg_str(a, "label", 0, label, sizeof label, err, errn) < 0)
		return -1;
	if (cl[0])
		cid[0] = '\0';	/* as drun: the label wins */
	if (label[0] && !sess_label_ok(label))
		return sbx_err(err, errn, "label %s: use 1-64 of A-Z a-z 0-9 . _ : + -", label);
	if (sess_pick(s, a, &from, err, errn) < 0)
		return -1;
	/* the source's workspace as it is now, unless a checkpoint is named */
	if ((cid[0] || cl[0] ? ckpt_resolve(s, &from, cid, cl, at, err, errn) :
	    ckpt_commit(s, &from, "before fork", at, &made, err, errn)) < 0 ||
	    streams_to_history(s, &from, err, errn) < 0) {
		sess_release(&from);
		return -1;
	}
	snprintf(src, sizeof src, "%s", from.git);
	if (sess_create(s, label[0] ? label : NULL, from.id, &to, err, errn) < 0) {
		sess_release(&from);
		return -1;
	}
	if (git_run(s, &to, f, NULL, 0, 0, &r, err, errn) < 0 || ckpt_checkout(s, &to, at, err, errn) < 0 ||
	    ckpt_commit(s, &to, "forked", id, &made, err, errn) < 0 || streams_from_history(s, &to, err, errn) < 0) {
		run_res_free(&r);
		sess_release(&to);
		sess_remove(s, to.id, e2, sizeof e2);
		sess_release(&from);
		return -1;
	}
	run_res_free(&r);
	{
		/* the installs merged in the source: their PYTHONPATH, NODE_PATH */
		char *rec;
		size_t rl;
		if (file_read_bounded(from.dirfd, "packages", 4096, &rec, &rl) == 0) {
			file_replace_atomic(to.dirfd, "packages", rec, rl, 0600);
			free(rec);
		}
	}
	describe(s, &to, out, 1);
	jw_key(out, "forked_at");
	jw_str(out, at);
	sess_release(&to);
	sess_release(&from);
	return 0;
}

int tool_get_config(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn);

int
tool_get_config(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char *js = config_json(&s->cfg);

	if (js == NULL)
		return sbx_err(err, errn, "out of memory");
	jw_key(out, "config_file");
	jw_str(out, s->cfgpath);
	jw_key(out, "source");
	jw_str(out, s->cfg.source[0] ? "file" : "embedded defaults");
	jw_key(out, "note");
	jw_str(out, s->cfg.source[0] ? "read from the file, fresh on every call" :
	    "no configuration file: the embedded defaults apply");
	jw_key(out, "config");
	jw_raw(out, js, strlen(js));
	jw_key(out, "store");
	jw_str(out, s->store);
	free(js);
	return 0;
}
