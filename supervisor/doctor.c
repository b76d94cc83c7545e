/* corral doctor: what this machine proves, what the policy grants. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "browser.h"
#include "cli.h"
#include "gitstep.h"
#include "execenv.h"
#include "json.h"
#include "denials.h"
#include "msg.h"
#include "resolve.h"
#include "procspawn.h"
#include "store.h"

static void
jlist(FILE *f, const char *key, const struct argv *a, int comma)
{
	char q[PATH_MAX * 6 + 3];

	fprintf(f, "\"%s\":[", key);
	for (size_t i = 0; i < a->n; i++)
		if (json_quote(a->v[i], strlen(a->v[i]), q, sizeof q) >= 0)
			fprintf(f, "%s%s", i ? "," : "", q);
	fprintf(f, "]%s", comma ? "," : "");
}

static void
jstr(FILE *f, const char *key, const char *s, int comma)
{
	char q[PATH_MAX * 6 + 3];

	if (json_quote(s, strlen(s), q, sizeof q) < 0)
		snprintf(q, sizeof q, "null");
	fprintf(f, "\"%s\":%s%s", key, q, comma ? "," : "");
}

static void
tlist(FILE *f, const char *what, const struct argv *a)
{
	fprintf(f, "  %-22s", what);
	if (a->n == 0)
		fprintf(f, " (none)");
	for (size_t i = 0; i < a->n; i++)
		fprintf(f, " %s", a->v[i]);
	fprintf(f, "\n");
}

static const char *
netname(const struct policy *p)
{
	switch (p->net) {
	case NET_OPEN: return "open";
	case NET_NONE: return "none";
	case NET_PORTS: return "ports";
	case NET_ALLOW: return "allow";
	case NET_UNFILTERED: break;
	}
	return "open-unfiltered";
}

/* --json: probe's object, checked, then ours around it. */
static void
doctor_json(char *out, size_t outn, int code, const struct policy *p, const struct plan *pl)
{
	size_t n = strlen(out);
	jsmntok_t *t;

	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	t = malloc(8192 * sizeof *t);
	if (t == NULL || json_parse(out, n, t, 8192) < 0 || t[0].type != JSMN_OBJECT)
		snprintf(out, outn, "null");
	free(t);
	printf("{\"probe\":%s,\"probe_status\":%d,\"policy\":{", out, code);
	jstr(stdout, "steps", pl->stepdir, 1);
	if (pl->ws_why[0])
		jstr(stdout, "workspace_refused", pl->ws_why, 1);
	else
		jstr(stdout, "workspace", pl->workspace, 1);
	jstr(stdout, "git", gitstep_mode(pl), 1);
	jlist(stdout, "exec", &pl->ex, 1);
	jlist(stdout, "read", &pl->rd, 1);
	printf("\"proc\":%s,\"devices\":%s,", p->proc ? "true" : "false", p->devices ? "true" : "false");
	jlist(stdout, "write", &pl->wr, 1);
	jstr(stdout, "store", pl->store, 1);
	jstr(stdout, "network", netname(p), 1);
	printf("\"scope\":%s,", p->scope ? "true" : "false");
	printf("\"userns\":%s,", p->userns ? "true" : "false");
	jstr(stdout, "minimum_tier", plan_tier(pl), 1);
	jlist(stdout, "notes", &pl->notes, 1);	/* tool: install trees, toolchains, PATH left out */
	jstr(stdout, "home_unreachable", pl->home, 0);
	printf("}}\n");
}

