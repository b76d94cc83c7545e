#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "execenv.h"
#include "fdio.h"
#include "homepath.h"
#include "installtree.h"
#include "linkwalk.h"
#include "path.h"
#include "profile.h"
#include "gitstep.h"
#include "private.h"
#include "resolve.h"
#include "rundir.h"


static void
addwarn(char *warn, size_t n, const char *line)
{
	size_t l = strlen(warn);

	if (strstr(warn, line))
		return;		/* PATH may name a directory twice */
	if (l + strlen(line) + 2 < n) {
		strcpy(warn + l, line);
		strcat(warn + l, "\n");
	}
}

static int
has(const struct argv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], s) == 0)
			return 1;
	return 0;
}

struct rctx {
	struct plan *pl;
	char *why, *hint;
	size_t whyn, hintn;
	struct argv seen;	/* "KEY\tPATH" of each grant, for links_check */
};

/* One concrete path: resolve it, refuse one that exposes the real home.
 * A default system tree this machine lacks (if_present) is left out. */
static int
grant(struct rctx *c, struct argv *to, const char *key, const char *path, int if_present)
{
	char real[PATH_MAX], what[64];
	int r;

	av_pushcat(&c->seen, key, "\t", path, (char *)NULL);	/* trust: linkwalk.c */
	/* one walk resolves and checks: what is granted is what was checked
	 * (confine --no-symlinks then opens it without following a link) */
	link_what(what, sizeof what, key, strlen(key));
	if ((r = link_resolve(c->pl, what, path, real, c->why, c->whyn, c->hint, c->hintn)) == -1)
		return -1;
	if (r < 0) {
		if (if_present && errno == ENOENT) {
			av_pushf(&c->pl->notes, "left out: %s, a system tree of the default \"%s\": not on this machine",
			    path, key);
			return 0;
		}
		msg_say(c->why, c->whyn, "policy \"%s\" grants %s: %s", key, path, strerror(errno));
		msg_say(c->hint, c->hintn, "remove it from the policy, or create it first");
		return -1;
	}
	if (c->pl->home[0] && path_within(c->pl->home, real)) {
		msg_say(c->why, c->whyn, "policy \"%s\" grants %s, which holds your home %s",
		    key, real, c->pl->home);
		msg_say(c->hint, c->hintn, "grant the directories the program needs, not a parent of your home");
		return -1;
	}
	if (!has(to, real))
		av_push(to, real);
	return 0;
}

/* Drop from l every entry strictly inside an entry of by (or equal to an
 * entry of by when l is not by). */
static void
prune(struct argv *l, const struct argv *by)
{
	size_t i, j, o = 0;
	char *drop;

	if (l->n == 0 || (drop = calloc(l->n, 1)) == NULL)
		return;		/* out of memory: keep the redundant grants */
	/* decide first, then free: l may be by */
	for (i = 0; i < l->n; i++)
		for (j = 0; j < by->n && !drop[i]; j++) {
			if (l == by && i == j)
				continue;
			if (strcmp(by->v[j], l->v[i]) == 0)
				drop[i] = l != by;
			else
				drop[i] = path_within(l->v[i], by->v[j]);
		}
	for (i = 0; i < l->n; i++) {
		if (drop[i])
			free(l->v[i]);
		else
			l->v[o++] = l->v[i];
	}
	free(drop);
	l->n = o;
	l->v[o] = NULL;
}

/* 1 when dir is one of the ':'-separated entries of path */
static int
in_path(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	for (const char *p = path; *p; ) {
		size_t l = strcspn(p, ":");
		if (l == n && strncmp(p, dir, n) == 0)
			return 1;
		p += l;
		if (*p == ':')
			p++;
	}
	return 0;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir that the pattern base matches, as dir/NAME into m
 * (unsorted). The listing read through a buffer of the frame (dscan), not
 * opendir's DIR (an open and its fcntl, a malloc that mallocng maps and
 * unmaps); a frame of its own, gone before the grants are walked. 0, -1
 * when dir does not open. */
