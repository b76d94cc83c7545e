#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdio.h"
#include "gitrun.h"
#include "procspawn.h"
#include "gitsafe.h"
#include "gitstep.h"
#include "msg.h"
#include "resolve.h"

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
	g->deps = pol->git_deps.v;
	g->ndeps = pol->git_deps.n;
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
gitstep_argv(const struct plan *pl, int phase, struct argv *a)
{
	const struct gitws *g = &pl->gw;

	av_pushf(a, "%s/git-stage", pl->stepdir);
	av_push(a, phase == 0 ? "create" : phase == 1 ? "finish" : "discard");
	/* its lines are the run's: said as corral's own */
	av_push(a, "--name");
	av_push(a, "corral");
	av_push(a, "--state");
	av_push(a, pl->store);
	av_push(a, "--attempt");
	av_push(a, pl->attempt);
	/* finish starts beside runfiles report: the checkout is left as it
	 * is until its input ends (gitstep_finish_start) */
	if (phase == 1)
		av_push(a, "--wait-input");
	if (phase == 0) {
		if (g->mode == GIT_INPLACE)
			av_push(a, "--in-place");
		if (g->from_head)
			av_push(a, "--from-head");
		if (g->sub[0]) {
			av_push(a, "--sub");
			av_push(a, g->sub);
		}
		for (size_t i = 0; i < g->ndeps; i++) {
			av_push(a, "--dep");
			av_push(a, g->deps[i]);
		}
		/* the slot stays taken while this process lives */
		av_push(a, "--caller");
		if (pl->attempt[0] == '\001')
			av_push(a, SHVAR("$"));		/* explain: the script's shell */
		else
			av_pushf(a, "%d", (int)getpid());
		av_push(a, g->ws);
	}
	return a->err ? (errno = ENOMEM, -1) : 0;
}

int
gitstep_start(struct plan *pl, char **senv, struct spawned *sp)
{
	struct gitws *g = &pl->gw;
	struct argv a = { 0 };
	int r;

	sp->pid = -1;
	snprintf(pl->agent_ws, sizeof pl->agent_ws, "%s", pl->workspace);
	if (!pl->git)
		return 0;
	if (pl->pol->git == GIT_OFF) {
		msg_warn("git: off: the agent works in %s with your real .git (hooks and config it writes run when you use git there)",
		    pl->workspace);
		return 0;
	}
	if (g->mode == GIT_INPLACE && !gitstep_ns_ok()) {
		msg_fatal("--in-place needs a private mount namespace, and this machine refuses one (user namespaces off, or a container): nothing was started");
		msg_hint("use --worktree (the default): the agent gets a checkout of its own and needs no namespace");
		return -1;
	}
	r = gitstep_argv(pl, 0, &a) < 0 ? -1 : spawn_start(a.v, senv, SPAWN_CAPTURE, sp);
	av_free(&a);
	if (r < 0)
		return msg_fatal_sys("unable to run git-stage create"), -1;
	return 0;
}

int
gitstep_collect(struct plan *pl, const char *attempt, char **senv, struct spawned *sp)
{
	struct gitws *g = &pl->gw;
	char out[PATH_MAX * 8], *l, *e;
	int ws;

	if (sp->pid <= 0)
		return 0;
	ws = spawn_collect(sp, out, sizeof out);
	sp->pid = -1;
	if (ws < 0)
		return msg_fatal_sys("unable to run git-stage create"), -1;
	/* it said why itself */
	if (wait_code(ws) != 0)
		return -1;
	if ((size_t)snprintf(g->dir, sizeof g->dir, "%s/git/%s", pl->store, attempt) >= sizeof g->dir)
		g->dir[0] = '\0';
	av_free(&g->deplinks);
	for (l = out; *l; l = e) {
		e = l + strcspn(l, "\n");
		if (*e)
			*e++ = '\0';
		if (strncmp(l, "work ", 5) == 0)
			snprintf(g->work, sizeof g->work, "%s", l + 5);
		else if (strncmp(l, "cwd ", 4) == 0)
			snprintf(pl->agent_ws, sizeof pl->agent_ws, "%s", l + 4);
		else if (strncmp(l, "dep ", 4) == 0)
			av_push(&g->deplinks, l + 4);
		else if (strncmp(l, "holder ", 7) == 0)
			g->holder = atoi(l + 7);
	}
	if (!g->work[0] || g->deplinks.err) {
		msg_fatal("git-stage create printed no checkout: nothing was started");
		gitstep_discard(pl, senv);
		return -1;
	}
	return 0;
}

