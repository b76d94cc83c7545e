#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "argv.h"
#include "execenv.h"
#include "git.h"
#include "gitsafe.h"

int
git_find(char *out, size_t n)
{
	return exec_resolve("git", "/usr/local/bin:/usr/bin:/bin", out, n);
}

int
git_run(struct sbx *s, const struct sess *ss, const char *const *args, const char *input,
    size_t inputn, size_t max, struct run_res *r, char *err, size_t errn)
{
	return git_run_io(s, ss, args, input, inputn, 0, 0, max, r, err, errn);
}

/* sandbox-mcp's own beside lib/gitsafe's: its PATH and identity, and
 * what the checkpoints need of git (bytes as they are, symlinks and modes
 * kept, the history repository owned by the server whoever runs the
 * workspace, fetches between its own repositories on disk). */
static const char *const own_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"GIT_AUTHOR_NAME=sandbox-mcp", "GIT_AUTHOR_EMAIL=sandbox-mcp@localhost",
	"GIT_COMMITTER_NAME=sandbox-mcp", "GIT_COMMITTER_EMAIL=sandbox-mcp@localhost", NULL
};
static const char *const own_cfg[] = {
	"core.autocrlf=false", "core.safecrlf=false", "core.quotePath=false", "core.symlinks=true",
	"core.filemode=true", "safe.directory=*", "protocol.file.allow=always",
	"advice.detachedHead=false", "init.defaultBranch=main", NULL
};

int
git_argv(const char *git, const struct sess *ss, const char *const *args, struct argv *av,
    struct argv *ev)
{
	av_push(av, git);
	av_pushf(av, "--git-dir=%s", ss->git);
	av_pushf(av, "--work-tree=%s", ss->ws);
	if (gitsafe_push_cfg(av, own_cfg) < 0 || gitsafe_push_env(ev, own_env) < 0)
		return -1;
	av_pushv(av, (char *const *)args);
	return av->err || ev->err ? (errno = av->err ? av->err : ENOMEM, -1) : 0;
}

int
git_run_io(struct sbx *s, const struct sess *ss, const char *const *args, const char *input,
    size_t inputn, int infd, int outfd, size_t max, struct run_res *r, char *err, size_t errn)
{
	struct argv av = { 0 }, ev = { 0 };
	struct run_opt o = { 0 };
	int rc;

	memset(r, 0, sizeof *r);
	if (git_argv(s->git, ss, args, &av, &ev) < 0) {
		rc = sbx_err(err, errn, "git %s: unable to build its arguments: %s", args[0], strerror(errno));
		goto out;
	}
	o.cwd = ss->ws;
	o.max_out = max ? max : GIT_OUT_MAX;
	o.input = input;
	o.inputn = inputn;
	o.infd = infd;
	o.outfd = outfd;
	if (run_prog(av.v, ev.v, &o, r) < 0) {
		rc = sbx_err(err, errn, "unable to run %s: %s", s->git, strerror(errno));
		goto out;
	}
	rc = 0;
	if (run_code(r->status) != 0) {
		const char *e = r->err.p ? r->err.p : "";
		size_t l = strcspn(e, "\n");
		rc = sbx_err(err, errn, "git %s failed (status %d): %.*s", args[0], run_code(r->status),
		    (int)(l > 300 ? 300 : l), e);
	}
out:
	av_free(&av);
	av_free(&ev);
	return rc;
}

int
git_line(struct sbx *s, const struct sess *ss, const char *const *args, char *out, size_t n,
    char *err, size_t errn)
{
	struct run_res r;
	int rc = git_run(s, ss, args, NULL, 0, 4096, &r, err, errn);

	if (rc == 0) {
		const char *p = r.out.p ? r.out.p : "";
		size_t l = strcspn(p, "\r\n");
		if (l >= n)
			rc = sbx_err(err, errn, "git %s: an answer too long", args[0]);
		else {
			memcpy(out, p, l);
			out[l] = '\0';
		}
	}
	run_res_free(&r);
	return rc;
}
