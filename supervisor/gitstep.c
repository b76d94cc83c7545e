#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gitrun.h"
#include "gitsafe.h"
#include "gitstep.h"
#include "msg.h"
#include "resolve.h"
#include "rmtree.h"

const char *
gitstep_mode(const struct plan *pl)
{
	if (!pl->git)
		return "none";
	switch (pl->pol->git) {
	case GIT_WORKTREE: return "worktree";
	case GIT_INPLACE: return "in-place";
	default: return "off";
	}
}

int
gitstep_top(struct plan *pl)
{
	char top[PATH_MAX], sub[PATH_MAX];

	if (!gitws_find_top(pl->workspace, top, sub) || (pl->home[0] && path_within(pl->home, top)) ||
	    path_within(pl->store, top))
		return 0;
	snprintf(pl->gw.sub, sizeof pl->gw.sub, "%s", sub);
	snprintf(pl->workspace, sizeof pl->workspace, "%s", top);
	return 1;
}

int
gitws_plan(struct plan *pl, const struct policy *pol, char *why, size_t whyn,
    char *hint, size_t hintn)
{
	struct gitws *g = &pl->gw;

	if (pol->git == GIT_OFF)
		return 0;
	g->mode = pol->git;
	if ((g->git = gitrun_find()) == NULL) {
		snprintf(why, whyn, "workspace %s is a git repository, and git is not in /usr/bin, /bin or /usr/local/bin: its attempt repository cannot be made",
		    pl->workspace);
		snprintf(hint, hintn, "install git");
		return -1;
	}
	if (gitws_locate(g, pl->workspace, why, whyn) < 0) {
		snprintf(hint, hintn, "repair the repository (git fsck), or pass -w with a directory that is not one");
		return -1;
	}
	g->deps = &pol->git_deps;
	if (g->mode == GIT_WORKTREE)	/* slot 0: explain's; the run takes the first free one */
		gitws_slot_path(pl->store, g->ws, 0, g->work, NULL);
	if (g->mode == GIT_INPLACE && g->linked) {
		snprintf(why, whyn, "--in-place needs the main worktree: %s/.git is a file (a linked worktree)", pl->workspace);
		snprintf(hint, hintn, "use --worktree (the default), which works from a linked worktree too");
		return -1;
	}
	return 0;
}

