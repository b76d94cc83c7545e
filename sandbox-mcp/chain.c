/* The chain session_bash runs: the same steps, by absolute path, as corral run. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "bash.h"
#include "execenv.h"
#include "mounts.h"
#include "run.h"
#include "path.h"
#include "stepdir.h"

/* The system directories every command can read and run from; optional
 * ones may be absent on a machine.
 *
 * corral grants the system differently, on purpose: its grants are the
 * policy's "exec" and "read" lists (the default: /usr, /bin, /lib*, /sbin
 * and /etc executable), each path resolved and checked by linkwalk.c and
 * handed to confine with --no-symlinks, because the user may name any
 * path there. sandbox-mcp has no such list in its configuration: this
 * fixed table is all it grants of the system, /etc only readable (nothing
 * a session runs lives there), and its PATH grants leave out what holds
 * the home or the store (exposes()). The two agree on /usr, the bin and
 * lib trees and a readable /proc; neither grants /dev/pts. */
static const struct { const char *path; const char *flag; int optional; } SYSTEM[] = {
	{ "/usr", "-x", 0 }, { "/bin", "-x", 1 }, { "/sbin", "-x", 1 }, { "/lib", "-x", 1 },
	{ "/lib64", "-x", 1 }, { "/lib32", "-x", 1 }, { "/libx32", "-x", 1 }, { "/etc", "-r", 0 },
	{ "/proc", "-r", 0 }, { NULL, NULL, 0 }
};

int
chain_prove(struct sbx *s, char *err, size_t errn)
{
	static char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };
	char probe[PATH_MAX + 8];
	char *argv[] = { probe, "--quiet", "--require", "full", NULL };
	struct run_opt o = { .max_out = 4096, .timeout_ms = 60000 };
	struct run_res r;

	if (s->proven)
		return 0;
	snprintf(probe, sizeof probe, "%s/probe", s->stepdir);
	if (run_prog(argv, envp, &o, &r) < 0)
		return sbx_err(err, errn, "unable to run %s: %s; session_bash refused", probe, strerror(errno));
	run_res_free(&r);
	if (run_code(r.status) != 0)
		return sbx_err(err, errn, "probe could not prove the boundary at tier full (status %d): session_bash refused (run %s -v to see why)",
		    run_code(r.status), probe);
	s->proven = 1;
	return 0;
}

/* 1 when a grant at real would expose the home (holding it) or the store. */
static int
exposes(const struct sbx *s, const char *real)
{
	if (s->home[0] && path_within(s->home, real))
		return 1;
	return path_within(s->store, real) || path_within(real, s->store);
}

static void
path_grants(struct sbx *s, struct argv *av, char *childpath, size_t cpn)
{
	const char *path = env_get(s->envp, "PATH");
	char one[PATH_MAX], real[PATH_MAX];
	size_t o = 0;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	childpath[0] = '\0';
	for (const char *p = path; *p; ) {
		size_t l = strcspn(p, ":");
		if (l > 0 && l < sizeof one && p[0] == '/') {
			memcpy(one, p, l);
			one[l] = '\0';
			if (realpath(one, real) != NULL && !exposes(s, real) &&
			    !(s->home[0] && path_within(real, s->home)) && o + l + 2 < cpn) {
				av_push(av, "-x");
				av_push(av, real);
				if (o)
					childpath[o++] = ':';
				memcpy(childpath + o, one, l);
				o += l;
				childpath[o] = '\0';
			}
		}
		p += l;
		if (*p == ':')
			p++;
	}
}

/* env-filter's part: the env_allowlist names, PATH, then each pin; the
 * confine step and the system and PATH grants after it. */
static void
chain_head(struct sbx *s, struct argv *av, struct argv *env, char *const *pins)
{
	const struct config *c = &s->cfg;
	char childpath[8192];
	struct argv gr = { 0 };

	av_pushf(av, "%s/env-filter", s->stepdir);
	for (int i = 0; i < c->env_allowlist.n; i++) {
		const char *v = env_get(s->envp, c->env_allowlist.v[i]);
		if (strchr(c->env_allowlist.v[i], '=') || v == NULL)
			continue;
		av_push(av, "-k");
		av_push(av, c->env_allowlist.v[i]);
		av_pushf(env, "%s=%s", c->env_allowlist.v[i], v);
	}
	path_grants(s, &gr, childpath, sizeof childpath);
	av_push(av, "-p");
	av_pushf(av, "PATH=%s", childpath[0] ? childpath : "/usr/bin:/bin");
	for (; pins && *pins; pins++) {
		av_push(av, "-p");
		av_push(av, *pins);
	}
	av_push(av, "--");
	av_pushf(av, "%s/confine", s->stepdir);
	for (int i = 0; SYSTEM[i].path; i++) {
		struct stat st;
		if (SYSTEM[i].optional && lstat(SYSTEM[i].path, &st) < 0)
			continue;
		av_push(av, SYSTEM[i].flag);
		av_push(av, SYSTEM[i].path);
	}
	for (size_t i = 0; i < gr.n; i++)
		av_push(av, gr.v[i]);
	av_free(&gr);
}

