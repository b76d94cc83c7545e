/* plan: the argv of every step of one run, built from the resolved plan
 * (plan.h); pure, so run executes what explain prints. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agentsock.h"
#include "gitstep.h"
#include "browser.h"
#include "plan.h"
#include "reslimit.h"

const struct pin plan_pins[] = {
	{ "HOME", "/home" },
	{ "TMPDIR", "/tmp" },
	{ "XDG_CONFIG_HOME", "/config" },
	{ "XDG_CACHE_HOME", "/home/.cache" },
	{ "XDG_DATA_HOME", "/home/.local/share" },
	{ "XDG_STATE_HOME", "/home/.local/state" },
	{ NULL, NULL }
};

/* pinned only when the policy names MCP servers */
const struct pin plan_mcp_pin = { "CORRAL_MCP_CONFIG", "/config/corral/mcp.json"
};

void
plan_free(struct plan *pl)
{
	av_free(&pl->rd);
	av_free(&pl->ex);
	av_free(&pl->wr);
	av_free(&pl->fullsetup);
	av_free(&pl->notes);
	av_free(&pl->tcenv);
	av_free(&pl->envfiles);
	gitws_free(&pl->gw);
}

int
plan_tilde(const struct plan *pl, const char *path, char *out, size_t n)
{
	int r;

	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/')) {
		if (!pl->home[0])
			return errno = ENOENT, -1;
		r = snprintf(out, n, "%s%s", pl->home, path + 1);
	} else {
		r = snprintf(out, n, "%s", path);
	}
	return r < 0 || (size_t)r >= n ? (errno = ENAMETOOLONG, -1) : 0;
}

static int
done(struct argv *a)
{
	if (a->err)
		return errno = a->err, -1;
	return 0;
}

static void
step(const struct plan *pl, struct argv *a, const char *prog)
{
	av_pushcat(a, pl->stepdir, "/", prog, (char *)NULL);
}

const char *
plan_tier(const struct plan *pl)
{
	const char *t = pl->pol->min_tier ? pl->pol->min_tier : "fs";
	const char *need = "fs";

	if (pl->pol->net == NET_PORTS)
		need = "fs+net";
	if (pl->pol->scope || pl->pol->net == NET_NONE)
		need = "full";
	return policy_tier_rank(need) > policy_tier_rank(t) ? need : t;
}

int
step_probe_tier(const struct plan *pl, const char *tier, struct argv *a)
{
	step(pl, a, "probe");
	av_push(a, "--require");
	av_push(a, tier);
	return done(a);
}

int
step_probe(const struct plan *pl, struct argv *a)
{
	return step_probe_tier(pl, plan_tier(pl), a);
}

static int
runfiles_walk(const struct plan *pl, const char *verb, const char *root, struct argv *a)
{
	step(pl, a, "runfiles");
	av_push(a, verb);
	if (pl->home[0])
		av_pushcat(a, "--git-config=", pl->home, "/.gitconfig", (char *)NULL);
	if (strcmp(root, pl->workspace) != 0)
		av_pushcat(a, "--git-config=", pl->workspace, "/.git/config", (char *)NULL);
	av_push(a, root);
	return done(a);
}

int
step_snapshot(const struct plan *pl, const char *root, struct argv *a)
{
	return runfiles_walk(pl, "snapshot", root, a);
}

int
step_watch(const struct plan *pl, const char *root, struct argv *a)
{
	return runfiles_walk(pl, "watch", root, a);
}

int
step_report(const struct plan *pl, const char *root, struct argv *a)
{
	step(pl, a, "runfiles");
	av_push(a, "report");
	av_push(a, root);
	return done(a);
}

int
step_envrel(const struct plan *pl, struct argv *a)
{
	step(pl, a, "session-store");
	av_push(a, "--store");
	av_push(a, pl->store);
	av_push(a, "env-release");
	av_push(a, pl->env_project);
	av_push(a, "--attempt");
	av_push(a, pl->attempt);
	return done(a);
}

int
plan_nosignin_json(const struct plan *pl, char *out, size_t n)
{
	int r = snprintf(out, n, "{\"%s\": {\"signin\": \".corral-no-signin\", "
	    "\"expiry\": {\"pointer\": \"/expires\", \"unit\": \"s\"}, "
	    "\"account\": {\"pointer\": \"/account\"}, \"full_setup\": []}}", pl->agent);

	return r < 0 || (size_t)r >= n ? -1 : r;
}