/* The holder, reparented to corral (a child subreaper) when create
 * exited: finish and discard wait (bounded) for its end, so it is reaped
 * here at once instead of staying a zombie until corral exits. Only a
 * child of corral's is ever reaped (waitpid refuses any other pid). */
static void
reap_holder(struct gitws *g)
{
	if (g->holder > 0)
		while (waitpid(g->holder, NULL, WNOHANG) < 0 && errno == EINTR)
			;
	g->holder = 0;
}

int
gitstep_finish_start(struct plan *pl, char **senv, struct spawned *sp, int *go)
{
	struct argv a = { 0 };
	int p[2], r;

	if (sp->pid > 0)
		return 0;	/* started while the agent ran */
	sp->pid = -1;
	*go = -1;
	if (!pl->git || pl->pol->git == GIT_OFF || !pl->gw.dir[0])
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return msg_warn_sys("git: unable to run git-stage finish (pipe)"), -1;
	r = gitstep_argv(pl, 1, &a) < 0 ? -1 : spawn_start_in(a.v, senv, p[0], 0, sp);
	av_free(&a);
	close(p[0]);
	if (r < 0) {
		close(p[1]);
		pl->gw.dir[0] = '\0';
		reap_holder(&pl->gw);
		sp->pid = -1;
		return msg_warn_sys("git: unable to run git-stage finish"), -1;
	}
	*go = p[1];
	return 0;
}

int
gitstep_finish_end(struct plan *pl, struct spawned *sp, int go)
{
	int ws;

	if (go >= 0) {
		/* the go byte, then its input ends: the checkout may change.
		 * A finish that has ended reads nothing: its EPIPE and SIGPIPE
		 * are taken (fd_write_nopipe), never corral's end. */
		(void)fd_write_nopipe(go, "g", 1);
		close(go);
	}
	if (sp->pid <= 0)
		return 0;
	ws = spawn_collect(sp, NULL, 0);
	sp->pid = -1;
	pl->gw.dir[0] = '\0';
	reap_holder(&pl->gw);
	if (ws < 0)
		return msg_warn_sys("git: unable to run git-stage finish"), -1;
	return wait_code(ws) == 0 ? 0 : -1;
}