static int __attribute__((noinline))
glob_dir(const char *dir, const char *base, struct argv *m)
{
	struct dscan ds;
	struct dirent *d;

	if (dscan_openat(&ds, AT_FDCWD, dir) < 0)
		return -1;
	while ((d = dscan_next(&ds)) != NULL) {
		if (d->d_name[0] == '.' && base[0] != '.')
			continue;
		if (fnmatch(base, d->d_name, FNM_PERIOD) == 0)
			av_pushf(m, "%s/%s", strcmp(dir, "/") ? dir : "", d->d_name);
	}
	dscan_close(&ds);
	return 0;
}

/* Expand "~/" and a '*' in the last component; each match is granted. */
static int
expand(struct rctx *c, struct argv *to, const char *key, const char *entry)
{
	char path[PATH_MAX], dir[PATH_MAX], *base, *s;
	struct argv m = { 0 };
	int r = 0, opt = 0;

	for (size_t i = 0; i < c->pl->pol->if_present.n && !opt; i++)
		opt = strcmp(c->pl->pol->if_present.v[i], entry) == 0;
	if (entry[0] == '~') {
		if (!c->pl->home[0])
			return msg_say(c->why, c->whyn, "policy \"%s\" names %s, but there is no home directory", key, entry);
		if ((size_t)snprintf(path, sizeof path, "%s%s", c->pl->home, entry + 1) >= sizeof path)
			return msg_say(c->why, c->whyn, "policy \"%s\": %s is too long", key, entry);
	} else {
		snprintf(path, sizeof path, "%s", entry);
	}
	if (strchr(path, '*') == NULL)
		return grant(c, to, key, path, opt);
	s = strrchr(path, '/');
	snprintf(dir, sizeof dir, "%.*s", s == path ? 1 : (int)(s - path), path);
	base = s + 1;
	if (glob_dir(dir, base, &m) < 0)
		return 0;	/* a glob matching nothing grants nothing */
	if (m.err)
		return av_free(&m), msg_say(c->why, c->whyn, "out of memory");
	if (m.n)
		qsort(m.v, m.n, sizeof *m.v, cmpstr);
	for (size_t i = 0; i < m.n && r == 0; i++)
		r = grant(c, to, key, m.v[i], opt);
	av_free(&m);
	return r;
}

/* env.files and MCP credential files with "~" expanded. */
static int
paths_tilde(struct plan *pl, const struct policy *pol, char *why, size_t whyn,
    char *hint, size_t hintn)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < pol->env_files.n; i++) {
		if (plan_tilde(pl, pol->env_files.v[i], path, sizeof path) < 0)
			return msg_say(why, whyn, "policy \"env.files\" names %s, but %s", pol->env_files.v[i],
			    errno == ENOENT ? "there is no home directory" : "it is too long");
		av_push(&pl->envfiles, path);
	}
	for (size_t i = 0; i < pol->nmcp; i++)
		if (pol->mcp[i].credential_file && plan_tilde(pl, pol->mcp[i].credential_file, path, sizeof path) < 0)
			return msg_say(why, whyn, "policy MCP server %s names %s, but %s", pol->mcp[i].name,
			    pol->mcp[i].credential_file, errno == ENOENT ? "there is no home directory" : "it is too long");
	return pl->envfiles.err ? msg_say(why, whyn, "out of memory") : 0;
}

int
envfile_check(const char *path, char *why, size_t n)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), r = -1;

	if (fd < 0)
		return msg_say(why, n, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
	if (fstat(fd, &st) < 0)
		msg_say(why, n, "%s", strerror(errno));
	else
		r = private_check(&st, why, n);	/* as env-filter, which reads it, checks it */
	close(fd);
	return r;
}

