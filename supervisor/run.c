/* corral run: prove, open, stage, exec the chain, forward, wait, take back,
 * close. corral's own failure is 125; the agent's status passes through. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "execenv.h"
#include "fdio.h"
#include "json.h"
#include "msg.h"
#include "num.h"
#include "rnd.h"
#include "spawn.h"

static volatile sig_atomic_t child_pid, pending_sig;

static const int fwd_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH };

static void
on_signal(int sig)
{
	int e = errno;

	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
	else if (sig != SIGWINCH)
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
		sigaction(fwd_sigs[i], &sa, NULL);
}

/* The steps' own environment: explicit, small, no secrets. */
static const char *const step_keep[] = {
	"HOME", "USER", "LOGNAME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "TZ", NULL
};

static char **
step_env(char *const envp[], struct argv *store)
{
	const char *v;

	av_push(store, "PATH=/usr/bin:/bin");
	for (size_t i = 0; step_keep[i]; i++)
		if ((v = env_get(envp, step_keep[i])) != NULL)
			av_pushf(store, "%s=%s", step_keep[i], v);
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

/* Kill whatever the chain left behind: its process group, then every
 * orphan that was reparented to us (we are a subreaper). */
static void
reap_leftovers(pid_t pgid)
{
	char path[64], buf[4096], *p, *e;
	int ws, fd, any;
	ssize_t n;

	if (pgid > 0)
		kill(-pgid, SIGKILL);
	for (int round = 0; round < 64; round++) {
		any = 0;
		snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof buf - 1);
			close(fd);
			if (n > 0) {
				buf[n] = '\0';
				for (p = buf; *p; p = e) {
					long pid = strtol(p, &e, 10);
					if (e == p)
						break;
					if (pid > 0) {
						kill((pid_t)pid, SIGKILL);
						any = 1;
					}
				}
			}
		}
		while (waitpid(-1, &ws, any ? 0 : WNOHANG) > 0)
			;
		if (!any)
			break;
	}
}

struct proxy {
	pid_t pid;
	int out;		/* its stdout, held open while it runs */
};

struct runstate {
	struct proxy mcp[POLICY_MAX_MCP];
	size_t nmcp;
	struct plan pl;
	struct policy pol;
	struct audit au;
	char **senv;
	struct argv senv_store;
	char platform[32], tier[32];
	char attempt[80];
	char attempt_dir[PATH_MAX];
	int have_attempt, have_dir;
};

static void
stop_mcp(struct runstate *s)
{
	int ws;

	for (size_t i = 0; i < s->nmcp; i++) {
		kill(s->mcp[i].pid, SIGTERM);
		while (waitpid(s->mcp[i].pid, &ws, 0) < 0 && errno == EINTR)
			;
		close(s->mcp[i].out);
	}
	s->nmcp = 0;
}

