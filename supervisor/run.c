/* corral run: prove, open, stage, exec the chain, forward, wait, take back,
 * close. corral's own failure is 125; the agent's status passes through. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "agentsock.h"
#include "audit.h"
#include "runfiles.h"
#include "browser.h"
#include "cgroup.h"
#include "cli.h"
#include "execenv.h"
#include "fdio.h"
#include "egress.h"
#include "gitstep.h"
#include "mcp.h"
#include "denyreport.h"
#include "msg.h"
#include "parentdir.h"
#include "private.h"
#include "projenv.h"
#include "reslimit.h"
#include "rnd.h"
#include "stepdir.h"
#include "jobwait.h"
#include "procspawn.h"
#include "proctree.h"
#include "store.h"
#include "wait.h"

static volatile sig_atomic_t pending_sig;

static const int fwd_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH };

static void
on_signal(int sig)
{
	int e = errno;

	/* while keeper runs, keeper's (wait.c: job_wait_caught); before,
	 * corral's */
	if (job_forward(sig))
		return;
	if (sig != SIGWINCH)
		pending_sig = sig;
	errno = e;
}

static void
signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof fwd_sigs / sizeof fwd_sigs[0]; i++)
		spawn_sigaction(fwd_sigs[i], &sa, NULL);
}

/* The steps' own environment: explicit, small, no secrets. */
static const char *const step_keep[] = {
	"HOME", "USER", "LOGNAME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "TZ", NULL
};

static char **
step_env(char *const envp[], struct argv *store)
{
	enum { NKEEP = sizeof step_keep / sizeof step_keep[0] - 1 };
	const char *found[NKEEP] = { 0 };

	av_push(store, "PATH=/usr/bin:/bin");
	/* one pass over the environment, the first of each name kept (what
	 * env_get finds), each entry pushed as it is ("NAME=value"): not a
	 * pass and a format per name, before probe starts */
	for (; envp && *envp; envp++)
		for (size_t i = 0; i < NKEEP; i++) {
			size_t n;
			if (found[i] || (*envp)[0] != step_keep[i][0])
				continue;
			n = strlen(step_keep[i]);
			if (strncmp(*envp, step_keep[i], n) == 0 && (*envp)[n] == '=') {
				found[i] = *envp;
				break;
			}
		}
	for (size_t i = 0; i < NKEEP; i++)
		if (found[i])
			av_push(store, found[i]);
	return store->err ? NULL : store->v;
}

static void
chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* "platform=linux tier=full": pick out the two fields. */
static int
probe_fields(const char *out, char *platform, size_t pn, char *tier, size_t tn)
{
	const char *p = strstr(out, "platform="), *t = strstr(out, "tier=");

	if (p == NULL || t == NULL)
		return -1;
	p += 9;
	t += 5;
	snprintf(platform, pn, "%.*s", (int)strcspn(p, " \n"), p);
	snprintf(tier, tn, "%.*s", (int)strcspn(t, " \n"), t);
	return *platform && *tier ? 0 : -1;
}

struct runstate {
	struct mcpset mcp;
	struct denials den;		/* the boundary's refusals, from audit */
	struct refusals ref;		/* ... and the seccomp broker's (refusals.c) */
	struct egressproc eg;		/* egress-proxy (network allow) */
	struct plan pl;
	struct policy pol;
	struct audit au;
	char **senv;
	struct argv senv_store;
	char platform[32], tier[32];
	char attempt[80];
	char tree_nonce[STORE_TREE_NONCE_LEN + 1];	/* its tree's (home-stage create --nonce) */
	char attempt_dir[PATH_MAX];
	char agent_sock[108];		/* agentsock.c, "" none */
	char git_work[PATH_MAX];	/* the checkout the chain was started with */
	char git_cwd[PATH_MAX];		/* ... and where the agent starts in it,
					   both before create (git_predict), "" none */
	struct argv git_deps;		/* ... and the dependency links foreseen */
	int have_attempt, have_dir;
	struct spawned create;		/* home-stage create --begin (run_open) */
	int create_go;			/* ... --finish: its input's write end, -1: none
					   (it becomes hfin once create is in: run_stage) */
	struct spawned probe;		/* probe, beside create (prove_start) */
	const char *probe_tier;		/* ... the tier it was started to require */
	struct spawned gitc;		/* git-stage create, beside them (run_open) */
	struct spawned fin;		/* git-stage finish, from the agent's start (worktree) */
	int fin_go;			/* ... its input's write end (gitstep_finish_start) */
	struct spawned hfin;		/* home-stage finish --wait-input, from the agent's start,
					   or create --finish from create's end */
	int hfin_go;			/* ... its input's write end (home_finish_start) */
	int hfin_labels;		/* ... the platform and the tier go with the status */
	struct runfiles rf;		/* files that run code: the step runfiles (runfiles.c) */
	int rf_taken;
	/* the chain, started beside the proof and held at confine --gate
	 * (chain_start) until the go byte (chain_go) */
	pid_t keeper;			/* > 0: started, not yet waited for */
	int gate;			/* the gate's write end, -1: none */
	int pid_rd;			/* keeper --pid-fd's read end */
	struct argv chain;		/* its command line, audited at the go byte */
	struct argv create_argv;	/* home-stage create's (run_open), kept */
	int chain_held;			/* ... whose records are built (audit_chain) */
	size_t ei, ci, xi;		/* where env-filter, confine, the program start */
};

/* home-stage finish started as the agent starts: it execs, opens the
 * attempt's directory, reads its stage file and the profiles, and opens
 * the store while the agent runs (none of it the agent's); it takes back,
 * removes and records only after its go byte and the status, which
 * close_attempt writes once every process of the attempt has ended. A
 * corral killed meanwhile closes its input without them: it touches
 * nothing, and the attempt stays for the next run's reap, as it would
 * have. A killed keeper's leftovers and a browser's are swept without
 * it (proc_sweep_keep). Not started: started after, as before. Not
 * needed when create does it (create --finish, run_stage): the same,
 * without a process of its own. */
static void
home_finish_start(struct runstate *s)
{
	struct argv a = { 0 };
	int p[2], r;

	if (s->hfin.pid > 0)
		return;		/* create --finish */
	s->hfin.pid = -1;
	if (!s->have_dir || !s->have_attempt || pipe2(p, O_CLOEXEC) < 0)
		return;
	r = step_finish(&s->pl, "-", s->platform[0] ? s->platform : NULL, s->tier[0] ? s->tier : NULL, &a) < 0 ? -1 :
	    spawn_start_in(a.v, s->senv, p[0], SPAWN_CAPTURE, &s->hfin);
	av_free(&a);
	close(p[0]);
	if (r < 0 || proc_sweep_keep(s->hfin.pid) < 0) {
		close(p[1]);
		if (r == 0)	/* not kept: ended, its input closed */
			(void)spawn_collect(&s->hfin, NULL, 0);
		s->hfin.pid = -1;
		return;
	}
	s->hfin_go = p[1];
}