static int
workspace_resolve(struct plan *pl, const struct policy *pol, char *why, size_t whyn,
    char *hint, size_t hintn)
{
	char wsbuf[PATH_MAX], real[PATH_MAX];
	const char *ws = pol->workspace ? pol->workspace : ".";
	struct stat st;
	int r;

	if (plan_tilde(pl, ws, wsbuf, sizeof wsbuf) < 0)
		return msg_say(why, whyn, "workspace %s: %s", ws, errno == ENOENT ? "there is no home directory" : strerror(errno));
	ws = wsbuf;
	/* resolved and checked in one walk (trust: linkwalk.c); a link in
	 * another attempt's directory is refused */
	pl->workspace[0] = '\0';
	if ((r = link_resolve(pl, "the workspace", ws, real, why, whyn, hint, hintn)) == -1)
		return -1;
	if (r < 0)
		return msg_say(why, whyn, "workspace %s: %s", ws, strerror(errno));
	memcpy(pl->workspace, real, sizeof real);
	if (stat(pl->workspace, &st) < 0 || !S_ISDIR(st.st_mode))
		return msg_say(why, whyn, "workspace %s is not a directory", pl->workspace);
	if (pl->home[0] && path_within(pl->home, pl->workspace)) {
		msg_say(why, whyn, "workspace %s holds your home directory %s", pl->workspace, pl->home);
		return msg_say(hint, hintn, "run corral from a project directory, or pass -w DIR");
	}
	if (path_within(pl->store, pl->workspace)) {
		msg_say(why, whyn, "workspace %s holds the state directory %s", pl->workspace, pl->store);
		return msg_say(hint, hintn, "pick another workspace with -w DIR, or set XDG_STATE_HOME");
	}
	return 0;
}

/* A command named after one of the embedded profiles is that agent. */
static int
agent_known(const char *name)
{
	return prof_name_ok(name) && profiles_embedded_has(name);
}

/* The policy's own "env.set" PATH, or NULL. */
static const char *
policy_path(const struct policy *pol)
{
	for (size_t i = 0; i < pol->env_set.n; i++)
		if (strncmp(pol->env_set.v[i], "PATH=", 5) == 0)
			return pol->env_set.v[i] + 5;
	return NULL;
}

/* The PATH the agent will have: the policy's "env.set" PATH, else the
 * granted PATH directories, else the caller's. */
static const char *
agent_path(const struct plan *pl, const struct policy *pol, char *const envp[])
{
	if (policy_path(pol))
		return policy_path(pol);
	if (pl->path[0])
		return pl->path;
	return env_get(envp, "PATH");
}

/* Every PATH directory: read + execute, unless it is not absolute, is
 * reached through a link the agent can write (trust), or lies in the home
 * without a toolchain entry (tool); the child's PATH keeps the caller's
 * spelling and order of what is granted. */
static void
grant_path_dirs(struct plan *pl, const char *path, char *warn, size_t warnn)
{
	char buf[PATH_MAX], line[PATH_MAX], msgb[PATH_MAX + 128];

	const char *p = path, *e;
	for (;; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		snprintf(line, PATH_MAX, "%.*s", (int)(e - p), p);
		if (line[0] != '/') {
			snprintf(msgb, sizeof msgb, "PATH entry \"%.*s\" is not absolute: not granted",
			    PATH_MAX, line);
			addwarn(warn, warnn, msgb);
		} else if (link_realpath(line, buf) < 0) {
			;	/* absent PATH directories grant nothing */
		} else if (link_walk(pl, line, buf, msgb, PATH_MAX, msgb + PATH_MAX, 128) == 1) {
			/* trust (linkwalk.c): the agent could re-point it */
			char lk[PATH_MAX + 128];
			snprintf(lk, sizeof lk, "PATH directory %.*s is reached through a symbolic link in %.100s: not granted",
			    PATH_MAX / 2, line, msgb + PATH_MAX);
			addwarn(warn, warnn, lk);
		} else if (pl->home[0] && (path_within(pl->home, buf) || path_within(buf, pl->home)) &&
		    homepath_grant(pl, line, buf, warn, warnn) <= 0) {
			;	/* tool (homepath.c): left out, the warning names the policy line */
		} else {
			if (!has(&pl->ex, buf) && !(pl->home[0] && path_within(buf, pl->home)))
				av_push(&pl->ex, buf);	/* in the home: what its toolchain entry granted */
			/* the child's PATH keeps the caller's spelling and order */
			size_t pn = strlen(pl->path);
			if (pn + strlen(line) + 2 < sizeof pl->path && !in_path(pl->path, line)) {
				if (pn)
					pl->path[pn++] = ':';
				strcpy(pl->path + pn, line);
			}
		}
		if (*e == '\0')
			break;
	}
}