void
gitstep_discard(struct plan *pl, char **senv)
{
	struct argv a = { 0 };

	if (!pl->gw.dir[0])
		return;
	if (gitstep_argv(pl, 2, &a) == 0)
		(void)spawn_wait(a.v, senv, NULL, 0);
	av_free(&a);
	pl->gw.dir[0] = '\0';
	reap_holder(&pl->gw);
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
		/* the checkout and the base (below), opened after the go
		 * byte: the chain may start before create has made them
		 * (run.c) */
		if (pl->gate_fd > 2)
			av_push(a, "--on-go");
		av_push(a, "-W");
		av_push(a, g->work);
		/* the user's dependency directories linked in: read and execute */
		if (pl->dep_grants)
			av_push(a, pl->dep_grants);
		for (size_t k = 0; !pl->dep_grants && k < g->deplinks.n; k++) {
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
	if (pl->pol->git == GIT_WORKTREE && pl->gate_fd > 2)
		av_push(a, "--on-go");
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
	struct argv a = { 0 };
	char q[PATH_MAX * 4 + 16];

	if (!pl->git)
		return;
	if (pl->pol->git == GIT_OFF) {
		if (phase == 0)
			fprintf(f, "# WARNING: \"git\": \"off\": the agent writes the real %s/.git; hooks and config it plants run when you use git there\n",
			    pl->workspace);
		return;
	}
	if (gitstep_argv(pl, phase, &a) < 0) {
		av_free(&a);
		return;
	}
	if (phase == 0) {
		if (g->mode == GIT_WORKTREE)
			fprintf(f, "# git (worktree): git-stage create makes the attempt repository and the agent's own\n"
			    "#   checkout (this repository's first free stable slot in %s/git/co), its own files in\n"
			    "#   %s/git/$ATTEMPT; it prints the checkout (work) and where the agent starts (cwd)\n",
			    pl->store, pl->store);
		else
			fprintf(f, "# git (in-place): git-stage create makes the attempt repository %s/git/$ATTEMPT/repo,\n"
			    "#   which confine lays over %s/.git in a private mount namespace\n", pl->store, pl->workspace);
		fprintf(f, "#   objects/info/alternates -> %s (read-only to the agent); refs and HEAD copied;\n"
		    "#   your tracked changes and untracked files, if any: a base commit over HEAD, never exported\n",
		    g->objects.n ? g->objects.v[0] : "");
		fprintf(f, "# every git it runs: env -i with GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null, and -c");
		for (size_t i = 0; gitsafe_cfg[i]; i++)
			fprintf(f, " %s", gitsafe_cfg[i]);
		fprintf(f, "\n");
		if (g->mode == GIT_WORKTREE) {
			fputs("GIT_STAGE=$(", f);
			for (size_t i = 0; i < a.n; i++)
				if (sh_quote(a.v[i], 1, q, sizeof q) >= 0)
					fprintf(f, "%s%s", i ? " " : "", q);
			fputs(") || exit 125\n"
			    "GIT_WORK=$(printf '%s\\n' \"$GIT_STAGE\" | sed -n 's/^work //p')\n"
			    "GIT_CWD=$(printf '%s\\n' \"$GIT_STAGE\" | sed -n 's/^cwd //p')\n"
			    "cd \"$GIT_CWD\" || exit 125\n", f);
			if (pl->dep_grants && sh_quote(g->ws, 1, q, sizeof q) >= 0)
				/* no eval: each "dep" line is one word, read as data */
				fprintf(f, "# your installed dependencies it linked in (its \"dep\" lines): confine grants\n"
				    "#   each read and execute, here \"$@\"\n"
				    "set --\n"
				    "while IFS= read -r GIT_DEP; do\n"
				    "\tcase $GIT_DEP in \"dep \"*) set -- \"$@\" -x %s/\"${GIT_DEP#dep }\" ;; esac\n"
				    "done <<CORRAL_GIT_STAGE_END\n"
				    "$GIT_STAGE\n"
				    "CORRAL_GIT_STAGE_END\n", q);
		} else {
			for (size_t i = 0; i < a.n; i++)
				if (sh_quote(a.v[i], 1, q, sizeof q) >= 0)
					fprintf(f, "%s%s", i ? " " : "", q);
			fputs(" >/dev/null || exit 125\n", f);
		}
		av_free(&a);
		return;
	}
	if (g->mode == GIT_WORKTREE)
		fprintf(f, "cd - >/dev/null\n");
	fprintf(f, "# git import, after every process of the attempt ended: git-stage finish narrows itself\n"
	    "#   (Landlock: it writes only %s/git/$ATTEMPT, the checkout's slot and the trash, and\n"
	    "#   %s's objects, refs and logs), reads the agent's refs and objects as data (git never\n"
	    "#   runs with its config, hooks or index), moves nested repositories aside, and makes\n"
	    "#   refs/heads/corral/<the first 8 characters of $ATTEMPT> (a new branch only)\n",
	    pl->store, g->common);
	fputs("printf g | ", f);
	for (size_t i = 0; i < a.n; i++)
		if (sh_quote(a.v[i], 1, q, sizeof q) >= 0)
			fprintf(f, "%s%s", i ? " " : "", q);
	/* its input: the go byte at once (corral run's comes once every
	 * process of the attempt has ended and runfiles report, which ran
	 * beside it, has read the checkout; here both ran before) */
	fputs("\n", f);
	av_free(&a);
}