static int
chain_fail(struct argv *av, struct argv *env, char *err, size_t errn, const char *why)
{
	av_free(av);
	av_free(env);
	return sbx_err(err, errn, "%s", why);
}

int
chain_build(struct sbx *s, const struct sess *ss, char *const *prog, int rfd, struct argv *av,
    struct argv *env, char *err, size_t errn)
{
	const struct config *c = &s->cfg;
	char real[PATH_MAX];
	struct argv pins = { 0 };

	/* env-filter: only what env_allowlist names, then the pins */
	av_pushf(&pins, "HOME=%s", ss->tmp);
	av_pushf(&pins, "TMPDIR=%s", ss->tmp);
	av_pushf(&pins, "PWD=%s", ss->ws);
	mounts_env(ss, &pins);
	/* confine: the system, PATH, the allowlisted host paths read-only;
	 * the workspace and the session tmp writable; no network */
	chain_head(s, av, env, pins.v);
	av_free(&pins);
	for (int i = 0; i < c->mount_allowlist.n; i++) {
		if (realpath(c->mount_allowlist.v[i], real) == NULL)
			continue;	/* absent: grants nothing */
		if (exposes(s, real) || path_within(real, s->store)) {
			av_free(av);
			av_free(env);
			return sbx_err(err, errn, "mount_allowlist entry %s would expose %s: session_bash refused",
			    c->mount_allowlist.v[i], path_within(s->store, real) || path_within(real, s->store) ?
			    "the session store" : "your home directory");
		}
		av_push(av, "-r");
		av_push(av, real);
	}
	if (mounts_grants(s, ss, av, err, errn) < 0) {
		av_free(av);
		av_free(env);
		return -1;
	}
	av_push(av, "--dev");
	av_push(av, "-W");
	av_push(av, ss->ws);
	av_push(av, "-W");
	av_push(av, ss->tmp);
	av_push(av, "--no-network");
	/* its own unix sockets, as corral run grants: connect() decided by
	 * the broker, so a host socket (docker's, the session bus) is refused
	 * and recorded */
	av_push(av, "--own-unix");
	if (rfd > 2) {
		av_push(av, "--refusals");
		av_pushf(av, "%d", rfd);
	}
	av_push(av, "--");
	av_pushv(av, prog);
	if (av->err || env->err)
		return chain_fail(av, env, err, errn, "out of memory");
	return 0;
}

int
chain_on_path(struct sbx *s, const char *name)
{
	char childpath[8192], prog[PATH_MAX];
	struct argv gr = { 0 };

	path_grants(s, &gr, childpath, sizeof childpath);
	av_free(&gr);
	return exec_resolve(name, childpath[0] ? childpath : "/usr/bin:/bin", prog, sizeof prog) == 0;
}

int
chain_build_stage(struct sbx *s, const char *stage, const char *interp, char *const *args,
    char *const *pins, char *const *net, struct argv *av, struct argv *env, char *err, size_t errn)
{
	char childpath[8192], prog[PATH_MAX];
	struct argv gr = { 0 };

	/* the interpreter, looked up as the chain will: in the child's PATH */
	path_grants(s, &gr, childpath, sizeof childpath);
	av_free(&gr);
	if (exec_resolve(interp, childpath[0] ? childpath : "/usr/bin:/bin", prog, sizeof prog) < 0)
		return sbx_err(err, errn, "%s is not on the PATH commands get (%s): install it on the host first",
		    interp, errno == EACCES ? "found, not executable" : "not found");
	chain_head(s, av, env, pins);
	/* the stage alone writable: no workspace, no session tmp, no mounts */
	av_push(av, "--dev");
	av_push(av, "-W");
	av_push(av, stage);
	for (; net && *net; net++)
		av_push(av, *net);
	av_push(av, "--");
	av_push(av, prog);
	av_pushv(av, args);
	if (av->err || env->err)
		return chain_fail(av, env, err, errn, "out of memory");
	return 0;
}
