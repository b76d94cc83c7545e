/* pkg: session_package_install. The installer (python3 -m pip, npm) runs
 * through the same chain as session_bash, but in a disposable stage beside
 * the workspace (STORE/sessions/ID/pkg-RANDOM/{home,tmp,out}): only the
 * stage is writable and nothing else of the session is readable. The
 * network is open through confine's IP broker (--filter-ip): loopback,
 * link-local and metadata refused, but for the loopback ports the config
 * allows. Only when it succeeded is out/ merged under .packages/MANAGER/
 * of the workspace (within max_workspace_mb, never through a symlink), the
 * manager recorded in the session directory (mounts_env sets PYTHONPATH or
 * NODE_PATH from it), and a checkpoint made. I/O. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "bash.h"
#include "reslimit.h"
#include "ckpt.h"
#include "copy.h"
#include "fdio.h"
#include "git.h"
#include "pkg.h"
#include "refusals.h"
#include "pkgspec.h"
#include "rmtree.h"
#include "rnd.h"
#include "run.h"
#include "wsscan.h"

enum { PKG_OUT_MAX = 256 << 10 };	/* bytes of installer stdout (and stderr) returned */

/* Stages a killed server left behind. */
static void
stage_reap(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "pkg-", 4) == 0)
			rmtree_at(dirfd, de->d_name);
	closedir(d);
}

/* The record kept in the history too, as the blob refs/meta/packages, so a
 * snapshot carries it and a restore brings it back (pkg_record_restore). */
static int
record_ref(struct sbx *s, struct sess *ss, const char *rec, size_t n)
{
	const char *h[] = { "hash-object", "-w", "--stdin", NULL };
	char blob[CKPT_ID_MAX], e2[SBX_ERR_MAX];
	const char *u[] = { "update-ref", "refs/meta/packages", blob, NULL };
	struct run_res r;
	int rc;

	rc = git_run(s, ss, h, rec, n, 128, &r, e2, sizeof e2);
	snprintf(blob, sizeof blob, "%.*s", r.out.p && r.out.len >= 40 ? 40 : 0, r.out.p ? r.out.p : "");
	run_res_free(&r);
	if (rc < 0 || strlen(blob) != 40)
		return -1;
	rc = git_run(s, ss, u, NULL, 0, 0, &r, e2, sizeof e2);
	run_res_free(&r);
	return rc;
}

int
pkg_record_restore(struct sbx *s, struct sess *ss)
{
	const char *c[] = { "cat-file", "blob", "refs/meta/packages", NULL };
	char e2[SBX_ERR_MAX];
	struct run_res r;
	int rc = 0;

	if (git_run(s, ss, c, NULL, 0, 4096, &r, e2, sizeof e2) == 0 && r.out.p) {
		/* only the lines a record holds */
		const char *p = r.out.p;
		while (*p && ((strncmp(p, "pip\n", 4) == 0 || strncmp(p, "npm\n", 4) == 0)))
			p += 4;
		rc = *p || r.out_bytes > r.out.len ? -1 :
		    file_replace_atomic(ss->dirfd, "packages", r.out.p, r.out.len, 0600);
	}
	run_res_free(&r);
	return rc;
}

/* The manager's line in STORE/sessions/ID/packages (what mounts_env reads). */
static int
record(struct sbx *s, struct sess *ss, enum pkg_mgr m)
{
	const char *name = pkg_mgr_name(m);
	char *old = NULL, line[8];
	size_t len = 0;
	struct buf all = { 0 };
	int rc;

	if (file_read_bounded(ss->dirfd, "packages", 4096, &old, &len) < 0 && errno != ENOENT)
		return -1;
	snprintf(line, sizeof line, "%s\n", name);
	if (old)
		buf_add(&all, old, len);
	buf_adds(&all, "");
	if (pkg_recorded(all.p, m)) {
		free(old);
		buf_free(&all);
		return 0;
	}
	buf_adds(&all, line);
	rc = file_replace_atomic(ss->dirfd, "packages", all.p, all.len, 0600);
	if (rc == 0)
		rc = record_ref(s, ss, all.p, all.len);
	free(old);
	buf_free(&all);
	return rc;
}

