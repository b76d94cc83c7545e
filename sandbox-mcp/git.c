#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "execenv.h"
#include "git.h"

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

int
git_run_io(struct sbx *s, const struct sess *ss, const char *const *args, const char *input,
    size_t inputn, int infd, int outfd, size_t max, struct run_res *r, char *err, size_t errn)
{
	static char *const envp[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=/nonexistent",
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"GIT_AUTHOR_NAME=sandbox-mcp",
		"GIT_AUTHOR_EMAIL=sandbox-mcp@localhost",
		"GIT_COMMITTER_NAME=sandbox-mcp",
		"GIT_COMMITTER_EMAIL=sandbox-mcp@localhost",
		NULL
	};
	static const char *const cfg[] = {
		"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.untrackedCache=false",
		"core.autocrlf=false", "core.safecrlf=false", "core.quotePath=false",
		"core.excludesFile=/dev/null", "core.attributesFile=/dev/null", "core.symlinks=true",
		"core.filemode=true", "core.askPass=", "credential.helper=", "gc.auto=0",
		"maintenance.auto=false", "commit.gpgSign=false", "tag.gpgSign=false",
		"diff.external=", "safe.directory=*", "protocol.allow=never", "protocol.file.allow=always",
		"advice.detachedHead=false", "init.defaultBranch=main", NULL
	};
	char gd[PATH_MAX + 16], wt[PATH_MAX + 16];
	const char *argv[96];
	struct run_opt o = { 0 };
	size_t n = 0;

	memset(r, 0, sizeof *r);
	snprintf(gd, sizeof gd, "--git-dir=%s", ss->git);
	snprintf(wt, sizeof wt, "--work-tree=%s", ss->ws);
	argv[n++] = s->git;
	argv[n++] = gd;
	argv[n++] = wt;
	for (int i = 0; cfg[i]; i++) {
		argv[n++] = "-c";
		argv[n++] = cfg[i];
	}
	for (int i = 0; args[i]; i++) {
		if (n + 2 >= sizeof argv / sizeof argv[0])
			return sbx_err(err, errn, "git: too many arguments");
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	o.cwd = ss->ws;
	o.max_out = max ? max : GIT_OUT_MAX;
	o.input = input;
	o.inputn = inputn;
	o.infd = infd;
	o.outfd = outfd;
	if (run_prog((char *const *)argv, envp, &o, r) < 0)
		return sbx_err(err, errn, "unable to run %s: %s", s->git, strerror(errno));
	if (run_code(r->status) != 0) {
		const char *e = r->err.p ? r->err.p : "";
		size_t l = strcspn(e, "\n");
		return sbx_err(err, errn, "git %s failed (status %d): %.*s", args[0], run_code(r->status),
		    (int)(l > 300 ? 300 : l), e);
	}
	return 0;
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