static int
close_attempt(struct runstate *s, int status)
{
	struct argv fa = { 0 }, ea = { 0 };
	struct spawned fin = { -1, -1 }, end = { -1, -1 };
	char took[4096], junk[256], st[16];
	int ws, ok = 1;

	stop_mcp(s);
	/* take-back and the record's end are independent: side by side */
	if (s->have_dir && (step_finish(&s->pl, &fa) < 0 || spawn_start(fa.v, s->senv, 1, &fin) < 0)) {
		msg_warn_sys("unable to run home-stage finish");
		ok = 0;
	}
	snprintf(st, sizeof st, "%d", status);
	if (s->have_attempt && (step_end(&s->pl, st, s->platform[0] ? s->platform : NULL,
	    s->tier[0] ? s->tier : NULL, &ea) < 0 || spawn_start(ea.v, s->senv, 1, &end) < 0)) {
		msg_warn_sys("unable to run session-store end");
		ok = 0;
	}
	av_free(&fa);
	av_free(&ea);
	if (fin.pid > 0) {
		ws = spawn_collect(&fin, took, sizeof took);
		audit_start(&s->au, "home-stage finish");
		audit_int(&s->au, "status", wait_code(ws));
		chomp(took);
		audit_str(&s->au, "took_back", took);	/* names only, as home-stage reports them */
		audit_end(&s->au);
		if (wait_code(ws) != 0) {
			msg_warn("home-stage finish failed (status %d): the attempt directory stays until the next run reaps it", wait_code(ws));
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

/* Wait for the reap started beside begin and create; its output (the ids
 * it removed) is not needed. */
static void
reap_collect(struct spawned *rp)
{
	int ws;

	if (rp->pid <= 0)
		return;
	ws = spawn_collect(rp, NULL, 0);
	rp->pid = -1;
	if (ws >= 0 && wait_code(ws) != 0)
		msg_warn("session-store reap failed (status %d)", wait_code(ws));
}

static int
fail_run(struct runstate *s)
{
	close_attempt(s, EXIT_CHAIN_FAIL);
	return EXIT_CHAIN_FAIL;
}

/* Give the terminal to pgrp when we hold it; returns 1 when we did. */
static int
tty_give(pid_t pgrp)
{
	sigset_t b, o;
	int r;

	if (!isatty(0) || tcgetpgrp(0) != getpgrp())
		return 0;
	sigemptyset(&b);
	sigaddset(&b, SIGTTOU);
	sigprocmask(SIG_BLOCK, &b, &o);
	r = tcsetpgrp(0, pgrp) == 0;
	sigprocmask(SIG_SETMASK, &o, NULL);
	return r;
}

static void
tty_take(void)
{
	sigset_t b, o;

	sigemptyset(&b);
	sigaddset(&b, SIGTTOU);
	sigprocmask(SIG_BLOCK, &b, &o);
	(void)tcsetpgrp(0, getpgrp());
	sigprocmask(SIG_SETMASK, &o, NULL);
}

static int
write_nosignin(const struct plan *pl)
{
	char doc[512];
	const char *name = strrchr(pl->nosignin, '/') + 1;
	int n = plan_nosignin_json(pl, doc, sizeof doc), fd, r;

	if (n < 0)
		return errno = ENAMETOOLONG, -1;
	fd = open(pl->store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	{
		/* the same document every time: rewrite (and fsync) only
		 * when it is missing or differs */
		char *old;
		size_t len;
		struct stat st;
		if (file_read_bounded(fd, name, sizeof doc, &old, &len) == 0) {
			int same = len == (size_t)n && memcmp(old, doc, len) == 0 &&
			    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_uid == geteuid() && (st.st_mode & 077) == 0;
			free(old);
			if (same) {
				close(fd);
				return 0;
			}
		}
	}
	r = file_write_atomic(fd, name, doc, (size_t)n, 0600);
	close(fd);
	return r;
}

/* The proxies' environment: PATH and HOME, and the names the policy keeps
 * for a stdio upstream (mcp-proxy passes on only those given with -e). */
static char **
mcp_env(char *const envp[], const struct mcp_server *m, struct argv *store)
{
	const char *v = env_get(envp, "PATH");

	av_pushf(store, "PATH=%s", v ? v : "/usr/bin:/bin");
	if ((v = env_get(envp, "HOME")) != NULL)
		av_pushf(store, "HOME=%s", v);
	for (size_t k = 0; k < m->env_keep.n; k++)
		if ((v = env_get(envp, m->env_keep.v[k])) != NULL)
			av_pushf(store, "%s=%s", m->env_keep.v[k], v);
	return store->err ? NULL : store->v;
}

/* Start one mcp-proxy; its first line of output is its URL. Returns the
 * port it listens on, or -1. */
static int
start_proxy(struct runstate *s, size_t i, char **envp, char *url, size_t urln)
{
	struct argv a = { 0 }, e = { 0 };
	char **env, port[6];
	int p[2], nul, pn;
	size_t got = 0, k;
	ssize_t n;
	pid_t pid;

	if (step_mcp(&s->pl, i, &a) < 0 || (env = mcp_env(envp, &s->pol.mcp[i], &e)) == NULL) {
		av_free(&a);
		av_free(&e);
		return errno = ENOMEM, -1;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		av_free(&a);
		av_free(&e);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(p[1], 1) < 0)
			_exit(125);
		fd_close_from(3, NULL, 0);
		execve(a.v[0], a.v, env);
		_exit(127);
	}
	av_free(&a);
	av_free(&e);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	s->mcp[s->nmcp].pid = pid;
	s->mcp[s->nmcp].out = p[0];
	s->nmcp++;
	while (got + 1 < urln) {
		n = read(p[0], url + got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (url[got] == '\n')
			break;
		got++;
	}
	url[got] = '\0';
	/* mcp-proxy prints exactly http://127.0.0.1:PORT/mcp */
	k = strncmp(url, "http://127.0.0.1:", 17) == 0 ? strspn(url + 17, "0123456789") : 0;
	if (k == 0 || k >= sizeof port || strcmp(url + 17 + k, "/mcp") != 0)
		return errno = EPROTO, -1;
	memcpy(port, url + 17, k);
	port[k] = '\0';
	if (num_parse_int(port, 1, 65535, &pn) < 0)
		return errno = EPROTO, -1;
	return pn;
}

/* 4. the policy's MCP servers: a proxy each, outside the boundary, on a
 * loopback port with a per-attempt token; the agent finds them in
 * $CORRAL_MCP_CONFIG (an "mcpServers" document, 0600). */
static int
start_mcp(struct runstate *s, char **envp)
{
	const struct policy *p = &s->pol;
	char url[256], tok[65], q[512], name[96];
	struct argv doc = { 0 };
	int afd = -1, cfd = -1, dfd = -1, fd, port, r = -1;
	size_t i, len = 0;
	char *buf = NULL;

	if (p->nmcp == 0)
		return 0;
	afd = open(s->attempt_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cfd = afd < 0 ? -1 : openat(afd, "config", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0 || (mkdirat(cfd, "corral", 0700) < 0 && errno != EEXIST) ||
	    (dfd = openat(cfd, "corral", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		msg_fatal_sys("unable to prepare %s/config/corral", s->attempt_dir);
		goto out;
	}
	av_push(&doc, "{\"mcpServers\":{");
	for (i = 0; i < p->nmcp; i++) {
		const struct mcp_server *m = &p->mcp[i];
		if (rnd_hex(tok, 32) < 0) {
			msg_fatal_sys("getrandom");
			goto out;
		}
		snprintf(name, sizeof name, "mcp-%s.token", m->name);
		fd = openat(afd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || fd_write_all(fd, tok, 64) < 0) {
			msg_fatal_sys("unable to write %s/%s", s->attempt_dir, name);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
		if ((port = start_proxy(s, i, envp, url, sizeof url)) < 0) {
			msg_fatal("mcp-proxy for MCP server %s did not start", m->name);
			msg_hint("its own message above says why");
			goto out;
		}
		snprintf(s->pl.mcp_port[i], sizeof s->pl.mcp_port[i], "%d", port);
		json_quote(m->name, strlen(m->name), q, sizeof q);
		av_pushf(&doc, "%s%s:{\"type\":\"http\",\"url\":\"%s\",\"headers\":{\"Authorization\":\"Bearer %s\"}}",
		    i ? "," : "", q, url, tok);
		audit_start(&s->au, "mcp-proxy");
		audit_str(&s->au, "server", m->name);
		audit_strs(&s->au, "tools", m->tools.v, m->tools.n);
		audit_str(&s->au, "upstream", m->url ? "http" : "stdio");
		audit_str(&s->au, "port", s->pl.mcp_port[i]);
		audit_end(&s->au);
	}
	av_push(&doc, "}}\n");
	if (doc.err)
		goto out;
	for (i = 0; i < doc.n; i++)
		len += strlen(doc.v[i]);
	if ((buf = malloc(len + 1)) == NULL)
		goto out;
	buf[0] = '\0';
	for (i = 0; i < doc.n; i++)
		strcat(buf, doc.v[i]);
	if (file_write_atomic(dfd, "mcp.json", buf, len, 0600) < 0) {
		msg_fatal_sys("unable to write %s/config/corral/mcp.json", s->attempt_dir);
		goto out;
	}
	r = 0;
out:
	explicit_bzero(tok, sizeof tok);
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
	for (i = 0; i < doc.n; i++)
		explicit_bzero(doc.v[i], strlen(doc.v[i]));
	av_free(&doc);
	if (dfd >= 0)
		close(dfd);
	if (cfd >= 0)
		close(cfd);
	if (afd >= 0)
		close(afd);
	return r;
}

/* --full-setup: the agent's own folders of the real home are granted at
 * their real paths; a symlink at the same place in the private home lets
 * the agent find them there (Landlock checks the real path). */
static int
link_fullsetup(const struct plan *pl, const char *dir)
{
	char path[PATH_MAX + 8], rel[PATH_MAX], *sl;
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
		dfd = dup(hfd);
		/* parents, each created here and opened without following */
		for (char *c = rel; dfd >= 0 && (sl = strchr(c, '/')) != NULL; c = sl + 1) {
			int nd;
			*sl = '\0';
			if (mkdirat(dfd, c, 0700) < 0 && errno != EEXIST)
				nd = -1;
			else
				nd = openat(dfd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(dfd);
			dfd = nd;
		}
		if (dfd < 0 || symlinkat(f, dfd, strrchr(f, '/') + 1) < 0)
			r = -1;
		if (dfd >= 0)
			close(dfd);
	}
	close(hfd);
	return r;
}

static const char *const steps_needed[] = { "probe", "session-store", "home-stage", "env-filter", "confine", NULL };

int
cmd_run(int argc, char **argv, char **envp)
{
	static struct runstate s;
	struct runopts o;
	struct argv a = { 0 };
	struct spawned reap = { -1, -1 };
	char out[PATH_MAX * 2], path[PATH_MAX + 32], *nl;
	size_t ci, xi;
	int ws, r, code, tty = 0, serr;
	pid_t pid, self;

	msg_init("corral");
	s.au.fd = -1;
	if ((r = runopts_parse(argc, argv, &o)) != 0)
		return r > 0 ? 0 : EXIT_CHAIN_FAIL;
	signals_install();
	policy_init(&s.pol);
	if (plan_load(&o, envp, &s.pol, &s.pl, 1) < 0)
		return EXIT_CHAIN_FAIL;
	for (size_t i = 0; steps_needed[i]; i++) {
		snprintf(path, sizeof path, "%s/%s", s.pl.stepdir, steps_needed[i]);
		if (access(path, X_OK) < 0) {
			msg_fatal_sys("step program %s", path);
			msg_hint("build the toolkit (make) or reinstall corral: its steps live in %s", s.pl.stepdir);
			return EXIT_CHAIN_FAIL;
		}
	}
	if ((s.senv = step_env(envp, &s.senv_store)) == NULL)
		return msg_fatal("out of memory"), EXIT_CHAIN_FAIL;
	/* orphans of the chain come back to us, so none outlives the attempt */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	/* 1. the proof: no proof, no run */
	if (step_probe(&s.pl, &a) < 0)
		return msg_fatal_sys("probe"), EXIT_CHAIN_FAIL;
	ws = spawn_wait(a.v, s.senv, out, sizeof out);
	av_free(&a);
	if (ws < 0)
		return msg_fatal_sys("unable to run probe"), EXIT_CHAIN_FAIL;
	if (wait_code(ws) != 0) {
		msg_fatal("containment is unproven on this machine (probe status %d): nothing was started", wait_code(ws));
		msg_hint("run corral doctor for the evidence");
		return EXIT_CHAIN_FAIL;
	}
	if (probe_fields(out, s.platform, sizeof s.platform, s.tier, sizeof s.tier) < 0) {
		msg_fatal("probe printed no platform and tier: nothing was started");
		return EXIT_CHAIN_FAIL;
	}
	if (pending_sig)
		return 128 + pending_sig;

	/* leftovers of a corral that was killed: reaped side by side with
	 * begin and create (the store lock orders reap and begin; a live
	 * attempt, ours included, is never reaped); collected before the
	 * chain starts */
	if (step_reap(&s.pl, &a) < 0 || spawn_start(a.v, s.senv, 1, &reap) < 0)
		msg_warn_sys("unable to run session-store reap");
	av_free(&a);

	/* 2. the attempt */
	if (step_begin(&s.pl, &a) < 0 || (ws = spawn_wait(a.v, s.senv, out, sizeof out)) < 0) {
		serr = errno;
		av_free(&a);
		reap_collect(&reap);
		errno = serr;
		return msg_fatal_sys("unable to run session-store begin"), EXIT_CHAIN_FAIL;
	}
	av_free(&a);
	chomp(out);
	if (wait_code(ws) != 0 || out[0] == '\0' || strlen(out) >= sizeof s.attempt ||
	    strspn(out, "0123456789abcdef") != strlen(out)) {
		reap_collect(&reap);
		msg_fatal("session-store begin failed (status %d): nothing was started", wait_code(ws));
		return EXIT_CHAIN_FAIL;
	}
	snprintf(s.attempt, sizeof s.attempt, "%s", out);
	s.pl.attempt = s.attempt;
	s.have_attempt = 1;
	if (audit_open(&s.au, s.pl.store, s.attempt) < 0)
		msg_warn_sys("unable to open the audit log in %s/audit", s.pl.store);
	audit_start(&s.au, "probe");
	audit_str(&s.au, "platform", s.platform);
	audit_str(&s.au, "tier", s.tier);
	audit_str(&s.au, "required", plan_tier(&s.pl));
	audit_end(&s.au);
	audit_start(&s.au, "session-store begin");
	audit_str(&s.au, "attempt", s.attempt);
	audit_str(&s.au, "agent", s.pl.agent);
	audit_end(&s.au);
	if (pending_sig)
		return reap_collect(&reap), close_attempt(&s, 128 + pending_sig), 128 + pending_sig;

	/* 3. the private home (see plan.h for the no-sign-in override) */
	if (s.pl.nosignin[0] && write_nosignin(&s.pl) < 0) {
		msg_fatal_sys("unable to write %s", s.pl.nosignin);
		reap_collect(&reap);
		return fail_run(&s);
	}
	ws = step_create(&s.pl, &a) < 0 ? -1 : spawn_wait(a.v, s.senv, out, sizeof out);
	serr = errno;
	av_free(&a);
	reap_collect(&reap);
	if (ws < 0) {
		errno = serr;
		msg_fatal_sys("unable to run home-stage create");
		return fail_run(&s);
	}
	if (wait_code(ws) != 0 || out[0] != '/') {
		msg_fatal("home-stage create failed (status %d): nothing was started", wait_code(ws));
		return fail_run(&s);
	}
	nl = strchr(out, '\n');
	if (nl)
		*nl++ = '\0';
	snprintf(s.attempt_dir, sizeof s.attempt_dir, "%s", out);
	s.pl.attempt_dir = s.attempt_dir;
	s.have_dir = 1;
	/* --full-setup: the folders to grant read-write follow, one a line */
	while (s.pol.full_setup && nl && *nl) {
		char *e = strchr(nl, '\n');
		if (e)
			*e++ = '\0';
		if (*nl == '/')
			av_push(&s.pl.fullsetup, nl);
		nl = e;
	}
	if (s.pl.fullsetup.n > 0 && link_fullsetup(&s.pl, s.attempt_dir) < 0) {
		msg_fatal_sys("unable to link the full-setup folders into %s/home", s.attempt_dir);
		return fail_run(&s);
	}
	audit_start(&s.au, "home-stage create");
	audit_str(&s.au, "dir", s.attempt_dir);
	audit_int(&s.au, "signin", s.pl.signin);
	audit_strs(&s.au, "full_setup", s.pl.fullsetup.v, s.pl.fullsetup.n);
	audit_end(&s.au);

	if (start_mcp(&s, envp) < 0)
		return fail_run(&s);

	/* 5. the chain */
	if (step_chain(&s.pl, &a, &ci, &xi) < 0) {
		msg_fatal_sys("unable to build the chain");
		return fail_run(&s);
	}
	audit_start(&s.au, "env-filter");
	audit_str(&s.au, "layers", "baseline");
	audit_strs(&s.au, "keep", s.pol.env_keep.v, s.pol.env_keep.n);
	audit_strs(&s.au, "files", s.pol.env_files.v, s.pol.env_files.n);
	{
		struct argv names = { 0 };
		if (s.pl.path[0])
			av_push(&names, "PATH");
		for (size_t i = 0; i < s.pol.env_set.n; i++)
			av_pushf(&names, "%.*s", (int)strcspn(s.pol.env_set.v[i], "="), s.pol.env_set.v[i]);
		audit_strs(&s.au, "set", names.v, names.n);
		av_free(&names);
		for (size_t i = 0; plan_pins[i].name; i++)
			av_push(&names, plan_pins[i].name);
		audit_strs(&s.au, "pin", names.v, names.n);
		av_free(&names);
	}
	audit_end(&s.au);
	audit_start(&s.au, "confine");
	audit_strs(&s.au, "rules", a.v + ci + 1, xi - ci - 2);
	audit_end(&s.au);
	audit_start(&s.au, "exec");
	audit_str(&s.au, "command", a.v[xi]);
	audit_int(&s.au, "args", (long long)(a.n - xi - 1));
	audit_end(&s.au);
	if (pending_sig) {
		av_free(&a);
		return close_attempt(&s, 128 + pending_sig), 128 + pending_sig;
	}

	self = getpid();
	pid = fork();
	if (pid < 0) {
		av_free(&a);
		msg_fatal_sys("fork");
		return fail_run(&s);
	}
	if (pid == 0) {
		sigset_t none;
		struct sigaction dfl;

		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		for (size_t i = 0; i < sizeof fwd_sigs / sizeof fwd_sigs[0]; i++)
			sigaction(fwd_sigs[i], &dfl, NULL);
		setpgid(0, 0);
		tty_give(getpid());
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the chain dies with corral, even by SIGKILL */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != self)	/* corral died before the signal was armed */
			_exit(EXIT_CHAIN_FAIL);
		/* env-filter builds the agent's environment from ours: it is
		 * the filter, so it is given ours, explicitly */
		execve(a.v[0], a.v, envp);
		msg_fatal_sys("unable to execute %s", a.v[0]);
		_exit(exec_status(errno));
	}
	setpgid(pid, pid);
	child_pid = pid;
	tty = tty_give(pid);
	if (pending_sig)
		kill(pid, pending_sig);
	av_free(&a);

	/* 6. wait, forwarding signals (on_signal) */
	for (;;) {
		if (waitpid(pid, &ws, WUNTRACED) < 0) {
			if (errno == EINTR)
				continue;
			msg_fatal_sys("waitpid");
			ws = EXIT_CHAIN_FAIL << 8;
			break;
		}
		if (!WIFSTOPPED(ws))
			break;
		/* the agent stopped (^Z): stop too, as a job would, so the
		 * user's shell gets the terminal back; on fg, resume it */
		if (tty)
			tty_take();
		kill(getpid(), SIGSTOP);
		if (tty)
			tty_give(pid);
		kill(-pid, SIGCONT);
	}
	child_pid = 0;
	if (tty)
		tty_take();
	stop_mcp(&s);
	reap_leftovers(pid);
	code = wait_code(ws);
	audit_start(&s.au, "wait");
	audit_int(&s.au, "status", code);
	if (WIFSIGNALED(ws))
		audit_int(&s.au, "signal", WTERMSIG(ws));
	audit_end(&s.au);

	/* 7, 8. take back, close */
	close_attempt(&s, code);
	audit_close(&s.au);
	plan_free(&s.pl);
	policy_free(&s.pol);
	av_free(&s.senv_store);
	return code;
}
