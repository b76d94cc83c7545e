/* drun's informational tools: get_system_instructions, session_get_env,
 * session_tree, and session_chat_record (the chat log kept in the
 * history, as the blob refs/meta/chat, so a snapshot carries it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "ckpt.h"
#include "execenv.h"
#include "git.h"
#include "sess.h"

enum { CHAT_MAX = 4 << 20, CHAT_TEXT_MAX = 256 << 10, TREE_DEPTH_MAX = 64 };

static const char guide[] =
    "sandbox-mcp: sessions on corral's boundary, with drun's tool names and arguments.\n"
    "Getting started: create_session, then session_bash, session_read_file, session_write_files; "
    "every file change becomes a checkpoint (session_history numbers them from 0). "
    "Picking up a session you did not start: session_list or session_tree, then session_switch.\n"
    "Commands: session_bash runs sh -c in the workspace, confined: no network, the workspace and "
    "the session tmp writable, the system, PATH directories and allowlisted mounts readable, "
    "bounded in time, processes and memory. Its stdout and stderr come back in the answer.\n"
    "Outside data: session_fetch (domain_allowlist; saved under downloads/HOST/PAGE/ with a "
    "manifest.json, an HTML page's assets too: read them with session_read_file), "
    "session_mount (mount_allowlist), "
    "session_package_install (when enabled), session_get_env (env_allowlist).\n"
    "Checkpoints: session_history, session_diff, session_rollback, session_fork, session_merge, "
    "session_checkpoint_label, session_checkpoint_squash, session_checkpoint_drop; ids are hex or "
    "numbers, a label wins over an id.\n"
    "Leaving the sandbox: session_export writes beneath export_root and never writes what makes "
    "the user's tools run code (.git, hooks, editor tasks); delete_from_host deletes beneath it.\n"
    "Persisting: session_snapshot, list_snapshots, session_restore (snapshots_dir only).\n"
    "get_config shows the limits and allowlists in force. See sandbox-mcp(1).";

int
tool_get_system_instructions(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	jw_key(out, "instructions");
	jw_str(out, guide);
	return 0;
}

/* Only a name on env_allowlist: what commands get in their environment
 * already, so nothing reaches the agent that session_bash would not. */
int
tool_session_get_env(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char name[256];
	const char *v;
	int listed = 0;

	if (arg_str(a, "name", 1, name, sizeof name, err, errn) < 0)
		return -1;
	for (int i = 0; i < s->cfg.env_allowlist.n; i++)
		if (strcmp(s->cfg.env_allowlist.v[i], name) == 0)
			listed = 1;
	if (!listed)
		return sbx_err(err, errn, "%s is not on env_allowlist: refused (get_config lists it)", name);
	if ((v = env_get(s->envp, name)) == NULL)
		return sbx_err(err, errn, "%s is on env_allowlist but not set in the server's environment", name);
	jw_key(out, "name");
	jw_str(out, name);
	jw_key(out, "value");
	jw_str(out, v);
	return 0;
}

/* The blob refs/meta/chat (JSON lines), or "" */
static int
chat_read(struct sbx *s, struct sess *ss, struct run_res *r)
{
	const char *c[] = { "cat-file", "blob", "refs/meta/chat", NULL };
	char e2[SBX_ERR_MAX];

	if (git_run(s, ss, c, NULL, 0, CHAT_MAX, r, e2, sizeof e2) < 0) {
		run_res_free(r);
		memset(r, 0, sizeof *r);
	}
	return r->out_bytes > r->out.len ? -1 : 0;
}

