/* finish: the import, then the lines that say where the agent's work is
 * (corral run says them as its own: they are its run's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitrun.h"
#include "gs.h"
#include "msg.h"

/* 1 when git merge of commit works in the user's tree now: no tracked
 * file changed, and no file the branch adds is there untracked. */
static int
mergeable(const struct gitws *g, const char *commit)
{
	const char *const st[] = { "status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all", NULL };
	const char *const da[] = { "diff-tree", "-r", "-z", "--no-renames", "--diff-filter=A", "--name-only",
		g->start[0] ? g->start : "--root", commit, NULL };
	struct gitcall real = { g->git, g->gitdir, g->ws, NULL, NULL, NULL };
	char *out = NULL, p[PATH_MAX * 2];
	size_t len = 0;
	/* the two at once (neither writes; the second's answer is used only
	 * when the first's allows) */
	int fd = -1, pid = gitrun_spawn(&real, da, -1, &fd);
	int ok = gitrun(&real, st, -1, -1, &out, &len, 1 << 20) == 0 && len == 0;

	free(out);
	out = NULL;
	if (pid < 0 || gitrun_collect(pid, fd, &out, &len, 64 << 20) != 0)
		ok = 0;
	if (ok)
		for (size_t at = g->start[0] ? 0 : strlen(out) + 1; ok && at < len; at += strlen(out + at) + 1)
			if ((size_t)snprintf(p, sizeof p, "%s/%s", g->ws, out + at) < sizeof p &&
			    access(p, F_OK) == 0)
				ok = 0;
	free(out);
	return ok;
}

static void
report(const struct gitws *g, const struct gitws_result *r, const char *attempt)
{
	char line[16384];
	const char *b;
	int n;

	if (r->refused[0])
		msg_warn("git: %s", r->refused);
	if (r->quarantined)
		msg_warn("git: %d nested repositories or special files were moved aside, not imported: %s (LIST names them)",
		    r->quarantined, r->quarantine);
	if (r->overlaps)
		msg_warn("git: %s: the agent changed what you changed (uncommitted) there, and the two overlap: the branch holds its whole version of %s, your change included; corral apply will stop on %s",
		    r->overlap, r->overlaps == 1 ? "that file" : "those files", r->overlaps == 1 ? "it" : "them");
	if (r->own_deps)
		msg_info("git: %s: the agent put its own install in place of your linked dependencies; it stayed in its checkout and was not imported",
		    r->deps);
	if (r->xrefs)
		msg_info("git: its other branches and tags (new or moved), each checked like HEAD: %s", r->xnames);
	if (r->xrefused)
		msg_warn("git: %d of its other refs were not imported: %s; they stay in %s", r->xrefused, r->xwhy, g->dir);
	if (!r->branch[0]) {
		msg_info("git: the agent changed nothing: no branch made");
		return;
	}
	b = r->branch + strlen("refs/heads/");
	n = snprintf(line, sizeof line, "git: branch %s: %ld commit%s%s, %s; review: git log -p %s%s",
	    b, r->commits, r->commits == 1 ? "" : "s", r->uncommitted ? " (the last holds what it left uncommitted)" : "",
	    r->shortstat, g->start[0] ? "HEAD.." : "", b);
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	if (g->mode == GIT_INPLACE)
		msg_info("%s; its changes are already in your working tree (uncommitted), so there is nothing to merge", line);
	else if (mergeable(g, r->commit))
		msg_info("%s; merge: git merge %s (or corral apply %.8s)", line, b, attempt);
	else
		msg_info("%s; apply: corral apply %.8s (three-way into your working tree; your local changes stay uncommitted)",
		    line, attempt);
}

int
gs_finish(struct gitws *g, const char *attempt)
{
	static struct gitws_result r;
	char why[PATH_MAX + 256];

	if (gitws_import(g, attempt, &r, why, sizeof why) < 0) {
		gitws_release(g, 1);
		msg_warn("git: the import failed: %s", why);
		msg_hint("nothing is lost: the agent's checkout and repository stay in %s", g->dir);
		return 1;
	}
	gitws_release(g, r.xrefused > 0);
	report(g, &r, attempt);
	return r.done ? 0 : -1;	/* -1: g->dir stays (what was moved aside) */
}
