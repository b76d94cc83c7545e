/* corral explain: the steps corral run takes, as a shell script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentsock.h"
#include "cli.h"
#include "gitstep.h"
#include "browser.h"
#include "mcp.h"
#include "msg.h"

/* Print a[from..to) quoted, space-separated (SHVAR expansions when vars). */
static int
put(FILE *f, const struct argv *a, size_t from, size_t to, int vars)
{
	char q[PATH_MAX * 4 + 16];

	for (size_t i = from; i < to; i++) {
		if (sh_quote(a->v[i], vars, q, sizeof q) < 0)
			return -1;
		if (i > from)
			fputc(' ', f);
		fputs(q, f);
	}
	return 0;
}

static int
line(FILE *f, const char *pre, const struct argv *a, const char *post)
{
	fputs(pre, f);
	if (put(f, a, 0, a->n, 1) < 0)
		return -1;
	fputs(post, f);
	return 0;
}

/* One line per note, control characters shown as '?' (a path may hold a
 * newline: it must not end the comment). */
void
notes_print(FILE *f, const char *pre, const struct plan *pl)
{
	for (size_t i = 0; i < pl->notes.n; i++) {
		fputs(pre, f);
		for (const char *s = pl->notes.v[i]; *s; s++)
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
		fputc('\n', f);
	}
}

/* runfiles snapshot (0) or report (1) of the directory the agent writes,
 * its state in the attempt's directory: what corral run executes. */
static int
runfiles_line(FILE *f, const struct plan *pl, int phase)
{
	char root[PATH_MAX], st[PATH_MAX + 16], q[PATH_MAX * 4 + 16], post[PATH_MAX * 4 + 32];
	struct argv a = { 0 };
	int r;

	if (pl->git && pl->pol->git != GIT_OFF && pl->gw.mode == GIT_WORKTREE)
		snprintf(root, sizeof root, "%s", SHVAR("GIT_CWD"));	/* git-stage create's "cwd" */
	else
		snprintf(root, sizeof root, "%s", pl->workspace);
	snprintf(st, sizeof st, "%s/runfiles", pl->attempt_dir);
	if (sh_quote(st, 1, q, sizeof q) < 0)
		return -1;
	snprintf(post, sizeof post, " %s %s\n", phase ? "<" : ">", q);
	if (phase == 0)
		fputs("# files that run code (editor tasks, .envrc, hooks...): noted before, named after;\n"
		    "# runfiles reads the tree read-only (Landlock) and writes nothing; corral run does\n"
		    "# both in one process, runfiles watch, which keeps the snapshot in its memory and\n"
		    "# reports after its go byte (once every process of the attempt has ended)\n", f);
	r = (phase ? step_report(pl, root, &a) : step_snapshot(pl, root, &a)) < 0 ? -1 : 0;
	if (r == 0)
		r = line(f, "", &a, post);
	av_free(&a);
	return r;
}

