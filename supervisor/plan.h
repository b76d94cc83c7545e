/* plan: one run, resolved (paths, steps, agent), and the argv of every step.
 * The step builders are pure: run executes what explain prints (but for
 * the descriptors only corral run has: confine --refusals and --listeners,
 * keeper --pid-fd), in a git repository too (git-stage create and finish,
 * gitstep.c). */
#ifndef CORRAL_PLAN_H
#define CORRAL_PLAN_H
#include <limits.h>

#include "argv.h"
#include "gitws.h"
#include "policy.h"

struct plan {
	const struct policy *pol;
	char stepdir[PATH_MAX];		/* env-filter, confine, ... live here */
	char store[PATH_MAX];		/* the session-store (state) directory */
	char trees[PATH_MAX];		/* where attempt trees go: $XDG_RUNTIME_DIR/corral
					   (rundir.h), else the store */
	char home[PATH_MAX];		/* the invoking user's real home ("" if none) */
	char workspace[PATH_MAX];	/* absolute, symlinks resolved */
	int ws_lenient;			/* doctor: a refused workspace is noted, not fatal */
	char ws_why[PATH_MAX + 128];	/* why it was refused */
	int git;			/* the workspace holds .git */
	struct gitws gw;		/* its attempt repository (pol->git != GIT_OFF) */
	char agent_ws[PATH_MAX];	/* where the agent works (the workspace, or
					   the attempt's checkout; set by corral run) */
	char agent[65];			/* profile name, or "none" */
	int signin;			/* stage the agent's sign-in */
	/* No sign-in to stage (agent "none", or none stored): home-stage
	 * create always releases one unless --full-setup, and needs a profile
	 * for the agent, so corral hands it an override profile whose
	 * full-setup grants nothing: STORE/nosignin-AGENT.json. */
	char nosignin[PATH_MAX];	/* "" when not needed */
	struct argv rd, ex, wr;		/* resolved grants beyond workspace and attempt */
	char path[PATH_MAX];		/* the child's PATH: the granted PATH directories ("" keeps the caller's) */
	struct argv fullsetup;		/* folders home-stage --full-setup named (read-write) */
	struct argv envfiles;		/* the policy's env.files, "~" expanded */
	char mcp_port[POLICY_MAX_MCP][32]; /* each proxy's loopback port (SHVAR in explain) */
	char egress_port[32];		/* NET_ALLOW: egress-proxy's loopback port (SHVAR in explain) */
	char *const *cmd;		/* the program and its arguments */
	const int *allow_osc;		/* --allow-osc: keeper's relay lets these through */
	int nallow_osc;
	int refusals_fd;		/* corral run: confine --refusals (refusals.c), 0: none */
	int listeners_fd;		/* corral run with a browser: confine --listeners
					   (browser.c), 0: none */
	int pid_fd;			/* corral run: keeper --pid-fd (denials.c), 0: none */
	int gate_fd;			/* confine --gate: the go byte after the proof
					   (run.c; explain: 4), 0: none */
	int tty_in;			/* corral run: its standard input is a terminal,
					   which keeper makes raw: keeper holds the
					   gate then (it goes raw at the go byte) */
	const char *attempt;		/* attempt id (SHVAR in explain) */
	const char *attempt_dir;	/* its directory (SHVAR in explain) */
	const char *tree_nonce;		/* corral run: its name's nonce, chosen by
					   corral (home-stage create --nonce), or
					   NULL */
	int create_finish;		/* corral run: home-stage create --finish,
					   which then finishes its tree (run.c) */
	const char *agent_sock;		/* the socket confine's broker binds for it
					   (agentsock.c), or NULL (SHVAR in explain) */
	const char *dep_grants;		/* explain: confine's -x grants of the dependency
					   links, SHVAR("@"), which the script sets from
					   git-stage create's "dep" lines; NULL: pl->gw.deplinks */
	/* tool (installtree.c, homepath.c): the command's install tree and the
	 * toolchains in the home */
	struct argv notes;		/* "granted: ..." / "left out: ..." for explain and doctor */
	struct argv tcenv;		/* NAME=VALUE a toolchain entry sets (RUSTUP_HOME, ...) */
	const char *env_project;	/* --env or the policy's env.project: released once */
	int env_fd;			/* ... into this pipe, env-filter -F (explain: 3) */
	int fresh;			/* corral signin: no stored sign-in staged */
	char profiles[PATH_MAX];	/* --profiles, for home-stage finish ("" none) */
	char test_cacert[PATH_MAX];	/* --test-cacert, likewise */
};