int
tool_session_chat_record(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	const char *h[] = { "hash-object", "-w", "--stdin", NULL };
	char *prompt = NULL, *resp = NULL, blob[CKPT_ID_MAX];
	const char *u[] = { "update-ref", "refs/meta/chat", blob, NULL };
	size_t pn, rn;
	struct run_res r = { 0 }, w;
	struct jw line = { 0 };
	struct sess ss;
	long turns = 0;
	int rc = -1;

	if (arg_blob(a, "prompt", 1, CHAT_TEXT_MAX, &prompt, &pn, err, errn) < 0 ||
	    arg_blob(a, "response", 1, CHAT_TEXT_MAX, &resp, &rn, err, errn) < 0 ||
	    sess_pick(s, a, &ss, err, errn) < 0) {
		free(prompt);
		free(resp);
		return -1;
	}
	if (chat_read(s, &ss, &r) < 0 || r.out.len + pn * 6 + rn * 6 + 64 > CHAT_MAX) {
		sbx_err(err, errn, "session %s: the chat log is full (%d MiB)", ss.id, CHAT_MAX >> 20);
		goto out;
	}
	jw_open(&line, '{');
	jw_key(&line, "prompt");
	jw_strn(&line, prompt, pn);
	jw_key(&line, "response");
	jw_strn(&line, resp, rn);
	jw_close(&line, '}');
	buf_adds(&r.out, "");
	buf_add(&r.out, line.b.p ? line.b.p : "", line.b.len);
	buf_adds(&r.out, "\n");
	if (line.err || !r.out.p) {
		sbx_err(err, errn, "out of memory");
		goto out;
	}
	if (git_run(s, &ss, h, r.out.p, r.out.len, 128, &w, err, errn) < 0 || w.out.len < 40) {
		run_res_free(&w);
		goto out;
	}
	snprintf(blob, sizeof blob, "%.40s", w.out.p);
	run_res_free(&w);
	if (git_run(s, &ss, u, NULL, 0, 0, &w, err, errn) < 0) {
		run_res_free(&w);
		goto out;
	}
	run_res_free(&w);
	for (size_t i = 0; i < r.out.len; i++)
		turns += r.out.p[i] == '\n';
	jw_key(out, "session_id");
	jw_str(out, ss.id);
	jw_key(out, "chat_turns");
	jw_int(out, turns);
	rc = 0;
out:
	buf_free(&line.b);
	run_res_free(&r);
	free(prompt);
	free(resp);
	sess_release(&ss);
	return rc;
}

/* Sessions whose parent is p (NULL: the roots, or a parent gone), each
 * with its checkpoints and its forks beneath it. */
static void
tree_of(struct sbx *s, char (*ids)[SBX_ID_LEN + 1], char (*par)[SBX_ID_LEN + 1], int n, const char *p,
    int depth, struct jw *out)
{
	char e2[SBX_ERR_MAX];

	jw_open(out, '[');
	for (int i = 0; i < n && depth < TREE_DEPTH_MAX; i++) {
		int root = 1;
		struct sess ss;
		for (int k = 0; k < n && par[i][0]; k++)
			if (strcmp(ids[k], par[i]) == 0)
				root = 0;
		if (p ? strcmp(par[i], p) != 0 : !root)
			continue;
		if (sess_open(s, ids[i], &ss, e2, sizeof e2) < 0)
			continue;
		jw_open(out, '{');
		ckpt_describe(s, &ss, out);
		jw_key(out, "forks");
		tree_of(s, ids, par, n, ids[i], depth + 1, out);
		jw_close(out, '}');
		sess_release(&ss);
	}
	jw_close(out, ']');
}

int
tool_session_tree(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char (*ids)[SBX_ID_LEN + 1] = malloc(4096 * sizeof *ids), (*par)[SBX_ID_LEN + 1] = calloc(4096, sizeof *par);
	char e2[SBX_ERR_MAX];
	int n;

	if (ids == NULL || par == NULL) {
		free(ids);
		free(par);
		return sbx_err(err, errn, "out of memory");
	}
	n = sess_ids(s, ids, 4096);
	for (int i = 0; i < n; i++) {
		struct sess ss;
		if (sess_open(s, ids[i], &ss, e2, sizeof e2) == 0) {
			snprintf(par[i], sizeof par[i], "%s", ss.parent);
			sess_release(&ss);
		}
	}
	jw_key(out, "sessions");
	tree_of(s, ids, par, n, NULL, 0, out);
	free(ids);
	free(par);
	return 0;
}