int
explain_print(FILE *f, const struct plan *pl0)
{
	struct plan pl = *pl0;
	struct argv a = { 0 };
	size_t ei, ci, xi;
	int r = 0, git = pl.git && pl.pol->git != GIT_OFF;

	pl.attempt = SHVAR("ATTEMPT");
	pl.attempt_dir = SHVAR("ATTEMPT_DIR");
	fprintf(f, "#!/bin/sh\n"
	    "# corral explain: what corral run executes, step by step; runnable by hand.\n"
	    "# Secrets are passed by file and never appear here.\n");
	if (git && pl.pol->git == GIT_WORKTREE) {
		/* the checkout and where the agent starts: what git-stage
		 * create prints (the first free slot of this repository) */
		snprintf(pl.gw.work, sizeof pl.gw.work, "%s", SHVAR("GIT_WORK"));
		snprintf(pl.agent_ws, sizeof pl.agent_ws, "%s", SHVAR("GIT_CWD"));
		/* and the dependency links, known once create has run */
		if (pl.gw.ndeps)
			pl.dep_grants = SHVAR("@");
	}
	if (pl.pol->userns)
		fprintf(f, "# warning: %s\n", POLICY_USERNS_WARNING);
	notes_print(f, "# ", &pl);	/* tool: install trees and toolchains granted, PATH left out */
	if (step_probe(&pl, &a) < 0 || line(f, "eval \"$(", &a, ")\" || exit 125\n") < 0)
		r = -1;
	av_free(&a);
	/* corral run chooses the attempt id (128 random bits) */
	if (r == 0)
		fputs("ATTEMPT=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')\n", f);
	if (r == 0 && pl.nosignin[0]) {
		/* no sign-in to stage: the override profile corral run writes
		 * (into the store, made 0700 when it is not there yet) */
		char doc[512], qd[2048], qf[PATH_MAX * 4 + 16], qs[PATH_MAX * 4 + 16];
		if (plan_nosignin_json(&pl, doc, sizeof doc) < 0 || sh_quote(doc, 0, qd, sizeof qd) < 0 ||
		    sh_quote(pl.nosignin, 0, qf, sizeof qf) < 0 || sh_quote(pl.store, 0, qs, sizeof qs) < 0)
			r = -1;
		else
			fprintf(f, "(umask 077 && mkdir -p %s && printf '%%s' %s > %s)\n", qs, qd, qf);
	}
	if (r == 0 && (step_create(&pl, &a) < 0 ||
	    line(f, "ATTEMPT_DIR=$(", &a, ") || exit 125\n") < 0))
		r = -1;
	av_free(&a);
	if (r == 0) {
		/* the socket its own rule puts outside the grants (agentsock.c) */
		char sk[512];
		if (agentsock_explain(pl.agent, sk, sizeof sk) == 1) {
			fputs(sk, f);
			pl.agent_sock = SHVAR("AGENT_SOCK");
		}
	}
	if (r == 0 && pl.pol->net == NET_ALLOW) {
		/* the domain allowlist: egress-proxy (its URL on its stdout),
		 * first: the browser's proxy names its port */
		char q[PATH_MAX * 4 + 16], qq[PATH_MAX * 4 + 16];
		snprintf(pl.egress_port, sizeof pl.egress_port, "\001EGRESS_PORT\002");
		snprintf(q, sizeof q, "%s/egress.url", pl.attempt_dir);
		fprintf(f, "# the domain allowlist: egress-proxy, outside the boundary\n");
		if (step_egress(&pl, &a) < 0 || line(f, "", &a, " </dev/null > ") < 0 ||
		    sh_quote(q, 1, qq, sizeof qq) < 0)
			r = -1;
		else
			fprintf(f, "%s &\nEGRESS_PORT=$(until grep -q http %s; do sleep 0.1; done; sed 's|^http://127.0.0.1:||' %s)\n",
			    qq, qq, qq);
		av_free(&a);
	}
	for (size_t i = 0; r == 0 && i < pl.pol->nmcp; i++) {
		/* an MCP server: a per-attempt token, the proxy (its URL on its
		 * stdout), then $CORRAL_MCP_CONFIG, which corral run writes */
		char port[32], var[24], q[PATH_MAX * 4 + 16];
		snprintf(var, sizeof var, "MCP_PORT_%zu", i + 1);
		snprintf(port, sizeof port, "\001%s\002", var);
		snprintf(pl.mcp_port[i], sizeof pl.mcp_port[i], "%s", port);
		snprintf(q, sizeof q, "%s/mcp-%s.token", pl.attempt_dir, pl.pol->mcp[i].name);
		fprintf(f, "# MCP server %s (corral run writes $CORRAL_MCP_CONFIG from its URL and token)\n",
		    pl.pol->mcp[i].name);
		fprintf(f, "(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > ");
		{
			char qq[PATH_MAX * 4 + 16];
			if (sh_quote(q, 1, qq, sizeof qq) < 0)
				r = -1;
			else
				fprintf(f, "%s)\n", qq);
		}
		if (r == 0 && pl.pol->mcp[i].browser) {
			/* the browser's own directory, which corral run makes */
			char qd[PATH_MAX * 4 + 16], qc[512], cfg[256];
			snprintf(q, sizeof q, "%s/browser", pl.attempt_dir);
			if (sh_quote(q, 1, qd, sizeof qd) < 0 || browser_config(&pl, cfg, sizeof cfg) < 0 ||
			    sh_quote(cfg, 1, qc, sizeof qc) < 0)
				r = -1;
			else
				fprintf(f, "(umask 077 && mkdir %s %s/profile %s/tmp %s/out && printf '%%s' %s > %s/config.json)\n",
				    qd, qd, qd, qd, qc, qd);
		}
		char envpre[4096];
		if (r == 0 && (step_mcp(&pl, i, &a) < 0 || mcp_env_prefix(&pl.pol->mcp[i], envpre, sizeof envpre) < 0 ||
		    line(f, envpre, &a, " </dev/null > ") < 0))
			r = -1;
		snprintf(q, sizeof q, "%s/mcp-%s.url", pl.attempt_dir, pl.pol->mcp[i].name);
		{
			char qq[PATH_MAX * 4 + 16];
			if (r == 0 && sh_quote(q, 1, qq, sizeof qq) >= 0)
				fprintf(f, "%s &\n%s=$(until grep -q mcp %s; do sleep 0.1; done; sed 's|^http://127.0.0.1:\\([0-9]*\\)/mcp$|\\1|' %s)\n",
				    qq, var, qq, qq);
		}
		av_free(&a);
	}
	if (r == 0 && pl.pol->net == NET_UNFILTERED)
		fprintf(f, "# warning: \"network\": \"open-unfiltered\": the agent reaches cloud metadata\n"
		    "# (169.254.169.254) and every loopback service of this machine\n");
	if (r == 0)
		gitstep_explain(f, &pl, 0);
	if (r == 0)
		r = runfiles_line(f, &pl, 0);
	if (r == 0 && pl.env_project) {
		/* values never in argv: a shell variable, then a here-document
		 * (a pipe in dash) on the descriptor env-filter reads */
		fprintf(f, "# project %s's environment: released once for this attempt (a second release is\n"
		    "# refused), read by env-filter from descriptor %d (layer 2: the pins still win);\n"
		    "# corral run also leaves out the agent's own names (HOME, its sign-in variables...)\n",
		    pl.env_project, pl.env_fd);
		if (step_envrel(&pl, &a) < 0 || line(f, "CORRAL_ENV=$(", &a, ") || exit 125\n") < 0)
			r = -1;
		else
			fprintf(f, "exec %d<<CORRAL_ENV_END\n$CORRAL_ENV\nCORRAL_ENV_END\nunset CORRAL_ENV\n", pl.env_fd);
		av_free(&a);
	}
	if (r == 0 && step_chain(&pl, &a, &ei, &ci, &xi) == 0) {
		/* the gate: corral run writes the go byte into a pipe once the
		 * proof is in; here probe ran first (its "|| exit 125"), so a
		 * pipe that holds it already, the chain's stdin given back */
		if (run_chain_early(&pl))
			fputs("# corral run starts this chain beside the proof (probe, above): confine sets up the\n"
			    "# boundary, then waits on its gate for the go byte, which corral writes only\n", f);
		else
			fputs("# corral run starts this chain once the proof is in and the proxies are up:\n"
			    "# confine sets up the boundary, then waits on its gate for the go byte, which\n"
			    "# corral writes only\n", f);
		fprintf(f, "# once probe has passed; a failed proof closes the gate (confine exits 125, the\n"
		    "# program never runs). Here probe ran first, so the gate opens at once.\n");
		if (pl.pol->limits.v[LIM_WALL])
			fputs("# keeper holds the gate (--gate): the wall clock starts when it passes the byte on.\n", f);
		fputs("{ printf g | ", f);
		/* one step per line; each "--" ends the step before it */
		if (put(f, &a, 0, ei - 1, 1) < 0)
			r = -1;
		fputs(" \\\n  -- ", f);
		if (r == 0 && put(f, &a, ei, ci - 1, 1) < 0)
			r = -1;
		fputs(" \\\n  -- ", f);
		if (r == 0 && put(f, &a, ci, xi - 1, 1) < 0)
			r = -1;
		fputs(" \\\n  -- ", f);
		if (r == 0 && put(f, &a, xi, a.n, 0) < 0)
			r = -1;
		fprintf(f, " %d<&0 <&%d %d<&-; } %d<&0\nSTATUS=$?\n", pl.gate_fd, pl.gate_fd + 1, pl.gate_fd + 1,
		    pl.gate_fd + 1);
		if (runfiles_line(f, &pl, 1) < 0)
			r = -1;
		gitstep_explain(f, &pl, 1);
	} else {
		r = -1;
	}
	av_free(&a);
	/* the take-back, the removal and the attempt's end: one process */
	if (r == 0)
		fputs("# the take-back, the removal and the attempt's end: corral run has create do this\n"
		    "# (home-stage create --finish: one process, which keeps what it made and waits on\n"
		    "# its input); apart, as here, it waits for the go byte and the status on its input,\n"
		    "# which corral writes once every process of the attempt has ended\n", f);
	if (r == 0 && (step_finish(&pl, "-", SHVAR("platform"), SHVAR("tier"), &a) < 0 ||
	    line(f, "printf 'g%s' \"$STATUS\" | ", &a, "\nexit \"$STATUS\"\n") < 0))
		r = -1;
	av_free(&a);
	return r;
}

int
cmd_explain(int argc, char **argv, char **envp)
{
	struct runopts o;
	struct policy pol;
	struct plan pl;
	int r;

	msg_init("corral");
	if ((r = runopts_parse(argc, argv, &o)) != 0)
		return r > 0 ? 0 : EXIT_USAGE;
	policy_init(&pol);
	if (plan_load(&o, envp, &pol, &pl, 0) < 0) {
		plan_free(&pl);
		policy_free(&pol);
		return EXIT_NO;
	}
	r = explain_print(stdout, &pl);
	plan_free(&pl);
	policy_free(&pol);
	if (r < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		msg_fatal_sys("unable to write the explanation");
		return EXIT_USAGE;
	}
	return 0;
}