static void
home_finish_go(struct runstate *s, int status)
{
	char go[96];
	/* create --finish was started before the proof: the platform and
	 * the tier come with the status (finish gets them as options) */
	int n = s->hfin_labels && s->platform[0] && s->tier[0] ?
	    snprintf(go, sizeof go, "g%d %s %s\n", status, s->platform, s->tier) : snprintf(go, sizeof go, "g%d", status);

	if (s->hfin_go < 0)
		return;		/* written already (run_attempt) */
	/* a finish that has ended (said why) reads nothing: its EPIPE and
	 * SIGPIPE are taken, never corral's end; its status says */
	(void)fd_write_nopipe(s->hfin_go, go, (size_t)n);
	close(s->hfin_go);
	s->hfin_go = -1;
}

static int
close_attempt(struct runstate *s, int status)
{
	struct argv fa = { 0 }, ea = { 0 };
	struct spawned fin = { -1, -1 }, end = { -1, -1 };
	char took[4096], junk[256], st[16];
	int ws, ok = 1;

	mcp_stop(&s->mcp);
	egress_stop(&s->eg);
	if (s->pol.browser.on)
		browser_end();
	/* the take-back, the removal and the record's end: home-stage
	 * finish --end, one process; session-store end alone when there is
	 * no tree to finish */
	snprintf(st, sizeof st, "%d", status);
	if (s->hfin.pid > 0) {
		/* started while the agent ran: its go byte and the status,
		 * unless written already */
		fin = s->hfin;
		s->hfin.pid = -1;
		home_finish_go(s, status);
	} else if (s->have_dir && (step_finish(&s->pl, s->have_attempt ? st : NULL, s->platform[0] ? s->platform : NULL,
	    s->tier[0] ? s->tier : NULL, &fa) < 0 || spawn_start(fa.v, s->senv, SPAWN_CAPTURE, &fin) < 0)) {
		msg_warn_sys("unable to run home-stage finish");
		ok = 0;
	}
	if (s->have_attempt && !s->have_dir && (step_end(&s->pl, st, s->platform[0] ? s->platform : NULL,
	    s->tier[0] ? s->tier : NULL, &ea) < 0 || spawn_start(ea.v, s->senv, SPAWN_CAPTURE, &end) < 0)) {
		msg_warn_sys("unable to run session-store end");
		ok = 0;
	}
	av_free(&fa);
	av_free(&ea);
	if (fin.pid > 0) {
		ws = spawn_collect(&fin, took, sizeof took);
		proc_sweep_unkeep(fin.pid);
		audit_start(&s->au, "home-stage finish");
		audit_int(&s->au, "status", wait_code(ws));
		chomp(took);
		audit_str(&s->au, "took_back", took);	/* names only, as home-stage reports them */
		if (s->have_attempt)
			audit_int(&s->au, "end_status", status);	/* what --end records */
		audit_end(&s->au);
		/* 1: a renewal not taken back, said in one line by the step */
		if (wait_code(ws) != 0 && wait_code(ws) != EXIT_NO) {
			struct stat sb;
			if (lstat(s->attempt_dir, &sb) == 0)
				msg_warn("home-stage finish failed (status %d): the attempt directory stays until the next run reaps it", wait_code(ws));
			else
				msg_warn("home-stage finish failed (status %d)", wait_code(ws));
			ok = 0;
		}
	}
	if (end.pid > 0) {
		ws = spawn_collect(&end, junk, sizeof junk);
		audit_start(&s->au, "session-store end");
		audit_int(&s->au, "status", status);
		audit_int(&s->au, "result", wait_code(ws));
		audit_end(&s->au);
		if (wait_code(ws) != 0) {
			msg_warn("session-store end failed (status %d)", wait_code(ws));
			ok = 0;
		}
	}
	return ok;
}

/* The chain started and held at its gate, not to be run: the gate closed
 * without the go byte (confine exits 125, running nothing), keeper ends
 * every process of the attempt; waited for here, before the attempt's
 * directory goes (and keeper has given the terminal back before corral
 * says why). */
static void
chain_abort(struct runstate *s)
{
	struct keeper_result res;

	if (s->gate >= 0)
		close(s->gate);
	s->gate = -1;
	if (s->keeper > 0) {
		(void)keeper_wait(s->keeper, s->pid_rd, &res);
		close(s->pid_rd);
		if (s->pl.agent_sock)
			agentsock_remove(s->pl.agent_sock);
		denials_close(&s->den);
		refusals_close(&s->ref);
	}
	s->keeper = -1;
	av_free(&s->chain);
	audit_drop(&s->au);
	s->chain_held = 0;
}

/* A step started beside others and not needed any more (a run that ends
 * early): wait for it, its output unread. */
static void
spawned_drop(struct spawned *sp)
{
	if (sp->pid > 0)
		(void)spawn_collect(sp, NULL, 0);
	sp->pid = -1;
}

/* Whatever was started beside and not collected. */
static void
drop_started(struct runstate *s)
{
	chain_abort(s);
	denials_close(&s->den);
	spawned_drop(&s->probe);
	/* create --finish not yet in: its input closed first (it then
	 * touches nothing) */
	if (s->create_go >= 0)
		close(s->create_go);
	s->create_go = -1;
	spawned_drop(&s->create);
	/* collected, so that what it set up is discarded (fail_run) */
	(void)gitstep_collect(&s->pl, s->attempt, s->senv, &s->gitc);
	runfiles_free(&s->rf);
}

static int
fail_run(struct runstate *s)
{
	drop_started(s);
	gitstep_discard(&s->pl, s->senv);	/* set up, never used */
	close_attempt(s, EXIT_CHAIN_FAIL);
	return EXIT_CHAIN_FAIL;
}