int
step_create(const struct plan *pl, struct argv *a)
{
	step(pl, a, "home-stage");
	av_push(a, "create");
	av_push(a, "--state");
	av_push(a, pl->store);
	av_push(a, "--attempt");
	av_push(a, pl->attempt);
	av_push(a, "--agent");
	av_push(a, pl->agent);
	av_push(a, "--workspace");
	av_push(a, pl->workspace);
	av_push(a, "--session-store");
	av_pushcat(a, pl->stepdir, "/session-store", (char *)NULL);
	/* it records the attempt (the id corral chose) and reaps the
	 * leftovers of a killed corral under the store's lock, as
	 * session-store begin --reap would, then stages: one process, no
	 * wait (a live attempt's process is alive, so nothing younger is
	 * spared); the attempt is corral's, or the script's shell */
	av_push(a, "--begin");
	if (pl->attempt[0] == '\001') {
		av_push(a, "--pid");
		av_push(a, SHVAR("$"));
	}
	if (strcmp(pl->trees, pl->store) != 0) {
		/* where its tree goes, and the trees a killed corral left */
		av_push(a, "--trees");
		av_push(a, pl->trees);
	}
	if (pl->tree_nonce) {
		/* the chain names the tree before it exists (run.c) */
		av_push(a, "--nonce");
		av_push(a, pl->tree_nonce);
	}
	if (pl->nosignin[0]) {
		av_push(a, "--full-setup");
		av_push(a, "--profiles");
		av_push(a, pl->nosignin);
	} else {
		if (pl->profiles[0]) {
			/* the profile it stages by is the one the take-back
			 * reads by (step_finish's) */
			av_push(a, "--profiles");
			av_push(a, pl->profiles);
		}
		if (pl->pol->full_setup) {
			av_push(a, "--full-setup");
		} else {
			av_push(a, "--signin");
			av_push(a, pl->agent);
		}
	}
	if (pl->create_finish) {
		/* corral run: then it waits on its input and finishes the
		 * tree as home-stage finish --wait-input --end would (run.c) */
		if (pl->test_cacert[0]) {
			av_push(a, "--test-cacert");
			av_push(a, pl->test_cacert);
		}
		av_push(a, "--finish");
	}
	return done(a);
}

static void
grants(struct argv *a, const char *flag, const struct argv *paths)
{
	for (size_t i = 0; i < paths->n; i++) {
		av_push(a, flag);
		av_push(a, paths->v[i]);
	}
}