/* The installer's argv after the interpreter. */
static void
installer_args(enum pkg_mgr m, const char *out, char specs[][PKG_SPEC_MAX + 1], int n, struct argv *a)
{
	if (m == PKG_PIP) {
		av_push(a, "-m");
		av_push(a, "pip");
		av_push(a, "install");
		av_push(a, "--no-input");
		av_push(a, "--disable-pip-version-check");
		av_push(a, "--no-warn-script-location");
		av_push(a, "--target");
		av_push(a, out);
	} else {
		av_push(a, "install");
		av_push(a, "--prefix");
		av_push(a, out);
		av_push(a, "--no-save");
		av_push(a, "--no-package-lock");
		av_push(a, "--no-audit");
		av_push(a, "--no-fund");
		av_push(a, "--foreground-scripts");
	}
	av_push(a, "--");
	for (int i = 0; i < n; i++)
		av_push(a, specs[i]);
}

/* The specifiers, each checked (pkgspec.c) before anything runs. */
static int
get_specs(const struct targs *a, enum pkg_mgr m, char specs[][PKG_SPEC_MAX + 1], int *n,
    char *err, size_t errn)
{
	int arr = arg_tok(a, "packages", JSMN_ARRAY, 1, err, errn);
	char what[32], why[160];

	if (arr < 0)
		return -1;
	if (a->t[arr].size < 1 || a->t[arr].size > PKG_SPECS_MAX)
		return sbx_err(err, errn, "argument \"packages\" must hold 1 to %d specifiers", PKG_SPECS_MAX);
	*n = a->t[arr].size;
	for (int i = 0; i < *n; i++) {
		int l;
		snprintf(what, sizeof what, "packages[%d]", i);
		if ((l = arg_tokstr(a, arg_elem(a, arr, i), what, specs[i], PKG_SPEC_MAX + 1, err, errn)) < 0)
			return -1;
		if (!pkg_spec_ok(m, specs[i], (size_t)l, why, sizeof why))
			return sbx_err(err, errn, "packages[%d] refused: %s (a %s package name, with a version, is all that is accepted)",
			    i, why, pkg_mgr_name(m));
	}
	return 0;
}

/* Run the installer in the stage; r filled. */
static int
install(struct sbx *s, enum pkg_mgr m, const char *stage, char specs[][PKG_SPEC_MAX + 1], int n,
    int rfd, struct run_res *r, char *err, size_t errn)
{
	static char *const noenv[] = { NULL };
	struct argv args = { 0 }, pins = { 0 }, net = { 0 }, av = { 0 }, env = { 0 };
	struct run_opt o = { 0 };
	struct limits lim;
	int rc = -1;

	av_pushf(&pins, "HOME=%s/home", stage);
	av_pushf(&pins, "TMPDIR=%s/tmp", stage);
	av_pushf(&pins, "PWD=%s", stage);
	if (m == PKG_NPM) {
		av_push(&pins, "npm_config_update_notifier=false");
		av_pushf(&pins, "npm_config_cache=%s/home/.npm", stage);
	} else {
		av_pushf(&pins, "PIP_CACHE_DIR=%s/home/.cache/pip", stage);
	}
	if (s->cfg.package_install_network == NULL) {
		av_push(&net, "--filter-ip");
		for (int i = 0; i < s->cfg.package_install_allow_loopback.n; i++) {
			av_push(&net, "--loopback");
			av_pushf(&net, "%u", s->cfg.package_install_allow_loopback.v[i]);
		}
	}
	if (rfd > 2) {
		av_push(&net, "--refusals");
		av_pushf(&net, "%d", rfd);
	}
	{
		struct argv outp = { 0 };
		av_pushf(&outp, "%s/out", stage);
		if (outp.err == 0)
			installer_args(m, outp.v[0], specs, n, &args);
		else
			args.err = ENOMEM;
		av_free(&outp);
	}
	if (args.err || pins.err || net.err) {
		sbx_err(err, errn, "out of memory");
		goto out;
	}
	if (chain_build_stage(s, stage, m == PKG_PIP ? "python3" : "npm", args.v, pins.v, net.v,
	    &av, &env, err, errn) < 0)
		goto out;
	o.cwd = stage;
	o.timeout_ms = s->cfg.package_install_timeout_ms;
	o.max_out = PKG_OUT_MAX;
	o.keeper = s->keeper;
	o.fsize = (uint64_t)s->cfg.max_workspace_mb << 20;
	o.lim = sbx_limits(s, &lim);
	if (run_prog(av.v, env.v ? env.v : noenv, &o, r) < 0) {
		sbx_err(err, errn, "unable to run %s: %s", av.v[0], strerror(errno));
		goto out;
	}
	rc = 0;
out:
	av_free(&args);
	av_free(&pins);
	av_free(&net);
	av_free(&av);
	av_free(&env);
	return rc;
}