static int
write_nosignin(const struct plan *pl)
{
	char doc[512], err[256];
	const char *name = strrchr(pl->nosignin, '/') + 1;
	int n = plan_nosignin_json(pl, doc, sizeof doc), fd, r;

	if (n < 0)
		return errno = ENAMETOOLONG, -1;
	/* before create has run: the store may not be there yet */
	if ((fd = store_open(pl->store, 1, err, sizeof err)) < 0)
		return -1;
	{
		/* the same document every time: rewrite only when it is
		 * missing or differs; read on the stack and judged by the
		 * descriptor read (no buffer mapped, no second lookup) */
		char old[sizeof doc + 1], why[128];
		struct stat st;
		ssize_t got = -1;
		int ofd = openat(fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
		if (ofd >= 0) {
			if (fstat(ofd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == n)
				got = fd_read_bounded(ofd, old, sizeof old);
			close(ofd);
		}
		if (got == n && memcmp(old, doc, (size_t)n) == 0 && private_check(&st, why, sizeof why) == 0) {
			close(fd);
			return 0;
		}
	}
	/* made again from the plan whenever it is missing: not fsynced */
	r = file_replace_atomic(fd, name, doc, (size_t)n, 0600);
	close(fd);
	return r;
}

/* --full-setup: the agent's own folders of the real home are granted at
 * their real paths; a symlink at the same place in the private home lets
 * the agent find them there (Landlock checks the real path). */
static int
link_fullsetup(const struct plan *pl, const char *dir)
{
	char path[PATH_MAX + 8], rel[PATH_MAX];
	const char *base;
	int hfd, dfd, r = 0;
	size_t n = strlen(pl->home);

	snprintf(path, sizeof path, "%s/home", dir);
	hfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (hfd < 0)
		return -1;
	for (size_t i = 0; i < pl->fullsetup.n && r == 0; i++) {
		const char *f = pl->fullsetup.v[i];
		if (n == 0 || strncmp(f, pl->home, n) != 0 || f[n] != '/')
			continue;	/* not under the real home: granted, not linked */
		snprintf(rel, sizeof rel, "%s", f + n + 1);
		/* parents, each created here and opened without following */
		dfd = parentdir_open(hfd, rel, 0700, &base);
		if (dfd < 0 || symlinkat(f, dfd, base) < 0)
			r = -1;
		if (dfd >= 0)
			close(dfd);
	}
	close(hfd);
	return r;
}

static const char *const steps_needed[] = { "session-store", "home-stage", "git-stage", "keeper", "env-filter", "confine", "runfiles", NULL };

static int
check_step(const struct plan *pl, const char *name)
{
	char path[PATH_MAX + 32];
	size_t l = strlen(pl->stepdir), nl = strlen(name);

	/* stepdir/name joined, not a format parsed 8 times a run (it always
	 * fits: stepdir is shorter than PATH_MAX, the names are short) */
	if (l + 1 + nl < sizeof path) {
		memcpy(path, pl->stepdir, l);
		path[l] = '/';
		memcpy(path + l + 1, name, nl + 1);
	} else
		snprintf(path, sizeof path, "%s/%s", pl->stepdir, name);
	if (access(path, X_OK) < 0) {
		msg_fatal_sys("step program %s", path);
		msg_hint("build the toolkit (make) or reinstall corral: its steps live in %s", pl->stepdir);
		return -1;
	}
	return 0;
}

/* probe's is checked before it starts (prove_early) */
static int
check_steps(const struct plan *pl)
{
	for (size_t i = 0; steps_needed[i]; i++)
		if (check_step(pl, steps_needed[i]) < 0)
			return -1;
	return 0;
}

/* 1. the proof: no proof, no run. probe runs beside the bookkeeping
 * (home-stage create), which starts nothing of the agent, and is collected
 * before anything else is started: mcp-proxy, egress-proxy, the chain. It
 * proves this start, never cached. 0, or -1 reported. */
static int
prove_start(struct runstate *s, const char *tier)
{
	struct argv a = { 0 };
	int r;

	if (step_probe_tier(&s->pl, tier, &a) < 0)
		return msg_fatal_sys("unable to build the probe command"), -1;
	r = spawn_start(a.v, s->senv, SPAWN_CAPTURE, &s->probe);
	av_free(&a);
	if (r < 0)
		return msg_fatal_sys("unable to run probe"), -1;
	s->probe_tier = tier;
	return 0;
}

/* plan_load_early's hook: the proof needs only the policy (its tier) and
 * the step directory, so probe starts before the paths are resolved, and
 * runs beside the rest of the plan. A plan refused after it waits for it
 * (spawned_drop). Started already (prove_first): kept when it requires
 * the tier this policy needs, else ended unread and started again. */
static int
prove_early(struct plan *pl, void *arg)
{
	struct runstate *s = arg;

	(void)pl;	/* s->pl */
	if (s->probe.pid > 0 && strcmp(s->probe_tier, plan_tier(&s->pl)) == 0)
		return 0;
	spawned_drop(&s->probe);
	if (check_step(&s->pl, "probe") < 0)
		return -1;
	return prove_start(s, plan_tier(&s->pl));
}

/* Without a policy file the policy is the embedded one, whose minimum
 * tier is the highest: what the plan asks of probe is known before that
 * policy is parsed (71,000 instructions, some 40 us, on the way to the
 * proof, the run's long pole), and probe starts first; prove_early checks
 * it against the plan's. The same command line, environment and checks.
 * 0, or -1 said. */
static int
prove_first(struct runstate *s, const struct runopts *o)
{
	if (o->policy_file || resolve_stepdir(s->pl.stepdir, sizeof s->pl.stepdir) < 0) {
		s->pl.stepdir[0] = '\0';	/* plan_load_early's, as before */
		return 0;
	}
	if (check_step(&s->pl, "probe") < 0)
		return -1;
	return prove_start(s, POLICY_DEFAULT_TIER);
}

static int
prove_collect(struct runstate *s)
{
	char out[PATH_MAX];
	int ws;

	if (s->probe.pid <= 0)
		return -1;
	ws = spawn_collect(&s->probe, out, sizeof out);
	s->probe.pid = -1;
	if (ws < 0 || wait_code(ws) != 0 || probe_fields(out, s->platform, sizeof s->platform, s->tier,
	    sizeof s->tier) < 0) {
		/* the chain held at its gate ends first (keeper gives the
		 * terminal back), then corral says why */
		chain_abort(s);
		s->platform[0] = s->tier[0] = '\0';
	}
	if (ws < 0)
		return msg_fatal_sys("unable to run probe"), -1;
	if (wait_code(ws) != 0) {
		msg_fatal("containment is unproven on this machine (probe status %d): nothing was started", wait_code(ws));
		msg_hint("run corral doctor for the evidence");
		return -1;
	}
	if (!s->platform[0])
		return msg_fatal("probe printed no platform and tier: nothing was started"), -1;
	audit_start(&s->au, "probe");
	audit_str(&s->au, "platform", s->platform);
	audit_str(&s->au, "tier", s->tier);
	audit_str(&s->au, "required", plan_tier(&s->pl));
	audit_end(&s->au);
	return 0;
}

/* 2, 3. the attempt and its private home (see plan.h for the no-sign-in
 * override). corral chooses the attempt id; home-stage create --begin
 * records it and reaps the leftovers of a killed corral under the store's
 * lock (a live attempt, ours included, is never reaped), then stages the
 * home (what a killed corral left running in its cgroups ends once the
 * agent runs). A create that fails has ended the attempt it recorded. */
/* The files that run code in root, before the agent starts: runfiles
 * snapshot, beside what follows; kept before the chain (runfiles.c). */
static void
snapshot(struct runstate *s, const char *root)
{
	s->rf_taken = 1;
	runfiles_start(&s->rf, &s->pl, root, s->senv);
}

/* Start a step beside others (its output captured): 0, or -1 said. */
static int
start_step(struct runstate *s, int (*build)(const struct plan *, struct argv *), struct spawned *sp,
    const char *what)
{
	struct argv a = { 0 };
	int r = build(&s->pl, &a) < 0 ? -1 : spawn_start(a.v, s->senv, SPAWN_CAPTURE, sp), serr = errno;

	av_free(&a);
	errno = serr;
	if (r < 0)
		msg_fatal_sys("unable to run %s", what);
	return r;
}

static int
run_name(struct runstate *s)
{
	if (rnd_hex(s->attempt, STORE_ID_LEN / 2) < 0)
		return msg_fatal_sys("unable to make an attempt id (getrandom)"), -1;
	s->pl.attempt = s->attempt;
	/* and the name of its tree: the chain names it before create runs */
	if (rnd_hex(s->tree_nonce, STORE_TREE_NONCE_LEN / 2) < 0)
		return msg_fatal_sys("unable to name the attempt directory (getrandom)"), -1;
	s->pl.tree_nonce = s->tree_nonce;
	return 0;
}

static int
run_open(struct runstate *s)
{
	int p[2], r, e;

	if (s->pl.nosignin[0] && write_nosignin(&s->pl) < 0)
		return msg_fatal_sys("unable to write %s", s->pl.nosignin), -1;
	/* the attempt's checkout first, the longest step before the chain:
	 * bookkeeping on the user's repository (git that runs nothing), none
	 * of the agent's; discarded when the run ends before the chain */
	if (gitstep_start(&s->pl, s->senv, &s->gitc) < 0)
		return -1;
	/* collected by run_stage; with --finish it stays, to finish the
	 * tree on its go byte (run_stage), or as before without a pipe */
	if (pipe2(p, O_CLOEXEC) == 0) {
		s->pl.create_finish = 1;
		/* its command line kept to the process's end (run_free): freed
		 * here, on the way to the chain's start, mallocng unmapped its
		 * page (munmap(2), some 15 us) */
		r = step_create(&s->pl, &s->create_argv) < 0 ? -1 :
		    spawn_start_in(s->create_argv.v, s->senv, p[0], SPAWN_CAPTURE, &s->create);
		e = errno;
		close(p[0]);
		if (r < 0) {
			close(p[1]);
			errno = e;
			return msg_fatal_sys("unable to run home-stage create"), -1;
		}
		s->create_go = p[1];
	} else if (start_step(s, step_create, &s->create, "home-stage create") < 0) {
		return -1;
	}
	/* a workspace the agent works in as it is (no attempt checkout to
	 * make first) is looked at for files that run code beside the proof
	 * from the start, once create (which the chain waits for) has its
	 * process (runfiles.c) */
	if (!s->pl.git || s->pol.git == GIT_OFF)
		snapshot(s, s->pl.workspace);
	return 0;
}

/* create --finish's part of its output: up to the empty line that ends it
 * (into out, at most n-1 bytes, NUL-terminated, without the empty line):
 * 1; it ended without one (create failed, or was killed): 0, out what it
 * printed; more after the empty line (nothing comes before its go byte)
 * or an error: -1. */
static int
created_read(int fd, char *out, size_t n)
{
	char junk[512], *dst, prev = '\n';	/* an empty first line ends it too */
	size_t got = 0, room;
	ssize_t r;

	for (;;) {
		dst = got + 1 < n ? out + got : junk;
		room = got + 1 < n ? n - 1 - got : sizeof junk;
		if ((r = read(fd, dst, room)) < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			out[got] = '\0';
			return r < 0 ? -1 : 0;
		}
		for (ssize_t i = 0; i < r; i++) {
			if (dst[i] == '\n' && prev == '\n') {
				if (dst != junk)
					got += (size_t)i;
				out[got] = '\0';
				return i + 1 == r ? 1 : -1;
			}
			prev = dst[i];
		}
		if (dst != junk)
			got += (size_t)r;
	}
}

static int
run_stage(struct runstate *s)
{
	char out[PATH_MAX * 2], *nl;
	int ws, k;

	if (s->create_go >= 0) {
		/* create --finish: create's part read, without waiting for
		 * its end; in, it is finish (hfin), kept from a sweep of
		 * corral's children as home_finish_start keeps it (at worst
		 * swept: its tree stays for the next run's reap) */
		k = created_read(s->create.out, out, sizeof out);
		if (k > 0) {
			ws = 0;
			s->hfin = s->create;
			s->hfin_go = s->create_go;
			s->hfin_labels = 1;
			(void)proc_sweep_keep(s->hfin.pid);
		} else {
			/* create failed and ends (said why), or broke the
			 * form: its input closed, it touches nothing */
			close(s->create_go);
			ws = spawn_collect(&s->create, NULL, 0);
			if (ws >= 0 && k < 0 && wait_code(ws) == 0)
				ws = EXIT_USAGE << 8;
		}
		s->create_go = -1;
	} else {
		ws = spawn_collect(&s->create, out, sizeof out);
	}
	s->create.pid = -1;
	if (ws < 0)
		return msg_fatal_sys("unable to run home-stage create"), -1;
	/* opened while create ran, unless the store was not there yet */
	if (s->au.fd < 0 && audit_open(&s->au, s->pl.store, s->attempt) < 0)
		msg_warn_sys("unable to open the audit log in %s/audit", s->pl.store);
	if (wait_code(ws) == 0)
		s->have_attempt = 1;	/* recorded: ended by close_attempt */
	if (wait_code(ws) != 0 || out[0] != '/') {
		/* the chain started from the plan and held at its gate ends
		 * first (keeper gives the terminal back), as on a failed proof */
		chain_abort(s);
		/* a create that failed has ended the attempt it recorded */
		audit_start(&s->au, "home-stage create");
		audit_str(&s->au, "attempt", s->attempt);
		audit_str(&s->au, "agent", s->pl.agent);
		audit_int(&s->au, "status", wait_code(ws));
		audit_end(&s->au);
		msg_fatal("home-stage create failed (status %d): nothing was started", wait_code(ws));
		return -1;
	}
	nl = strchr(out, '\n');
	if (nl)
		*nl++ = '\0';
	if (strlen(out) >= sizeof s->attempt_dir)
		return msg_fatal("home-stage create printed a path that is too long"), -1;
	/* a chain started from the plan named the tree before it was made
	 * (chain_plan): it must be this one, or that chain is not run */
	if (s->keeper > 0 && strcmp(out, s->attempt_dir) != 0) {
		chain_abort(s);
		memcpy(s->attempt_dir, out, strlen(out) + 1);
		s->have_dir = 1;
		return msg_fatal("home-stage create made %s, not the directory the chain was started with", out), -1;
	}
	memcpy(s->attempt_dir, out, strlen(out) + 1);
	s->pl.attempt_dir = s->attempt_dir;
	s->have_dir = 1;
	/* --full-setup: the folders to grant read-write follow, one a line */
	while (s->pol.full_setup && nl && *nl) {
		char *e = strchr(nl, '\n');
		if (e)
			*e++ = '\0';
		if (*nl == '/')
			av_push(&s->pl.fullsetup, nl);
		nl = e;
	}
	if (s->pl.fullsetup.n > 0 && link_fullsetup(&s->pl, s->attempt_dir) < 0) {
		msg_fatal_sys("unable to link the full-setup folders into %s/home", s->attempt_dir);
		return -1;
	}
	{	/* a socket its own rule puts outside the grants (agentsock.c):
		 * without it the agent fails as it would without the directory */
		char why[PATH_MAX + 64];
		if (agentsock_path(s->pl.agent, s->attempt_dir, (unsigned)geteuid(), s->agent_sock,
		    sizeof s->agent_sock) == 1) {
			if (agentsock_prepare(s->agent_sock, why, sizeof why) == 0)
				s->pl.agent_sock = s->agent_sock;
			else
				msg_warn("%s: its socket %s is not made for it: %s", s->pl.agent, s->agent_sock, why);
		}
	}
	if (s->keeper > 0 && (s->pl.fullsetup.n > 0 || s->pl.agent_sock)) {
		/* grants chain_plan does not start a chain without */
		chain_abort(s);
		return msg_fatal("home-stage create named grants the chain was started without"), -1;
	}
	audit_start(&s->au, "home-stage create");
	audit_str(&s->au, "attempt", s->attempt);
	audit_str(&s->au, "agent", s->pl.agent);
	audit_str(&s->au, "dir", s->attempt_dir);
	audit_int(&s->au, "signin", s->pl.signin);
	audit_strs(&s->au, "full_setup", s->pl.fullsetup.v, s->pl.fullsetup.n);
	audit_end(&s->au);
	return 0;
}

/* What the chain will be given: names, never values. Built while corral
 * waits for create or the proof, off the way from the proof to the go byte,
 * and kept (audit_hold) till chain_go writes it, with the go's time, after
 * the records that come before it (create's, the proof's); a chain ended
 * unrun drops it (chain_abort). */
static void
audit_chain(struct runstate *s)
{
	const struct argv *a = &s->chain;
	size_t ei = s->ei, ci = s->ci, xi = s->xi;
	struct argv names = { 0 };

	if (s->keeper <= 0 || s->chain_held)
		return;
	s->chain_held = 1;

	audit_start(&s->au, "keeper");
	audit_strs(&s->au, "options", a->v + 1, ei - 2);
	audit_hold(&s->au);
	audit_start(&s->au, "env-filter");
	audit_str(&s->au, "layers", "baseline");
	audit_strs(&s->au, "keep", s->pol.env_keep.v, s->pol.env_keep.n);
	audit_strs(&s->au, "files", s->pl.envfiles.v, s->pl.envfiles.n);
	if (s->pl.path[0])
		av_push(&names, "PATH");
	for (size_t i = 0; i < s->pol.env_set.n; i++)
		av_pushf(&names, "%.*s", (int)strcspn(s->pol.env_set.v[i], "="), s->pol.env_set.v[i]);
	audit_strs(&s->au, "set", names.v, names.n);
	av_free(&names);
	for (size_t i = 0; plan_pins[i].name; i++)
		av_push(&names, plan_pins[i].name);
	audit_strs(&s->au, "pin", names.v, names.n);
	av_free(&names);
	audit_hold(&s->au);
	audit_start(&s->au, "confine");
	audit_strs(&s->au, "rules", a->v + ci + 1, xi - ci - 2);
	audit_hold(&s->au);
	audit_start(&s->au, "exec");
	audit_str(&s->au, "command", a->v[xi]);
	audit_int(&s->au, "args", (long long)(a->n - xi - 1));
	audit_hold(&s->au);
}

/* "processes" a root without a pids cgroup cannot have: refused before
 * anything starts (keeper would refuse it too, later) */
static int
limits_check(const struct policy *p)
{
	struct lim_how hw[LIM_N];

	if (limits_decide(&p->limits, hw) == 0)
		return 0;
	msg_fatal("policy limit \"processes\" cannot be enforced on this machine: %s", hw[LIM_PROCS].what);
	msg_hint("run corral as a user other than root, or where a pids cgroup can be made (cgroup v1 pids, or a delegated cgroup v2 subtree with the pids controller)");
	return -1;
}

/* 5, 6. the chain: keeper -> env-filter -> confine --gate -> CMD; keeper
 * makes the attempt's cgroup, applies the limits, gives the agent a
 * terminal of its own when corral has one and relays it; env-filter builds
 * the environment, confine the boundary, and then confine waits on its gate
 * (the read end of a pipe) for the go byte, which corral writes only once
 * the proof is in (chain_go): nothing of the agent runs before. So the
 * chain's set-up runs beside the proof, not after it. Started as soon as
 * what it names exists: the attempt's directory (home-stage create) and
 * checkout (git-stage create). 1: started, 0: interrupted before, -1
 * reported. */
static int
chain_start(struct runstate *s, char *const envp[])
{
	int pp[2], gp[2];

	if (limits_check(&s->pol) < 0)
		return -1;
	/* the project's values (envcmd.c): made last, so that no other
	 * step inherits the pipe */
	if (s->pl.env_project && projenv_open(&s->pl, s->senv, &s->au) < 0)
		return -1;
	s->pl.refusals_fd = refusals_open(&s->ref) > 2 ? s->ref.wr : 0;
	if ((s->pl.listeners_fd = browser_listeners(&s->pl)) < 0)
		return msg_fatal_sys("unable to make %s/" BROWSER_LISTENERS, s->attempt_dir), -1;
	/* keeper names the chain's pid (the boundary's refusals are its);
	 * both pipes close-on-exec here: keeper alone inherits the ends it
	 * uses (wait.c) */
	if (pipe2(pp, O_NONBLOCK | O_CLOEXEC) < 0)
		return msg_fatal_sys("unable to make a pipe"), -1;
	if (pipe2(gp, O_CLOEXEC) < 0) {
		close(pp[0]);
		close(pp[1]);
		return msg_fatal_sys("unable to make a pipe"), -1;
	}
	s->pl.pid_fd = pp[1];
	s->pl.gate_fd = gp[0];
	s->pl.tty_in = isatty(0);
	if (step_chain(&s->pl, &s->chain, &s->ei, &s->ci, &s->xi) < 0 || pending_sig) {
		close(pp[0]);
		close(pp[1]);
		close(gp[0]);
		close(gp[1]);
		av_free(&s->chain);
		if (pending_sig)
			return 0;
		return msg_fatal_sys("unable to build the chain"), -1;
	}
	s->gate = gp[1];
	s->pid_rd = pp[0];
	s->keeper = keeper_start(s->chain.v, envp, pp[1], gp[0]);
	if (s->pl.env_fd > 2 && s->pl.env_project)
		close(s->pl.env_fd);
	if (s->pl.listeners_fd > 2)
		close(s->pl.listeners_fd);
	if (s->keeper < 0) {
		close(s->gate);
		close(s->pid_rd);
		s->gate = -1;
		av_free(&s->chain);
		return msg_fatal_sys("unable to start the chain"), -1;
	}
	return 1;
}

/* The go byte: the proof is in (and the proxies up, the snapshot kept).
 * A chain that has already ended (its own refusal) reads nothing: the
 * write's EPIPE is its status's business, and its SIGPIPE is taken here
 * (blocked, then consumed), never corral's end. */
static void
chain_go(struct runstate *s)
{
	audit_chain(s);		/* unless built already */
	audit_flush(&s->au);
	s->chain_held = 0;
	(void)fd_write_nopipe(s->gate, "g", 1);
	close(s->gate);
	s->gate = -1;
	/* the command line stays to the process's end (run_free): its free
	 * after the byte unmapped a page (munmap(2), its TLB flush) as the
	 * agent starts */
}

/* The chain started before create and the proof: what it names under
 * the attempt's directory (its home, config and tmp, --on-go) and the
 * checkout it enters (--chdir) exist now that create is in, and its rules
 * need not wait for the proof: 'r' before the go byte has confine open
 * and enter them and enforce its boundary while the proof runs, so that
 * the go byte finds only the exec to do (confine(1) --gate). Nothing of
 * the agent runs on it. A chain already ended takes its EPIPE as
 * chain_go's does. */
static void
chain_ready(struct runstate *s)
{
	if (s->gate >= 0)
		(void)fd_write_nopipe(s->gate, "r", 1);
}

/* Wait (wait.c): every process of the attempt has ended when this
 * returns. */
static void
chain_wait(struct runstate *s, struct keeper_result *res)
{
	(void)keeper_wait(s->keeper, s->pid_rd, res);
	s->keeper = -1;
	close(s->pid_rd);
	/* keeper has ended every process of the attempt */
	if (s->pl.agent_sock)
		agentsock_remove(s->pl.agent_sock);
	mcp_stop(&s->mcp);
	egress_stop(&s->eg);
	if (s->pol.browser.on)
		browser_end();
}

/* ... and its record: written once the steps that wait for the agent's
 * end have their go bytes (run_attempt), before any record of theirs */
static void
audit_wait(struct runstate *s, const struct keeper_result *res)
{
	audit_start(&s->au, "wait");
	audit_int(&s->au, "status", wait_code(res->ws));
	if (WIFSIGNALED(res->ws))
		audit_int(&s->au, "signal", WTERMSIG(res->ws));
	audit_end(&s->au);
}

/* What must be up before the chain's command line can be made: the
 * egress proxy's and the MCP proxies' ports (confine's grants,
 * env-filter's variables, the browser's config). Those start only after
 * the proof (mcp-proxy runs the user's servers with their credentials;
 * nothing but bookkeeping runs unproven), so with them the chain starts
 * after the proof too, as before. So does one with a project's
 * environment: its values are released once, never to an unproven
 * attempt. */
int
run_chain_early(const struct plan *pl)
{
	const struct policy *p = pl->pol;

	return p->net != NET_ALLOW && p->nmcp == 0 && !p->browser.on && !pl->env_project;
}

/* The checkout git-stage create will make (worktree): the first free
 * slot of this repository's stable checkouts (gitws_slot_path; a slot is
 * taken while its lock is held, for as long as its run lives), and where
 * the agent starts in it, as create names them. A forecast: run_attempt
 * compares it with what create prints and starts the chain again on a
 * difference (another run took the slot meanwhile). With it the links
 * create makes to the policy's dependency directories (git_deps): each
 * that is a directory in the workspace (create links it unless the
 * checkout has it: tracked). 1, or 0: none. */
static int
git_predict(struct runstate *s)
{
	struct gitws *g = &s->pl.gw;
	char lock[PATH_MAX], rel[PATH_MAX], real[PATH_MAX * 2];
	struct stat st;
	int fd, n, r;

	if (s->pol.git != GIT_WORKTREE)
		return 0;
	av_free(&s->git_deps);
	for (size_t i = 0; i < g->ndeps; i++) {
		snprintf(rel, sizeof rel, "%s", g->deps[i]);
		while (strlen(rel) > 1 && rel[strlen(rel) - 1] == '/')
			rel[strlen(rel) - 1] = '\0';
		if ((size_t)snprintf(real, sizeof real, "%s/%s", g->ws, rel) < PATH_MAX && lstat(real, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			av_push(&s->git_deps, rel);
	}
	if (s->git_deps.err)
		return 0;
	for (n = 0; n < 64; n++) {
		gitws_slot_path(s->pl.store, g->ws, n, s->git_work, lock);
		/* never taken (no lock yet), or free: its lock not held (a
		 * shared lock for a moment: a create beside then takes the
		 * next, and its own run starts its chain again) */
		if ((fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			if (errno == ENOENT)
				break;
			return s->git_work[0] = '\0', 0;
		}
		r = flock(fd, LOCK_SH | LOCK_NB);
		close(fd);
		if (r == 0)
			break;
	}
	if (n == 64 || (size_t)snprintf(s->git_cwd, sizeof s->git_cwd, "%s%s%s", s->git_work, g->sub[0] ? "/" : "",
	    g->sub) >= sizeof s->git_cwd)
		return s->git_work[0] = s->git_cwd[0] = '\0', 0;
	return 1;
}

/* The chain from the plan, beside the proof and create: started right
 * after probe, before create (which it no longer waits for). Its rules
 * under the attempt's directory confine opens after the go byte
 * (--on-go), which corral writes only once create and the proof are both
 * in; the directory's path is known now, since corral names the tree
 * (home-stage create --nonce) and its parent is made here as create makes
 * it (store_open), named as create names it (its descriptor's path, which
 * run_stage compares with what create prints). In a git workspace
 * (worktree) the checkout too, opened and entered after the go byte, its
 * path foreseen (git_predict) and compared with what git-stage create
 * prints. Not when the chain names more that only a step makes: an
 * in-place repository's mounts, the full-setup folders of an agent's own
 * profile, codex's socket (agentsock.c). Sets the attempt's directory to
 * the path to be; 1 yes, 0 no (chain_where then sets where the agent
 * works). */
static int
chain_plan(struct runstate *s)
{
	char trees[PATH_MAX], sock[108], err[256], fdp[32];
	ssize_t n = -1;
	int fd;

	s->git_work[0] = s->git_cwd[0] = '\0';
	if (!run_chain_early(&s->pl) || (s->pol.full_setup && !s->pl.nosignin[0]) ||
	    agentsock_path(s->pl.agent, "", 0, sock, sizeof sock) != 0)
		return 0;
	/* a store it refuses, create refuses too, and says why */
	if ((fd = store_open(s->pl.trees, 1, err, sizeof err)) >= 0) {
		snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", fd);
		n = readlink(fdp, trees, sizeof trees - 1);
		close(fd);
	}
	if (n <= 0 || (size_t)n >= sizeof trees - 1 || trees[0] != '/')
		return 0;
	trees[n] = '\0';
	/* before git-stage create starts, which takes the slot */
	if (s->pl.git && s->pol.git != GIT_OFF && !git_predict(s))
		return 0;
	if (snprintf(s->attempt_dir, sizeof s->attempt_dir, "%s/a%s", trees, s->tree_nonce) >=
	    (int)sizeof s->attempt_dir) {
		s->attempt_dir[0] = s->git_work[0] = s->git_cwd[0] = '\0';
		return 0;
	}
	s->pl.attempt_dir = s->attempt_dir;
	return 1;
}

/* Where the chain planned works: the workspace (as gitstep_start sets
 * it), or the checkout foreseen. */
static void
chain_where(struct runstate *s)
{
	snprintf(s->pl.agent_ws, sizeof s->pl.agent_ws, "%s", s->git_cwd[0] ? s->git_cwd : s->pl.workspace);
	if (s->git_work[0]) {
		snprintf(s->pl.gw.work, sizeof s->pl.gw.work, "%s", s->git_work);
		av_free(&s->pl.gw.deplinks);
		for (size_t i = 0; i < s->git_deps.n; i++)
			av_push(&s->pl.gw.deplinks, s->git_deps.v[i]);
	}
}

/* The chain started before git-stage create named the checkout it made
 * (git_predict): 1 when that is the one it was started with, with the
 * same dependency links. */
static int
git_as_planned(const struct runstate *s)
{
	const struct argv *d = &s->pl.gw.deplinks;

	if (strcmp(s->pl.gw.work, s->git_work) != 0 || strcmp(s->pl.agent_ws, s->git_cwd) != 0 ||
	    d->n != s->git_deps.n || d->err)
		return 0;
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i], s->git_deps.v[i]) != 0)
			return 0;
	return 1;
}

/* 6b. what the boundary refused, said after the program's own output */
static void
run_denials(struct runstate *s, pid_t chain, int code)
{
	int64_t now = clock_ms(CLOCK_REALTIME);

	denials_collect(&s->den, chain, code != 0 ? 20 : 0);
	denials_report(&s->den, code, now, &s->au, 0);
	denials_close(&s->den);
	refusals_collect(&s->ref);
	refusals_report(&s->ref, &s->pl, code, now, &s->au, 0);
	refusals_close(&s->ref);
}

static void
run_free(struct runstate *s)
{
	audit_close(&s->au);
	av_free(&s->git_deps);
	av_free(&s->chain);
	av_free(&s->create_argv);
	plan_free(&s->pl);
	policy_free(&s->pol);
	av_free(&s->senv_store);
}

/* Interrupted before the agent started: the signal's status. */
static int
interrupted(struct runstate *s)
{
	drop_started(s);
	gitstep_discard(&s->pl, s->senv);
	if (s->have_attempt)
		close_attempt(s, 128 + pending_sig);
	return 128 + pending_sig;
}

int
cmd_run(int argc, char **argv, char **envp)
{
	struct runopts o;
	int r;

	msg_init("corral");
	if ((r = runopts_parse(argc, argv, &o)) != 0)
		return r > 0 ? 0 : EXIT_CHAIN_FAIL;
	return run_attempt(&o, envp, NULL, NULL);
}

int
run_attempt(const struct runopts *o, char **envp, int (*after)(const struct plan *, int, void *), void *arg)
{
	static struct runstate s;
	struct keeper_result res;
	int r, code, early, fin_ws, planned = 0;

	s.au.fd = -1;
	s.keeper = -1;
	s.gate = s.pid_rd = -1;
	s.den.fd = s.den.ask = -1;
	s.ref.rd = s.ref.wr = -1;
	s.probe.pid = s.create.pid = s.gitc.pid = s.fin.pid = s.hfin.pid = -1;
	s.fin_go = s.hfin_go = s.create_go = -1;
	signals_install();
	policy_init(&s.pol);
	if ((s.senv = step_env(envp, &s.senv_store)) == NULL)
		return msg_fatal("out of memory"), EXIT_CHAIN_FAIL;
	/* orphans of a keeper that was killed come back to us (wait.c) */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* the proof starts first (prove_first), or from the plan's load once
	 * the policy is in (prove_early); a plan refused then waits for it.
	 * s.pl is zero: s is static, and a process runs one attempt */
	if (prove_first(&s, o) < 0)
		return EXIT_CHAIN_FAIL;
	if (plan_load_early(o, envp, &s.pol, &s.pl, 1, prove_early, &s) < 0 ||
	    check_steps(&s.pl) < 0) {
		spawned_drop(&s.probe);
		return EXIT_CHAIN_FAIL;
	}
	if (run_name(&s) < 0) {
		drop_started(&s);
		return EXIT_CHAIN_FAIL;
	}
	/* where audit can be read (root), bound before the chain starts:
	 * confine's broker names its child there during its set-up (whether
	 * audit is on is asked once the chain runs: denials_ask) */
	(void)denials_open(&s.den);
	/* the chain from the plan, beside the proof and create, held at its
	 * gate (chain_plan); its failure said, and acted on once create is
	 * in */
	if ((planned = chain_plan(&s)) && !s.git_work[0]) {
		chain_where(&s);
		planned = chain_start(&s, envp);
	}
	if (run_open(&s) < 0) {
		drop_started(&s);
		gitstep_discard(&s.pl, s.senv);
		return EXIT_CHAIN_FAIL;
	}
	/* in a git workspace, once create runs: the longest step before
	 * the chain, not delayed by the chain's start */
	if (planned && s.git_work[0]) {
		chain_where(&s);
		planned = chain_start(&s, envp);
	}
	/* the audit log too, not after create (on the path to the chain):
	 * its store exists but on a first run (then run_stage opens it) */
	(void)audit_open(&s.au, s.pl.store, s.attempt);
	/* the chain's records, while create runs (audit_chain) */
	audit_chain(&s);
	/* is audit on: asked from a thread (denials.c), the kernel's answer
	 * on its way while create, the proof and the agent run, not from the
	 * go byte on, when a short program's end waited for it */
	(void)denials_ask(&s.den);
	/* a signal meanwhile: after create, so that its tree is removed */
	r = run_stage(&s);
	if (r == 0 && planned < 0)
		r = -1;
	if (r == 0)
		r = gitstep_collect(&s.pl, s.attempt, s.senv, &s.gitc);
	if (r == 0 && s.keeper > 0 && s.git_work[0] && !git_as_planned(&s)) {
		/* another checkout than the chain was started with (a run
		 * beside took the slot): that chain is ended, never run, and
		 * one for this checkout started below */
		chain_abort(&s);
		(void)denials_open(&s.den);
	}
	/* the chain beside the proof, held at its gate (chain_start) */
	early = r == 0 && run_chain_early(&s.pl);
	if (early && s.keeper < 0 && (r = chain_start(&s, envp)) > 0)
		r = 0;
	else if (early && s.keeper < 0 && r == 0)
		return interrupted(&s);
	/* create (and git-stage create) in: the chain's paths exist */
	if (r == 0 && early)
		chain_ready(&s);
	/* trust (runfiles.c): the directory the agent writes, noted before,
	 * beside the proof (the agent's checkout is there now); after the
	 * chain's start, which is on the path to the agent (held at its gate
	 * until the snapshot is taken: runfiles_keep) */
	if (r == 0 && !s.rf_taken)
		snapshot(&s, s.pl.agent_ws[0] ? s.pl.agent_ws : s.pl.workspace);
	/* ... or while the proof runs, for a chain started since */
	if (r == 0)
		audit_chain(&s);
	/* the proof, before anything that is not bookkeeping starts or the
	 * gate opens */
	if (r < 0 || prove_collect(&s) < 0)
		return fail_run(&s);
	if (pending_sig)
		return interrupted(&s);
	if (!early && (egress_start(&s.eg, &s.pl, &s.au, envp) < 0 ||
	    mcp_start(&s.mcp, &s.pl, &s.au, envp) < 0))	/* the browser's names the egress port */
		return fail_run(&s);
	/* noted before the agent starts */
	runfiles_keep(&s.rf, &s.pl);
	if (!early && (r = chain_start(&s, envp)) <= 0)
		return r < 0 ? fail_run(&s) : interrupted(&s);
	if (pending_sig)
		return interrupted(&s);
	chain_go(&s);
	home_finish_start(&s);
	/* what a keeper that was killed left running ends, while the agent
	 * runs, not beside probe, create and the snapshot, which keep both
	 * CPUs busy (a keeper's cgroup is locked, its pid alive, from its
	 * making on) */
	(void)cg_reap_stale(s.keeper);
	/* worktree: git-stage finish execs, loads its state, forks and
	 * narrows while the agent runs (nothing it lists is the agent's); it
	 * reads nothing the agent wrote before its go byte (below). In-place
	 * its boundary lists the workspace's top: started once it ended. */
	if (s.pl.git && s.pol.git == GIT_WORKTREE && !s.pol.browser.on)	/* browser_end sweeps */
		(void)gitstep_finish_start(&s.pl, s.senv, &s.fin, &s.fin_go);
	/* is audit on: asked (above) unless a chain started again since */
	(void)denials_ask(&s.den);
	chain_wait(&s, &res);
	/* ended before its go byte: swept with a killed keeper's leftovers
	 * (every child of corral's), started again below; or ended on its
	 * own (it said why): not again */
	if (s.fin.pid > 0 && (r = waitpid(s.fin.pid, &fin_ws, WNOHANG)) != 0) {
		close(s.fin_go);
		s.fin_go = -1;
		s.fin.pid = -1;
		if (r > 0 && WIFEXITED(fin_ws))
			s.pl.gw.dir[0] = '\0';
	}
	/* keeper's status is the agent's (124: the wall-clock limit) */
	code = wait_code(res.ws);
	/* every process of the attempt has ended: the report's go byte, its
	 * walk beside what follows; and home-stage finish's with the status
	 * when nothing comes between (close_attempt writes it otherwise:
	 * after the git import, which reads the attempt's files in the
	 * store, and after a caller's own step, which may read the home and
	 * change the status) */
	runfiles_report_start(&s.rf, &s.pl, s.senv, o->quiet);
	if (!after && !(s.pl.git && s.pol.git != GIT_OFF) && s.hfin.pid > 0)
		home_finish_go(&s, code);
	audit_wait(&s, &res);
	run_denials(&s, res.chain, code);
	/* its git work, as data, git-stage finish beside the report,
	 * changing the checkout (files moved aside) only once the report has
	 * read it and said it first */
	(void)gitstep_finish_start(&s.pl, s.senv, &s.fin, &s.fin_go);
	if (s.pl.git && s.pol.git != GIT_OFF)
		runfiles_report_end(&s.rf, &s.au, o->quiet);
	gitstep_finish_end(&s.pl, &s.fin, s.fin_go);
	if (after)
		code = after(&s.pl, code, arg);

	/* 7, 8. take back, close */
	close_attempt(&s, code);
	runfiles_report_end(&s.rf, &s.au, o->quiet);
	/* corral run ends now: its plan and policy go with the process (their
	 * frees were some 15,000 instructions and an munmap after the last
	 * step's end); a caller that goes on (signin) gets them freed */
	if (after)
		run_free(&s);
	else
		audit_close(&s.au);
	return code;
}