int
step_chain(const struct plan *pl, struct argv *a, size_t *envf_at, size_t *confine_at, size_t *cmd_at)
{
	const struct policy *p = pl->pol;
	size_t i;

	/* keeper: the attempt's cgroup and limits, a terminal of its own when
	 * corral has one (confine --ctty grants it), the end of every process */
	step(pl, a, "keeper");
	limits_argv(&p->limits, a);
	av_push(a, "--pty");
	for (i = 0; i < (size_t)pl->nallow_osc; i++) {
		av_push(a, "--allow-osc");
		av_pushf(a, "%d", pl->allow_osc[i]);
	}
	if (pl->agent_ws[0] && pl->gate_fd <= 2) {
		/* the agent's own checkout (gitstep.c); with a gate, confine
		 * enters it after the go byte (below) */
		av_push(a, "--chdir");
		av_push(a, pl->agent_ws);
	}
	if (pl->pid_fd > 2) {
		av_push(a, "--pid-fd");
		av_pushf(a, "%d", pl->pid_fd);
	}
	if (pl->gate_fd > 2 && (p->limits.v[LIM_WALL] || pl->tty_in)) {
		/* keeper holds confine's gate: the agent's wall clock
		 * starts when keeper passes the go byte on, not while the
		 * chain is held there for the proof, and the user's terminal's
		 * output goes raw only then (what is said meanwhile reads as
		 * usual) */
		av_push(a, "--gate");
		av_pushf(a, "%d", pl->gate_fd);
	}
	av_push(a, "--");

	/* env-filter: the caller's baseline, then the policy's layers, then
	 * the pins (a pin wins whatever the order) */
	*envf_at = a->n;
	step(pl, a, "env-filter");
	av_push(a, "--baseline");
	if (pl->path[0]) {
		/* only directories the agent can reach; the policy may override */
		av_push(a, "-s");
		av_pushcat(a, "PATH=", pl->path, (char *)NULL);
	}
	for (i = 0; i < pl->tcenv.n; i++) {
		/* a toolchain's data directory (homepath.c); the policy may override */
		av_push(a, "-s");
		av_push(a, pl->tcenv.v[i]);
	}
	for (i = 0; i < p->env_keep.n; i++) {
		av_push(a, "-k");
		av_push(a, p->env_keep.v[i]);
	}
	for (i = 0; i < pl->envfiles.n; i++) {
		av_push(a, "-f");
		av_push(a, pl->envfiles.v[i]);
	}
	for (i = 0; i < p->env_set.n; i++) {
		av_push(a, "-s");
		av_push(a, p->env_set.v[i]);
	}
	if (pl->env_project) {
		/* the project's values, released once: a pipe, never argv */
		av_push(a, "-F");
		av_pushf(a, "%d", pl->env_fd);
	}
	for (i = 0; plan_pins[i].name; i++) {
		av_push(a, "-p");
		av_pushcat(a, plan_pins[i].name, "=", pl->attempt_dir, plan_pins[i].sub, (char *)NULL);
	}
	if (p->nmcp > 0) {
		av_push(a, "-p");
		av_pushcat(a, plan_mcp_pin.name, "=", pl->attempt_dir, plan_mcp_pin.sub, (char *)NULL);
	}
	plan_net_env(pl, a);	/* the egress proxy's variables: netplan.c */
	gitstep_pins(pl, a);
	av_push(a, "--");

	/* confine: what the policy grants, the workspace, the attempt's
	 * private home, config and tmp */
	*confine_at = a->n;
	step(pl, a, "confine");
	/* every path below is real and was checked (linkwalk.c): opened as
	 * named, a link found there now appeared since, and is refused */
	av_push(a, "--no-symlinks");
	grants(a, "-x", &pl->ex);
	grants(a, "-r", &pl->rd);
	if (p->proc) {
		av_push(a, "-r");
		av_push(a, "/proc");
	}
	if (p->devices) {
		av_push(a, "--dev");
		/* a pty it opens (/dev/ptmx) is its own: the broker opens the
		 * slave of a master it holds, no other pts */
		av_push(a, "--own-pty");
	}
	/* its own terminal (keeper's pty), no other node of /dev/pts */
	av_push(a, "--ctty");
	/* a pathname socket it binds (in its write grants) is its own */
	av_push(a, "--own-unix");
	if (pl->agent_sock) {
		/* and the one its own rule puts outside them (agentsock.c) */
		av_push(a, "--unix-bind");
		av_push(a, pl->agent_sock);
		av_push(a, "-w");
		av_pushcat(a, pl->agent_sock, AGENTSOCK_LOCK, (char *)NULL);
	}
	/* and so is a POSIX shm object or semaphore it creates */
	av_push(a, "--own-shm");
	grants(a, "-w", &pl->wr);
	gitstep_grants(pl, a);
	/* opened once the go byte came: the chain may be started before
	 * home-stage create has made them (run.c) */
	for (i = 0; i < 3; i++) {
		if (pl->gate_fd > 2)
			av_push(a, "--on-go");
		av_push(a, "-W");
		av_pushcat(a, pl->attempt_dir, i == 0 ? "/home" : i == 1 ? "/config" : "/tmp", (char *)NULL);
	}
	grants(a, "-W", &pl->fullsetup);
	plan_net_confine(pl, a);	/* network rules: netplan.c */
	if (!p->scope)
		av_push(a, "--no-scope");
	if (p->userns)
		av_push(a, "--userns");
	if (pl->refusals_fd > 2) {
		av_push(a, "--refusals");
		av_pushf(a, "%d", pl->refusals_fd);
	}
	if (pl->listeners_fd > 2) {
		av_push(a, "--listeners");
		av_pushf(a, "%d", pl->listeners_fd);
	}
	if (pl->gate_fd > 2) {
		/* everything set up beside the proof; the program runs on
		 * the go byte corral writes once the proof is in (run.c) */
		av_push(a, "--gate");
		av_pushf(a, "%d", pl->gate_fd);
		/* where it starts, entered after it: the checkout may be
		 * made while the chain is held (run.c) */
		if (pl->agent_ws[0]) {
			av_push(a, "--chdir");
			av_push(a, pl->agent_ws);
		}
	}
	av_push(a, "--");
	*cmd_at = a->n;
	av_pushv(a, pl->cmd);
	return done(a);
}

