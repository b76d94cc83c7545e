#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "bash.h"
#include "streams.h"
#include "ckpt.h"
#include "run.h"
#include "wsscan.h"
#include "refusals.h"
#include "reslimit.h"

void
out_stream(struct jw *out, const char *name, const struct buf *b, uint64_t total)
{
	char k[32];

	jw_key(out, name);
	jw_strn(out, b->p ? b->p : "", b->len);
	snprintf(k, sizeof k, "%s_bytes", name);
	jw_key(out, k);
	jw_int(out, (int64_t)total);
	snprintf(k, sizeof k, "%s_truncated", name);
	jw_key(out, k);
	jw_bool(out, total > b->len);
}

struct refusals *
out_refusals_open(int *wfd)
{
	struct refusals *rs = malloc(sizeof *rs);

	*wfd = -1;
	if (rs == NULL)
		return NULL;
	if ((*wfd = refusals_open(rs)) < 3) {
		free(rs);
		*wfd = -1;
		return NULL;
	}
	return rs;
}

void
out_refusals(struct jw *out, struct refusals *rs)
{
	jw_key(out, "refusals");
	jw_open(out, '[');
	if (rs) {
		refusals_collect(rs);
		for (size_t i = 0; i < rs->n; i++) {
			const struct refusal *f = &rs->r[i];
			jw_open(out, '{');
			jw_key(out, "kind");
			jw_str(out, f->kind);
			jw_key(out, "dest");
			jw_str(out, f->dest);
			jw_key(out, "why");
			jw_str(out, f->why);
			jw_key(out, "pid");
			jw_int(out, f->pid);
			jw_key(out, "exe");
			jw_str(out, f->exe);
			jw_key(out, "comm");
			jw_str(out, f->comm);
			jw_close(out, '}');
		}
	}
	jw_close(out, ']');
	jw_key(out, "refusals_more");
	jw_int(out, rs ? (int64_t)rs->more : 0);
	jw_key(out, "refusals_dropped");
	jw_int(out, rs ? (int64_t)rs->dropped : 0);
	if (rs) {
		refusals_close(rs);
		free(rs);
	}
}

const struct limits *
sbx_limits(const struct sbx *s, struct limits *l)
{
	memset(l, 0, sizeof *l);
	l->v[LIM_PROCS] = (uint64_t)s->cfg.max_processes;
	l->v[LIM_MEMORY] = (uint64_t)s->cfg.max_memory_mb << 20;
	return l->v[LIM_PROCS] || l->v[LIM_MEMORY] ? l : NULL;
}

int
tool_session_bash(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	static char *const noenv[] = { NULL };
	char *cmd = NULL, desc[256], msg[300], id[CKPT_ID_MAX];
	struct argv av = { 0 }, env = { 0 };
	struct run_opt o = { 0 };
	struct run_res r;
	struct limits lim;
	struct refusals *rf = NULL;
	struct sess ss;
	size_t cmdn;
	int rfd = -1;
	int64_t usage, max = s->cfg.max_workspace_mb << 20;
	uint64_t fp1 = WS_FP_INIT;
	int made, rc = -1, ran = 0;

	id[0] = '\0';
	if (arg_blob(a, "command", 1, BASH_CMD_MAX, &cmd, &cmdn, err, errn) < 0 ||
	    arg_str(a, "description", 0, desc, sizeof desc, err, errn) < 0)
		goto out0;
	if (strlen(cmd) != cmdn) {
		sbx_err(err, errn, "argument \"command\" holds a NUL byte");
		goto out0;
	}
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out0;
	if (chain_prove(s, err, errn) < 0)
		goto out;
	{
		char *prog[] = { "/bin/sh", "-c", cmd, NULL };
		rf = out_refusals_open(&rfd);
		if (chain_build(s, &ss, prog, rfd, &av, &env, err, errn) < 0)
			goto out;
	}
	o.cwd = ss.ws;
	o.timeout_ms = s->cfg.bash_timeout_ms;
	o.max_out = BASH_OUT_MAX;
	o.keeper = s->keeper;
	o.fsize = (uint64_t)max;
	o.lim = sbx_limits(s, &lim);
	if (run_prog(av.v, env.v ? env.v : noenv, &o, &r) < 0) {
		if (r.limits_refused)
			sbx_err(err, errn, "max_processes and max_memory_mb cannot be enforced here (the server's stderr says why): not run");
		else
			sbx_err(err, errn, "unable to run %s: %s", av.v[0], strerror(errno));
		goto out;
	}
	jw_key(out, "exit_code");
	jw_int(out, r.timed_out ? 124 : run_code(r.status));
	jw_key(out, "timed_out");
	jw_bool(out, r.timed_out);
	jw_key(out, "tree_ended_by");
	jw_str(out, r.cgroup ? "cgroup" : "sweep");
	out_stream(out, "stdout", &r.out, r.out_bytes);
	out_stream(out, "stderr", &r.err, r.err_bytes);
	out_refusals(out, rf);
	rf = NULL;
	ran = 1;
	/* a workspace grown over its bound goes back to the last checkpoint */
	usage = ws_scan(ss.wsfd, &fp1);
	if (usage >= 0 && ckpt_fp_same(&ss, fp1) && ckpt_head_fast(&ss, id) == 0) {
		/* nothing changed (same names, inodes, sizes and times): no git */
		jw_key(out, "checkpoint_id");
		jw_str(out, id);
		jw_key(out, "new_checkpoint");
		jw_bool(out, 0);
		rc = 0;
		goto out;
	}
	if (usage > max) {
		char e2[SBX_ERR_MAX];
		if (ckpt_head(s, &ss, id, e2, sizeof e2) == 0)
			ckpt_checkout(s, &ss, id, e2, sizeof e2);
		jw_key(out, "workspace_error");
		jw_str(out, "the command took the workspace over max_workspace_mb: its changes were rolled back to the last checkpoint");
		jw_key(out, "checkpoint_id");
		jw_str(out, id);
		rc = 0;
		goto out;
	}
	snprintf(msg, sizeof msg, "session_bash: %s", desc[0] ? desc : cmd);
	if (ckpt_commit(s, &ss, msg, id, &made, err, errn) < 0)
		goto out;
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
	jw_key(out, "new_checkpoint");
	jw_bool(out, made);
	rc = 0;
out:
	if (ran) {
		/* for checkpoint_read_stdstreams: what the checkpoint's command printed */
		if (rc == 0)
			streams_save(s, &ss, id, &r.out, &r.err);
		run_res_free(&r);
	}
	if (rf) {
		refusals_close(rf);
		free(rf);
	}
	av_free(&av);
	av_free(&env);
	sess_release(&ss);
out0:
	free(cmd);
	return rc;
}