/* The text report: what the policy grants here, and the verdict. */
static void
doctor_text(const struct runopts *o, int code, const struct policy *p, struct plan *pl, char *warn)
{
	if (o->policy_file)
		printf("\npolicy %s over the default, on this machine (corral run -p from here):\n",
		    o->policy_file);
	else
		printf("\ndefault policy, on this machine (corral run from here):\n");
	if (pl->ws_why[0])
		printf("  %-22s refused here: %s\n", "workspace", pl->ws_why);
	else
		printf("  %-22s %s\n", "workspace (read-write)", pl->workspace);
	if (pl->git)
		printf("  %-22s %s%s\n", "git", gitstep_mode(pl),
		    p->git == GIT_OFF ? " -- WARNING: the agent writes your real .git (its hooks and config run when you use git)" :
		    p->git == GIT_WORKTREE ? ": the agent works in a checkout of its own; its work comes back on a branch" :
		    gitstep_ns_ok() ? ": your checkout over a private repository (a mount namespace works here)" :
		    " -- refused here: no mount namespace; use worktree");
	tlist(stdout, "read + execute", &pl->ex);
	tlist(stdout, "read", &pl->rd);
	if (p->proc)
		printf("  %-22s /proc (read-only; every process's name, command line and status are visible;\n"
		    "  %-22s  other processes' environment, memory and open files are not)\n", "proc", "");
	if (p->devices)
		printf("  %-22s /dev (null, zero, random, urandom, tty, ptmx; its own terminal, no other pts)\n", "devices");
	printf("  %-22s %s\n", "agent ptys", p->devices ?
	    "its own (openpty, forkpty, script): confine's broker opens the slave of a master it holds; no other terminal" :
	    "none (\"devices\": false: no /dev/ptmx)");
	printf("  %-22s %s\n", "own sockets",
	    "a unix socket it binds in its write grants (confine's broker); none made outside");
	printf("  %-22s %s\n", "shared memory",
	    "the /dev/shm objects and semaphores it creates (confine's broker); not the user's others");
	tlist(stdout, "write", &pl->wr);
	printf("  %-22s %s/aNONCE/{home,config,tmp}, removed afterwards%s\n",
	    "private home and tmp", pl->trees, strcmp(pl->trees, pl->store) ? " (on the runtime tmpfs)" : "");
	if (strlen(pl->trees) > STORE_PATH_SOCKET_MAX)
		printf("  %-22s %zu bytes, over %d: a socket an agent binds in its home may not fit in 107 bytes"
		    " (codex's app server); set XDG_STATE_HOME to a shorter directory\n", "warning: state path",
		    strlen(pl->trees), STORE_PATH_SOCKET_MAX);
	printf("  %-22s HOME TMPDIR XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME\n", "pinned");
	printf("  %-22s %s%s; IPC scoping %s\n", "network", netname(p),
	    p->net == NET_OPEN || p->net == NET_PORTS ? " (no cloud metadata, no outside loopback service)" :
	    p->net == NET_ALLOW ? " (only the listed names, through corral's egress-proxy)" : "",
	    p->scope ? "on" : "off");
	if (p->net == NET_UNFILTERED)
		printf("  warning: \"network\": \"open-unfiltered\": the agent reaches cloud metadata and every loopback service\n");
	browser_report(stdout, "  ", pl);
	printf("  %-22s %s\n", "user namespaces", p->userns ? "allowed" : "refused");
	if (p->userns)
		printf("  warning: %s\n", POLICY_USERNS_WARNING);
	printf("  %-22s %s\n", "needs tier", plan_tier(pl));
	limits_report(stdout, "  ", &p->limits);
	printf("  %-22s %s\n", "unreachable", pl->home[0] ? pl->home : "(no home directory)");
	printf("  %-22s %s\n", "steps", pl->stepdir);
	{
		const char *no = denials_unavailable();
		printf("  %-22s %s\n", "denials", no ? no :
		    "recorded from kernel audit into the attempt's audit log; a failed run names them");
	}
	for (char *l = warn, *e; *l && (e = strchr(l, '\n')); l = e + 1) {
		*e = '\0';
		if (strncmp(l, "PATH directory ", 15) != 0 || strstr(l, "your home") == NULL)
			printf("  note: %s\n", l);	/* the home's are among the notes below */
	}
	if (pl->notes.n)
		printf("\ninstall trees, toolchains and system trees:\n");
	notes_print(stdout, "  ", pl);	/* tool */
	printf("\nthis machine %s\n", code == 0 ? "proves the boundary: corral run will start" :
	    "does not prove the boundary: corral run will refuse to start");
}

int
cmd_doctor(int argc, char **argv, char **envp)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "policy", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static char out[65536];
	struct runopts o = { 0 };
	char *shell_cmd[] = { (char *)"sh", NULL };
	struct policy pol;
	struct plan pl;
	struct argv a = { 0 }, senv = { 0 };
	char warn[4096], why[PATH_MAX + 256], hint[256];
	int c, json = 0, ws, code;

	o.git = -1;	/* no --worktree/--in-place here: the policy's "git" decides */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hp:", lo, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'p': o.policy_file = optarg; break;
		case 'h':
			printf("usage: corral doctor [-p POLICY] [--json]\n");
			return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, "corral doctor");
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		msg_usage("corral doctor [-p POLICY] [--json]");
		return EXIT_USAGE;
	}
	o.cmd = shell_cmd;
	memset(&pl, 0, sizeof pl);
	pl.ws_lenient = 1;
	policy_init(&pol);
	if (policy_load(&o, &pol) < 0)
		return EXIT_USAGE;
	if (plan_resolve(&pl, &pol, envp, o.cmd, why, sizeof why, hint, sizeof hint, warn, sizeof warn) < 0) {
		msg_fatal("%s", why);
		if (*hint)
			msg_hint("%s", hint);
		plan_free(&pl);
		policy_free(&pol);
		return EXIT_USAGE;
	}
	/* probe --verbose, run with an explicit small environment */
	av_push(&senv, "PATH=/usr/bin:/bin");
	av_pushf(&a, "%s/probe", pl.stepdir);
	av_push(&a, json ? "--json" : "--verbose");
	av_push(&a, "--require");
	av_push(&a, plan_tier(&pl));
	if (a.err || senv.err) {
		msg_fatal("out of memory");
		return EXIT_USAGE;
	}
	if (!json) {
		printf("corral doctor: what this machine proves, and what the default policy grants here\n\n");
		fflush(stdout);
	}
	ws = spawn_wait(a.v, senv.v, json ? out : NULL, sizeof out);
	av_free(&a);
	av_free(&senv);
	if (ws < 0) {
		msg_fatal_sys("unable to run %s/probe", pl.stepdir);
		plan_free(&pl);
		policy_free(&pol);
		return EXIT_USAGE;
	}
	code = wait_code(ws);
	if (json)
		doctor_json(out, sizeof out, code, &pol, &pl);
	else
		doctor_text(&o, code, &pol, &pl, warn);
	plan_free(&pl);
	policy_free(&pol);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return code == 0 ? 0 : code == 1 ? EXIT_NO : EXIT_USAGE;
}