/* session-store end's record (verb "end"), or home-stage finish's
 * (verb "--end"): the same fields */
static void
end_args(const struct plan *pl, const char *verb, const char *status, const char *platform,
    const char *tier, struct argv *a)
{
	av_push(a, verb);
	av_push(a, pl->attempt);
	av_push(a, "--status");
	av_push(a, status);
	if (platform && tier) {
		av_push(a, "--platform");
		av_push(a, platform);
		av_push(a, "--tier");
		av_push(a, tier);
	}
}

int
step_finish(const struct plan *pl, const char *status, const char *platform, const char *tier,
    struct argv *a)
{
	step(pl, a, "home-stage");
	av_push(a, "finish");
	if (strcmp(pl->trees, pl->store) != 0) {
		av_push(a, "--state");	/* the tree is not in the store */
		av_push(a, pl->store);
	}
	av_push(a, "--session-store");
	av_pushcat(a, pl->stepdir, "/session-store", (char *)NULL);
	if (pl->profiles[0]) {
		av_push(a, "--profiles");
		av_push(a, pl->profiles);
	}
	if (pl->test_cacert[0]) {
		av_push(a, "--test-cacert");
		av_push(a, pl->test_cacert);
	}
	/* status "-": started while the agent runs, it waits for its go
	 * byte and the status after it on its input (run.c) */
	if (status && strcmp(status, "-") == 0)
		av_push(a, "--wait-input");
	if (status) {
		/* and the attempt's end recorded, in the same process */
		end_args(pl, "--end", status, platform, tier, a);
	}
	av_push(a, pl->attempt_dir);
	return done(a);
}

int
step_end(const struct plan *pl, const char *status, const char *platform, const char *tier,
    struct argv *a)
{
	step(pl, a, "session-store");
	av_push(a, "--store");
	av_push(a, pl->store);
	end_args(pl, "end", status, platform, tier, a);
	return done(a);
}

int
step_mcp(const struct plan *pl, size_t i, struct argv *a)
{
	const struct mcp_server *m = &pl->pol->mcp[i];
	const char *cred = m->credential_file;
	size_t k;

	step(pl, a, "mcp-proxy");
	av_pushf(a, "--name=%s", m->name);
	for (k = 0; k < m->tools.n; k++) {
		av_push(a, "-a");
		av_push(a, m->tools.v[k]);
	}
	for (k = 0; k < m->resources.n; k++)
		av_pushf(a, "--allow-resource=%s", m->resources.v[k]);
	for (k = 0; k < m->prompts.n; k++)
		av_pushf(a, "--allow-prompt=%s", m->prompts.v[k]);
	av_push(a, "--audit");
	av_pushf(a, "%s/audit/%s.mcp-%s.jsonl", pl->store, pl->attempt, m->name);
	av_push(a, "--listen-http");
	av_push(a, "0");
	av_push(a, "--listen-token-file");
	av_pushf(a, "%s/mcp-%s.token", pl->attempt_dir, m->name);
	if (m->browser) {
		av_push(a, "--web-urls");	/* no file:, chrome:, view-source: ... */
		av_push(a, "--");
		if (step_browser(pl, a) < 0)
			return -1;
	} else if (m->url) {
		if (cred) {
			char path[PATH_MAX];
			av_push(a, "--token-file");
			if (plan_tilde(pl, cred, path, sizeof path) < 0)
				return -1;	/* resolve refused it first */
			av_push(a, path);
		}
		av_push(a, "--url");
		av_push(a, m->url);
	} else {
		for (k = 0; k < m->env_keep.n; k++) {
			av_push(a, "-e");
			av_push(a, m->env_keep.v[k]);
		}
		av_push(a, "--");
		for (k = 0; k < m->command.n; k++)
			av_push(a, m->command.v[k]);
	}
	return done(a);
}