int
gitstep_ns_ok(void)
{
	pid_t pid = fork();
	int ws;

	if (pid == 0)
		_exit(unshare(CLONE_NEWNS) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 0 : 1);
	if (pid < 0)
		return 0;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

int
gitstep_begin(struct plan *pl, const char *attempt)
{
	char why[PATH_MAX + 256];
	struct gitws *g = &pl->gw;

	snprintf(pl->agent_ws, sizeof pl->agent_ws, "%s", pl->workspace);
	if (!pl->git)
		return 0;
	if (pl->pol->git == GIT_OFF) {
		msg_warn("git: off: the agent works in %s with your real .git (hooks and config it writes run when you use git there)",
		    pl->workspace);
		return 0;
	}
	if (gitws_undo_protect(g, why, sizeof why) < 0)
		msg_warn("%s", why);
	if (g->mode == GIT_INPLACE && !gitstep_ns_ok()) {
		msg_fatal("--in-place needs a private mount namespace, and this machine refuses one (user namespaces off, or a container): nothing was started");
		msg_hint("use --worktree (the default): the agent gets a checkout of its own and needs no namespace");
		return -1;
	}
	if (gitws_setup(g, pl->store, attempt, why, sizeof why) < 0) {
		msg_fatal("git: %s", why);
		return -1;
	}
	snprintf(pl->agent_ws, sizeof pl->agent_ws, "%s", g->work);
	/* the agent starts where the run started, in its own checkout (made
	 * there when the checkout lacks it: an ignored directory) */
	if (g->sub[0] && (size_t)snprintf(pl->agent_ws, sizeof pl->agent_ws, "%s/%s", g->work, g->sub) <
	    sizeof pl->agent_ws) {
		for (char *c = pl->agent_ws + strlen(g->work) + 1; g->mode == GIT_WORKTREE; c++) {
			char k = *c;
			if (k != '/' && k != '\0')
				continue;
			*c = '\0';
			(void)mkdir(pl->agent_ws, 0755);
			*c = k;
			if (k == '\0')
				break;
		}
	}
	if (g->mode == GIT_WORKTREE)
		msg_info("git: worktree: the agent works in %s%s%s, a checkout of its own from %s (%s); your repository stays read-only to it",
		    g->work, g->sub[0] ? ", in " : "", g->sub, g->from_head ? "HEAD" :
		    strcmp(g->base, g->start) ? "your current state (its base: your changes and untracked files, never exported)" :
		    "your current state", g->start[0] ? g->start : "unborn");
	else
		msg_info("git: in-place: the agent works in %s over a private repository; your .git stays read-only to it",
		    pl->agent_ws);
	for (size_t i = 0; i < g->deplinks.n; i++)
		msg_info("git: %s: your installed dependencies, linked read-only (what the agent installs in their place stays in its checkout, never imported)",
		    g->deplinks.v[i]);
	return 0;
}

/* 1 when git merge of commit works in the user's tree now: no tracked
 * file changed, and no file the branch adds is there untracked. */
static int
gitstep_mergeable(const struct gitws *g, const char *commit)
{
	const char *const st[] = { "status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all", NULL };
	const char *const da[] = { "diff-tree", "-r", "-z", "--no-renames", "--diff-filter=A", "--name-only",
		g->start[0] ? g->start : "--root", commit, NULL };
	struct gitcall real = { g->git, g->gitdir, g->ws, NULL, NULL, NULL };
	char *out = NULL, p[PATH_MAX * 2];
	size_t len = 0;
	int ok = gitrun(&real, st, -1, -1, &out, &len, 1 << 20) == 0 && len == 0;

	free(out);
	out = NULL;
	if (ok && (ok = gitrun(&real, da, -1, -1, &out, &len, 64 << 20) == 0))
		for (size_t at = g->start[0] ? 0 : strlen(out) + 1; ok && at < len; at += strlen(out + at) + 1)
			if ((size_t)snprintf(p, sizeof p, "%s/%s", g->ws, out + at) < sizeof p &&
			    access(p, F_OK) == 0)
				ok = 0;
	free(out);
	return ok;
}

int
gitstep_end(struct plan *pl, const char *attempt)
{
	struct gitws_result r;
	char why[PATH_MAX + 256], line[16384];
	const char *b;
	int n;

	if (!pl->git || pl->pol->git == GIT_OFF || !pl->gw.dir[0])
		return 0;
	if (gitws_import(&pl->gw, attempt, &r, why, sizeof why) < 0) {
		gitws_release(&pl->gw, 1);
		msg_warn("git: the import failed: %s", why);
		msg_hint("nothing is lost: the agent's checkout and repository stay in %s", pl->gw.dir);
		return -1;
	}
	gitws_release(&pl->gw, r.xrefused > 0);
	if (r.refused[0])
		msg_warn("git: %s", r.refused);
	if (r.quarantined)
		msg_warn("git: %d nested repositories or special files were moved aside, not imported: %s (LIST names them)",
		    r.quarantined, r.quarantine);
	if (r.overlaps)
		msg_warn("git: %s: the agent changed what you changed (uncommitted) there, and the two overlap: the branch holds its whole version of %s, your change included; corral apply will stop on %s",
		    r.overlap, r.overlaps == 1 ? "that file" : "those files", r.overlaps == 1 ? "it" : "them");
	if (r.own_deps)
		msg_info("git: %s: the agent put its own install in place of your linked dependencies; it stayed in its checkout and was not imported",
		    r.deps);
	if (r.xrefs)
		msg_info("git: its other branches and tags (new or moved), each checked like HEAD: %s", r.xnames);
	if (r.xrefused)
		msg_warn("git: %d of its other refs were not imported: %s; they stay in %s", r.xrefused, r.xwhy,
		    pl->gw.dir);
	if (!r.branch[0]) {
		msg_info("git: the agent changed nothing: no branch made");
		return 0;
	}
	b = r.branch + strlen("refs/heads/");
	n = snprintf(line, sizeof line, "git: branch %s: %ld commit%s%s, %s; review: git log -p %s%s",
	    b, r.commits, r.commits == 1 ? "" : "s", r.uncommitted ? " (the last holds what it left uncommitted)" : "",
	    r.shortstat, pl->gw.start[0] ? "HEAD.." : "", b);
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	if (pl->pol->git == GIT_INPLACE)
		msg_info("%s; its changes are already in your working tree (uncommitted), so there is nothing to merge", line);
	else if (gitstep_mergeable(&pl->gw, r.commit))
		msg_info("%s; merge: git merge %s (or corral apply %.8s)", line, b, attempt);
	else
		msg_info("%s; apply: corral apply %.8s (three-way into your working tree; your local changes stay uncommitted)",
		    line, attempt);
	return 0;
}

void
gitstep_discard(struct plan *pl)
{
	gitws_release(&pl->gw, 0);
	if (pl->gw.dir[0] && rmtree_at(AT_FDCWD, pl->gw.dir) == 0)
		pl->gw.dir[0] = '\0';
}

void
gitstep_grants(const struct plan *pl, struct argv *a)
{
	const struct gitws *g = &pl->gw;
	size_t i = 0;

	if (!pl->git || pl->pol->git == GIT_OFF) {
		av_push(a, "-W");
		av_push(a, pl->workspace);
		return;
	}
	if (pl->pol->git == GIT_WORKTREE) {
		av_push(a, "-W");
		av_push(a, g->work);
		/* the user's dependency directories linked in: read and execute */
		for (size_t k = 0; k < g->deplinks.n; k++) {
			av_push(a, "-x");
			av_pushf(a, "%s/%s", g->ws, g->deplinks.v[k]);
		}
	} else {
		/* in-place: the attempt repository over WORKSPACE/.git, the
		 * real objects (hidden under it) where its alternates point */
		av_push(a, "--mount-ro");
		av_pushf(a, "%s:%s/git/%s/real-objects", g->objects.v[0], pl->store, pl->attempt);
		av_push(a, "--mount");
		av_pushf(a, "%s/git/%s/repo:%s/.git", pl->store, pl->attempt, pl->workspace);
		av_push(a, "-W");
		av_push(a, pl->workspace);
		av_push(a, "-r");
		av_pushf(a, "%s/git/%s/real-objects", pl->store, pl->attempt);
		i = 1;
	}
	/* the base's objects and the real ones, read-only: the attempt
	 * repository's alternates */
	av_push(a, "-r");
	av_pushf(a, "%s/git/%s/base", pl->store, pl->attempt);
	for (; i < g->objects.n; i++) {
		av_push(a, "-r");
		av_push(a, g->objects.v[i]);
	}
}

void
gitstep_pins(const struct plan *pl, struct argv *a)
{
	if (!pl->git || pl->pol->git != GIT_WORKTREE)
		return;
	av_push(a, "-p");
	if (pl->agent_ws[0])
		av_pushf(a, "PWD=%s", pl->agent_ws);
	else
		av_pushf(a, "PWD=%s%s%s", pl->gw.work, pl->gw.sub[0] ? "/" : "", pl->gw.sub);
}

void
gitstep_explain(FILE *f, const struct plan *pl, int phase)
{
	const struct gitws *g = &pl->gw;

	if (!pl->git)
		return;
	if (pl->pol->git == GIT_OFF) {
		if (phase == 0)
			fprintf(f, "# WARNING: \"git\": \"off\": the agent writes the real %s/.git; hooks and config it plants run when you use git there\n",
			    pl->workspace);
		return;
	}
	if (phase == 0) {
		if (g->mode == GIT_WORKTREE)
			fprintf(f, "# git (worktree): corral run makes the attempt repository %s/.git, outside the workspace\n"
			    "#   (this repository's stable checkout; a run beside another takes the next free one)\n"
			    "#   and the attempt's own files in %s/git/$ATTEMPT:\n", g->work, pl->store);
		else
			fprintf(f, "# git (in-place): corral run makes the attempt repository %s/git/$ATTEMPT/repo, outside the workspace:\n",
			    pl->store);
		fprintf(f, "#   objects/info/alternates -> %s (read-only to the agent)\n", g->objects.v[0]);
		fprintf(f, "#   packed-refs <- %s --git-dir=%s for-each-ref; HEAD <- %s/HEAD\n", g->git, g->gitdir, g->gitdir);
		if (g->mode == GIT_WORKTREE && g->from_head)
			fprintf(f, "#   checkout: git read-tree --reset -u HEAD (from HEAD)\n");
		else if (g->mode == GIT_WORKTREE)
			fprintf(f, "#   index <- %s/index; checkout: git checkout-index -a -f -u; then each path of\n"
			    "#   git --git-dir=%s --work-tree=%s status --porcelain -z --untracked-files=all is copied over\n",
			    g->gitdir, g->gitdir, pl->workspace);
		else
			fprintf(f, "#   index <- %s/index; confine lays it over %s/.git in a private mount namespace\n",
			    g->gitdir, pl->workspace);
		fprintf(f, "#   your tracked changes and untracked files, if any: a base commit over HEAD, its objects in\n"
		    "#   %s/git/$ATTEMPT/base (read-only to the agent), never exported\n", pl->store);
		if (g->mode == GIT_WORKTREE && g->deps)
			for (size_t i = 0; i < g->deps->n; i++)
				fprintf(f, "#   %s, when you have it and it is ignored: a link to %s/%s, read and execute only\n",
				    g->deps->v[i], g->ws, g->deps->v[i]);
		fprintf(f, "# every git corral runs: env -i with GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null, and -c");
		for (size_t i = 0; gitsafe_cfg[i]; i++)
			fprintf(f, " %s", gitsafe_cfg[i]);
		fprintf(f, "\n");
		if (g->mode == GIT_WORKTREE)
			fprintf(f, "cd %s%s%s || exit 125\n", g->work, g->sub[0] ? "/" : "", g->sub);
		return;
	}
	if (g->mode == GIT_WORKTREE)
		fprintf(f, "cd - >/dev/null\n");
	fprintf(f, "# git import, after every process of the attempt ended; git runs in %s only,\n"
	    "# never with the attempt repository's config, hooks, index or worktree pointers:\n"
	    "#   its HEAD and refs are read as data (names and ids checked, regular files only)\n"
	    "#   its loose objects and packs are copied as bytes to %s/git/$ATTEMPT/objects (packs: git index-pack --stdin)\n"
	    "#   git --git-dir=%s pack-objects --revs --stdout (that directory as an alternate) | git index-pack --stdin --strict\n"
	    "#   nested repositories and special files in its tree are moved to %s/git/$ATTEMPT/quarantine\n"
	    "#   GIT_INDEX_FILE=<copy of the starting index> git --work-tree=<its tree> read-tree -m START HEAD; add -A; write-tree; commit-tree\n"
	    "#   git update-ref refs/heads/corral/<the first 8 characters of $ATTEMPT> RESULT \"\"   (a new branch only)\n"
	    "#   its other branches and tags that moved, each the same way: refs/heads/corral/<8>-NAME, refs/tags/corral/<8>/NAME\n",
	    g->gitdir, pl->store, g->gitdir, pl->store);
}