/* Merge stage/out under .packages/MANAGER; on a failure part way, the
 * workspace goes back to checkpoint before (what it was). */
static int
merge(struct sbx *s, struct sess *ss, int stagefd, enum pkg_mgr m, const char *before,
    struct copy_opt *o, char *err, size_t errn)
{
	int64_t usage = ws_usage(ss->wsfd), need;
	int outfd, pfd, e;

	if ((outfd = openat(stagefd, "out", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return sbx_err(err, errn, "the installer left no output directory");
	need = ws_usage(outfd);
	close(outfd);
	if (usage < 0 || need < 0)
		return sbx_err(err, errn, "unable to measure the workspace or the install");
	if (usage + need > s->cfg.max_workspace_mb << 20)
		return sbx_err(err, errn, "the install (%lld bytes) would take the workspace over max_workspace_mb (%lld MiB): nothing merged",
		    (long long)need, (long long)s->cfg.max_workspace_mb);
	o->budget = (s->cfg.max_workspace_mb << 20) - usage;
	if (mkdirat(ss->wsfd, ".packages", 0755) < 0 && errno != EEXIST)
		return sbx_err(err, errn, ".packages: %s", strerror(errno));
	if ((pfd = openat(ss->wsfd, ".packages", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return sbx_err(err, errn, ".packages: %s: nothing merged", errno == ELOOP || errno == ENOTDIR ?
		    "not a directory (a symbolic link or a file)" : strerror(errno));
	if (copy_at(stagefd, "out", pfd, pkg_mgr_name(m), o) < 0) {
		char e2[SBX_ERR_MAX];
		e = errno;
		close(pfd);
		ckpt_checkout(s, ss, before, e2, sizeof e2);
		return sbx_err(err, errn, "merging into .packages/%s: %s: the workspace is as it was", pkg_mgr_name(m),
		    e == EFBIG ? "over max_workspace_mb" : e == ELOOP ? "a symbolic link in the way" : strerror(e));
	}
	close(pfd);
	return 0;
}

static void
result_head(struct jw *out, enum pkg_mgr m, char specs[][PKG_SPEC_MAX + 1], int n, const struct run_res *r,
    struct refusals *rf)
{
	jw_key(out, "package_manager");
	jw_str(out, pkg_mgr_name(m));
	jw_key(out, "packages");
	jw_open(out, '[');
	for (int i = 0; i < n; i++)
		jw_str(out, specs[i]);
	jw_close(out, ']');
	jw_key(out, "exit_code");
	jw_int(out, r->timed_out ? 124 : run_code(r->status));
	jw_key(out, "timed_out");
	jw_bool(out, r->timed_out);
	jw_key(out, "tree_ended_by");
	jw_str(out, r->cgroup ? "cgroup" : "sweep");
	out_stream(out, "stdout", &r->out, r->out_bytes);
	out_stream(out, "stderr", &r->err, r->err_bytes);
	out_refusals(out, rf);
}

int
tool_session_package_install(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char mgr[8], stname[16], stage[PATH_MAX + 32], before[CKPT_ID_MAX], id[CKPT_ID_MAX], msg[300];
	char (*specs)[PKG_SPEC_MAX + 1] = NULL;
	struct copy_opt o = { .fmode = 0644, .keep_exec = 1, .keep_links = 1 };
	struct run_res r = { 0 };
	struct refusals *rf = NULL;
	struct sess ss;
	enum pkg_mgr m;
	int n = 0, stagefd = -1, made, rc = -1, ran = 0, merged = 0, rfd;

	stname[0] = '\0';

	if (!s->cfg.package_install_enabled)
		return sbx_err(err, errn, "session_package_install is disabled: set \"package_install_enabled\": true in %s to allow it",
		    s->cfgpath);
	if (arg_str(a, "package_manager", 1, mgr, sizeof mgr, err, errn) < 0)
		return -1;
	if (pkg_mgr_parse(mgr, &m) < 0)
		return sbx_err(err, errn, "argument \"package_manager\" must be \"pip\" or \"npm\"");
	if ((specs = calloc(PKG_SPECS_MAX, sizeof *specs)) == NULL)
		return sbx_err(err, errn, "out of memory");
	if (get_specs(a, m, specs, &n, err, errn) < 0)
		goto out0;
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out0;
	if (chain_prove(s, err, errn) < 0)
		goto out;
	stage_reap(ss.dirfd);
	memcpy(stname, "pkg-", 4);
	rnd_hex(stname + 4, 4);
	if (mkdirat(ss.dirfd, stname, 0700) < 0 ||
	    (stagefd = openat(ss.dirfd, stname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    mkdirat(stagefd, "home", 0700) < 0 || mkdirat(stagefd, "tmp", 0700) < 0) {
		sbx_err(err, errn, "session %s: unable to make the install stage: %s", ss.id, strerror(errno));
		goto out;
	}
	snprintf(stage, sizeof stage, "%s/%s", ss.dir, stname);
	rf = out_refusals_open(&rfd);
	if (install(s, m, stage, specs, n, rfd, &r, err, errn) < 0)
		goto out;
	ran = 1;
	result_head(out, m, specs, n, &r, rf);
	rf = NULL;
	if (r.timed_out || run_code(r.status) != 0) {
		jw_key(out, "installed");
		jw_bool(out, 0);
		jw_key(out, "reason");
		jw_str(out, r.timed_out ? "package_install_timeout_ms passed: the installer's process tree was ended; nothing merged" :
		    "the installer failed: nothing merged");
		rc = 0;
		goto out;
	}
	/* what the workspace is now, so a merge that fails part way goes back */
	if (ckpt_commit(s, &ss, "before session_package_install", before, &made, err, errn) < 0 ||
	    merge(s, &ss, stagefd, m, before, &o, err, errn) < 0)
		goto out;
	merged = 1;
	if (record(s, &ss, m) < 0)
		goto fail;
	snprintf(msg, sizeof msg, "session_package_install: %s", pkg_mgr_name(m));
	for (int i = 0; i < n && strlen(msg) + strlen(specs[i]) + 2 < sizeof msg; i++)
		strcat(strcat(msg, " "), specs[i]);
	if (ckpt_commit(s, &ss, msg, id, &made, err, errn) < 0)
		goto fail;
	jw_key(out, "installed");
	jw_bool(out, 1);
	jw_key(out, "merged_into");
	jw_str(out, m == PKG_PIP ? ".packages/pip" : ".packages/npm");
	jw_key(out, "env");
	jw_str(out, m == PKG_PIP ? "PYTHONPATH" : "NODE_PATH");
	copy_counts_json(out, &o);
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
	jw_key(out, "new_checkpoint");
	jw_bool(out, made);
	rc = 0;
	goto out;
fail:
	{
		char e2[SBX_ERR_MAX];
		if (merged)
			ckpt_checkout(s, &ss, before, e2, sizeof e2);
	}
	if (err[0] == '\0')
		sbx_err(err, errn, "session %s: unable to record the install", ss.id);
out:
	if (ran)
		run_res_free(&r);
	if (rf) {
		refusals_close(rf);
		free(rf);
	}
	if (stagefd >= 0)
		close(stagefd);
	if (stname[0])
		rmtree_at(ss.dirfd, stname);
	sess_release(&ss);
out0:
	free(specs);
	return rc;
}