/* The variables pinned in the child, each relative to the attempt directory. */
struct pin {
	const char *name, *sub;
};
extern const struct pin plan_pins[];
extern const struct pin plan_mcp_pin;	/* CORRAL_MCP_CONFIG, with MCP servers */

void plan_free(struct plan *pl);
/* A policy path: a leading "~" (alone or before '/') is pl->home. 0, or -1
 * (ENOENT: there is no home; ENAMETOOLONG). */
int plan_tilde(const struct plan *pl, const char *path, char *out, size_t n);

/* Step argv builders. Each returns 0, or -1 (ENOMEM, ENAMETOOLONG). */
int step_probe(const struct plan *pl, struct argv *a);
/* ... requiring tier, not plan_tier's (needs pl->stepdir only) */
int step_probe_tier(const struct plan *pl, const char *tier, struct argv *a);
/* home-stage create --begin: records pl->attempt (reaping the leftovers),
 * then stages its home; with pl->create_finish (--finish) then waits on
 * its input to finish it, as step_finish(pl, "-", ...) would */
int step_create(const struct plan *pl, struct argv *a);
/* session-store env-release: pl->env_project's values, once, on stdout */
int step_envrel(const struct plan *pl, struct argv *a);
/* The override profile document for pl->agent (into out, n bytes). */
int plan_nosignin_json(const struct plan *pl, char *out, size_t n);
/* keeper <cgroup, limits, pty> -- env-filter <layers> -- confine <rules> --
 * CMD; *envf_at, *confine_at and *cmd_at get the index where each later
 * step begins (for explain's line breaks and the audit log). */
int step_chain(const struct plan *pl, struct argv *a, size_t *envf_at, size_t *confine_at, size_t *cmd_at);
/* home-stage finish; with status (not NULL) --end: the attempt's record
 * closed by the same process (platform and tier as step_end's); status
 * "-": --wait-input, the status after the go byte on its input */
int step_finish(const struct plan *pl, const char *status, const char *platform, const char *tier,
    struct argv *a);
/* runfiles snapshot of root (the git configs that may name core.hooksPath
 * for it: the user's ~/.gitconfig, the workspace's .git/config) and
 * runfiles report of root: stdout and stdin are the snapshot's state. */
int step_snapshot(const struct plan *pl, const char *root, struct argv *a);
/* runfiles watch of root: the snapshot and, after its go byte, the report,
 * in one process (corral run's) */
int step_watch(const struct plan *pl, const char *root, struct argv *a);
int step_report(const struct plan *pl, const char *root, struct argv *a);
/* mcp-proxy for the policy's server i: a loopback endpoint with the
 * attempt's token file, the tool allowlist, the upstream. */
int step_mcp(const struct plan *pl, size_t i, struct argv *a);
/* netplan.c: the network part of confine's rules (policy "network"), the
 * env-filter option that pins the proxy variables (NET_ALLOW), and
 * egress-proxy's argv (NET_ALLOW; decisions appended to the attempt's
 * audit log, STORE/audit/ATTEMPT.jsonl). */
void plan_net_confine(const struct plan *pl, struct argv *a);
void plan_net_env(const struct plan *pl, struct argv *a);
int step_egress(const struct plan *pl, struct argv *a);
int step_end(const struct plan *pl, const char *status, const char *platform, const char *tier,
    struct argv *a);

/* The minimum tier this plan needs from probe: the policy's minimum_tier,
 * raised to what the grants need (ports: fs+net; scoping or no network: full). */
const char *plan_tier(const struct plan *pl);

#endif