int
plan_resolve(struct plan *pl, const struct policy *pol, char *const envp[],
    char *const *cmd, char *why, size_t whyn, char *hint, size_t hintn,
    char *warn, size_t warnn)
{
	struct rctx c = { pl, why, hint, whyn, hintn, { 0 } };
	const char *home, *xs, *path, *base;
	char sr[PATH_MAX];
	struct passwd *pw;
	struct stat st;
	size_t i;

	*why = *hint = '\0';
	if (warnn)
		*warn = '\0';
	pl->pol = pol;
	pl->cmd = cmd;

	if (!pl->stepdir[0] && resolve_stepdir(pl->stepdir, sizeof pl->stepdir) < 0)
		return msg_say(why, whyn, "cannot find the step programs (/proc/self/exe): %s", strerror(errno));

	/* the real home: what must stay unreachable */
	home = env_get(envp, "HOME");
	if ((home == NULL || *home != '/') && (pw = getpwuid(getuid())) != NULL)
		home = pw->pw_dir;
	pl->home[0] = '\0';
	if (home && *home == '/') {
		if (link_realpath(home, pl->home) < 0)	/* realpath(3), memoised */
			snprintf(pl->home, sizeof pl->home, "%s", home);
		if (strcmp(pl->home, "/") == 0)
			pl->home[0] = '\0';	/* a home of / protects nothing and blocks everything */
	}

	/* the store: $XDG_STATE_HOME/corral, else ~/.local/state/corral */
	xs = env_get(envp, "XDG_STATE_HOME");
	if (xs && *xs == '/') {
		if ((size_t)snprintf(pl->store, sizeof pl->store, "%s/corral", xs) >= sizeof pl->store)
			return msg_say(why, whyn, "XDG_STATE_HOME is too long");
	} else if (pl->home[0]) {
		if ((size_t)snprintf(pl->store, sizeof pl->store, "%s/.local/state/corral", pl->home) >= sizeof pl->store)
			return msg_say(why, whyn, "HOME is too long");
	} else
		return msg_say(why, whyn, "no state directory: HOME and XDG_STATE_HOME are unset"),
		    msg_say(hint, hintn, "set HOME or XDG_STATE_HOME"), -1;
	/* real, as every grant (confine --no-symlinks opens them as named) */
	if (link_realpath(pl->store, sr) == 0)
		memcpy(pl->store, sr, sizeof sr);
	/* the attempts' transient trees: on the user's tmpfs where there is one */
	if (rundir_path(envp, pl->trees, sizeof pl->trees, sr, sizeof sr) != 1)
		memcpy(pl->trees, pl->store, sizeof pl->trees);

	/* "~" in a policy path is the home; where there is none, refused */
	if (paths_tilde(pl, pol, why, whyn, hint, hintn) < 0)
		return -1;

	/* the workspace */
	if (workspace_resolve(pl, pol, why, whyn, hint, hintn) < 0) {
		if (!pl->ws_lenient)
			return -1;
		/* doctor: say why, grant no workspace */
		snprintf(pl->ws_why, sizeof pl->ws_why, "%s", why);
		pl->workspace[0] = '\0';
		*why = *hint = '\0';
	}

	if (pol->nmcp > 0 && pol->net == NET_NONE) {
		msg_say(why, whyn, "the policy names MCP servers, but \"network\" is \"none\": the agent reaches mcp-proxy over loopback TCP");
		return msg_say(hint, hintn, "use \"network\": {\"connect\": []} (the proxies' ports are added), or drop \"mcp\"");
	}

	/* a workspace in a repository gets an attempt repository of its top
	 * (gitstep.c); "off" hands over only a top's own .git */
	{
		char gitp[PATH_MAX + 8];
		snprintf(gitp, sizeof gitp, "%s/.git", pl->workspace);
		/* gitstep_top looks at the workspace's own .git first, then
		 * its parents': not that .git twice. A workspace that holds
		 * the home or the store, which it would pass over, is refused
		 * above (workspace_resolve) */
		if (pl->workspace[0] && pol->git != GIT_OFF)
			pl->git = gitstep_top(pl);
		else
			pl->git = pl->workspace[0] && lstat(gitp, &st) == 0;
		if (pl->git && gitws_plan(pl, pol, why, whyn, hint, hintn) < 0) {
			if (!pl->ws_lenient)
				return -1;
			snprintf(pl->ws_why, sizeof pl->ws_why, "%s", why);
			*why = *hint = '\0';
		}
	}

	/* grants */
	/* writes first: the walk of a grant inside one then knows the agent
	 * can write there */
	for (i = 0; i < pol->write.n; i++)
		if (expand(&c, &pl->wr, "write", pol->write.v[i]) < 0)
			return av_free(&c.seen), -1;
	for (i = 0; i < pol->exec.n; i++)
		if (expand(&c, &pl->ex, "exec", pol->exec.v[i]) < 0)
			return av_free(&c.seen), -1;
	for (i = 0; i < pol->read.n; i++)
		if (expand(&c, &pl->rd, "read", pol->read.v[i]) < 0)
			return av_free(&c.seen), -1;
	/* trust (linkwalk.c): nothing resolved through a link the agent can write */
	if (c.seen.err)
		msg_say(why, whyn, "out of memory");
	if (c.seen.err || links_check(pl, &c.seen, why, whyn, hint, hintn) < 0) {
		av_free(&c.seen);
		return -1;
	}
	av_free(&c.seen);
	/* each env file as env-filter will take it (after the link check,
	 * which names a link the agent planted): what policy check accepted
	 * never fails at run */
	for (i = 0; i < pl->envfiles.n; i++) {
		char e[256];
		if (envfile_check(pl->envfiles.v[i], e, sizeof e) < 0) {
			msg_say(why, whyn, "policy \"env.files\": %s: %s", pol->env_files.v[i], e);
			return msg_say(hint, hintn, "an env file is a regular file you own, mode 0600 (chmod 600 %s)",
			    pl->envfiles.v[i]);
		}
	}
	if (pol->path_exec && (path = env_get(envp, "PATH")) != NULL)
		grant_path_dirs(pl, path, warn, warnn);
	/* tool (installtree.c): the command's own install tree, and its interpreter's */
	/* ... found in the user's PATH where the agent's left its directory
	 * out (no policy PATH: the chain's PATH is pl->path) */
	if (cmd && cmd[0] && installtree_grant(pl, agent_path(pl, pol, envp),
	    pl->path[0] && !policy_path(pol) ? env_get(envp, "PATH") : NULL, cmd[0], &pl->notes) < 0)
		return msg_say(why, whyn, "out of memory");
	if (pl->ex.err || pl->rd.err || pl->wr.err)
		return msg_say(why, whyn, "out of memory");
	/* a grant inside a grant that gives as much says nothing more */
	prune(&pl->ex, &pl->ex);
	prune(&pl->rd, &pl->ex);
	prune(&pl->rd, &pl->rd);
	prune(&pl->wr, &pl->wr);

	/* the agent: -a, the policy, else the command's name when it is a
	 * known profile, else none (no sign-in) */
	base = NULL;
	if (pol->agent)
		base = pol->agent;
	else if (cmd && cmd[0]) {
		base = strrchr(cmd[0], '/') ? strrchr(cmd[0], '/') + 1 : cmd[0];
		if (!agent_known(base))
			base = NULL;
	}
	snprintf(pl->agent, sizeof pl->agent, "%s", base ? base : "none");
	/* its sign-in, when the store holds one (STORE/creds/AGENT) */
	{
		char cred[PATH_MAX + 80];
		snprintf(cred, sizeof cred, "%s/creds/%s", pl->store, pl->agent);
		/* corral signin: a fresh home, whatever is stored */
		pl->signin = !pl->fresh && base != NULL && lstat(cred, &st) == 0 && S_ISREG(st.st_mode);
	}
	pl->nosignin[0] = '\0';
	if (!pl->signin && !(pol->full_setup && base != NULL))
		if ((size_t)snprintf(pl->nosignin, sizeof pl->nosignin, "%s/nosignin-%s.json",
		    pl->store, pl->agent) >= sizeof pl->nosignin)
			return msg_say(why, whyn, "the state directory's path is too long");
	if (pol->full_setup)
		pl->signin = 0;
	return 0;
}
