/* verdict: the rules of a run's boundary, in the order that decides. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "etc_secrets.h"
#include "hostname.h"
#include "ipaddr.h"
#include "path.h"
#include "toolchains.h"
#include "store.h"
#include "verdict.h"

const char *
access_name(enum access a)
{
	switch (a) {
	case ACC_READ: return "read";
	case ACC_EXEC: return "read+exec";
	case ACC_WRITE: return "read-write";
	default: return "none";
	}
}

/* The entry of l that holds p, or NULL. */
static const char *
held_by(const struct argv *l, const char *p)
{
	for (size_t i = 0; i < l->n; i++)
		if (path_within(p, l->v[i]))
			return l->v[i];
	return NULL;
}

/* 1 when p is reached through the embedded default's exec list: a system
 * tree ("/lib*" globs). */
static int
system_tree(const char *entry)
{
	static const char *const sys[] = { "/usr", "/bin", "/sbin", "/etc", NULL };

	for (size_t i = 0; sys[i]; i++)
		if (strcmp(entry, sys[i]) == 0)
			return 1;
	return strncmp(entry, "/lib", 4) == 0 && strchr(entry + 1, '/') == NULL;
}

/* 1 when entry is one of the PATH directories the plan granted. */
static int
path_dir(const struct plan *pl, const char *entry)
{
	size_t n = strlen(entry);

	for (const char *p = pl->path; *p; ) {
		size_t l = strcspn(p, ":");
		if (l == n && strncmp(p, entry, n) == 0)
			return 1;
		p += l + (p[l] == ':');
	}
	return 0;
}

static void
set(struct verdict *v, enum access acc, const char *rule)
{
	v->acc = acc;
	snprintf(v->rule, sizeof v->rule, "%s", rule);
}

/* The line that gives what need asks at at, relative to the home where it is
 * in it; nothing can make a file directly in the home (it is never granted). */
static void
suggest(const struct plan *pl, enum need need, const char *at, struct verdict *v)
{
	static const char *const key[] = { [NEED_READ] = "read", [NEED_EXEC] = "exec",
		[NEED_WRITE] = "write", [NEED_SOCKET] = "write" };
	static const char *const verb[] = { [NEED_READ] = "read it", [NEED_EXEC] = "run it",
		[NEED_WRITE] = "make it", [NEED_SOCKET] = "make it" };
	size_t h = strlen(pl->home);

	if (h && (strcmp(at, pl->home) == 0 || path_within(pl->home, at))) {
		v->never = 1;
		return;
	}
	if (h && path_within(at, pl->home) && at[h] == '/')
		snprintf(v->grant, sizeof v->grant, "\"%s\": [\"~%s\"]", key[need], at + h);
	else
		snprintf(v->grant, sizeof v->grant, "\"%s\": [\"%s\"]", key[need], at);
	v->verb = verb[need];
}

/* 1 when real is in an attempt's private home, config or tmp
 * (TREES/aNONCE/{home,config,tmp}) or its own checkout
 * (STORE/git/ID/work): what that attempt's agent reads and writes. */
static int
attempt_own(const struct plan *pl, const char *real)
{
	size_t sl = strlen(pl->store), n;
	const char *p = real + sl, *e;

	/* STORE/aNONCE or (rundir.h) $XDG_RUNTIME_DIR/corral/aNONCE */
	if ((e = store_tree_rest(pl->store, real)) != NULL || (e = store_tree_rest(pl->trees, real)) != NULL) {
		if (*e != '/')
			return 0;
		n = strcspn(e + 1, "/");
		return (n == 4 && strncmp(e + 1, "home", 4) == 0) || (n == 6 && strncmp(e + 1, "config", 6) == 0) ||
		    (n == 3 && strncmp(e + 1, "tmp", 3) == 0);
	}
	if (!sl || strncmp(real, pl->store, sl) != 0 || *p != '/')
		return 0;
	if (strncmp(p, "/git/", 5) == 0 && (n = strcspn(p + 5, "/")) > 0 && strncmp(p + 5 + n, "/work", 5) == 0)
		return p[10 + n] == '\0' || p[10 + n] == '/';
	return 0;
}

/* tool: the grant e came from the toolchain table (toolchains.h: which
 * entry, and why) or from the command's install tree (installtree.c). */
static int
tool_rule(const struct plan *pl, const char *real, const char *e, char *r, size_t n)
{
	const struct toolchain *t;
	size_t el = strlen(e);

	for (size_t i = 0; i < pl->notes.n; i++) {
		const char *s = pl->notes.v[i];
		if (strncmp(s, "granted: ", 9) != 0 || strncmp(s + 9, e, el) != 0 || s[9 + el] != ' ')
			continue;
		if ((t = tc_which(pl->home, real, NULL)) != NULL && strstr(s, "(toolchain "))
			snprintf(r, n, "toolchain %s (%.200s): %s", t->name, t->why, e);
		else
			snprintf(r, n, "%.200s: %s", strstr(s, "(the install tree") ? "the command's install tree" : "a toolchain entry", e);
		return 1;
	}
	return 0;
}

/* 1 when a grant names p itself or a path inside it (confine grants a
 * secret only to a rule naming it). */
static int
named_by_policy(const struct plan *pl, const char *p)
{
	const struct argv *l[] = { &pl->rd, &pl->ex, &pl->wr };

	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < l[k]->n; i++)
			if (path_within(l[k]->v[i], p))
				return 1;
	return 0;
}

static void
judge(const struct plan *pl, const char *real, enum need need, const char *at, struct verdict *v)
{
	const struct policy *p = pl->pol;
	const char *e;

	/* never granted, whatever the policy says */
	if (pl->home[0] && (strcmp(real, pl->home) == 0 || path_within(pl->home, real))) {
		set(v, ACC_NONE, "your home, or a directory holding it");
		v->never = 1;
		return;
	}
	if (attempt_own(pl, real))
		return set(v, ACC_WRITE, "an attempt's private home, config, tmp or checkout: read-write to that "
		    "attempt's agent only, removed afterwards (the sockets it binds there are its own)");
	/* a socket made outside: the agent connects only to those it bound */
	if (need == NEED_SOCKET) {
		set(v, ACC_NONE, "a unix socket made outside the attempt: the agent connects only to the "
		    "sockets it bound itself (in its home, tmp, workspace or a \"write\" grant)");
		v->never = 1;
		return;
	}
	if (pl->store[0] && path_within(real, pl->store)) {
		set(v, ACC_NONE, "corral's state directory (sign-ins, attempts)");
		v->never = 1;
		return;
	}
	/* a secret of /etc is left out of every grant that merely holds it
	 * (confine splits those grants): only a line naming it reaches it */
	{
		const char *why = etc_secret_why(real);
		if (why && !named_by_policy(pl, real)) {
			char r[PATH_MAX + 160];
			snprintf(r, sizeof r, "a secret of /etc, left out of every grant that holds it (%s)", why);
			set(v, ACC_NONE, r);
			snprintf(v->grant, sizeof v->grant, "\"read\": [\"%s\"] (a line naming it; not advised)", real);
			return;
		}
	}
	/* the most a rule gives, first */
	if (pl->workspace[0] && path_within(real, pl->workspace))
		return set(v, ACC_WRITE, "the workspace");
	if ((e = held_by(&pl->wr, real)) != NULL) {
		char r[PATH_MAX + 64];
		snprintf(r, sizeof r, "\"write\" in the policy: %s", e);
		return set(v, ACC_WRITE, r);
	}
	if ((e = held_by(&pl->fullsetup, real)) != NULL)
		return set(v, ACC_WRITE, "the agent's own folder (--full-setup)");
	if ((e = held_by(&pl->ex, real)) != NULL) {
		char r[PATH_MAX + 64];
		if (tool_rule(pl, real, e, r, sizeof r))
			;	/* tool: a toolchain entry or the command's install tree */
		else if (path_dir(pl, e))
			snprintf(r, sizeof r, "a PATH directory: %s", e);
		else if (system_tree(e))
			snprintf(r, sizeof r, "a system tree: %s", e);
		else
			snprintf(r, sizeof r, "\"exec\" in the policy: %s", e);
		return set(v, ACC_EXEC, r);
	}
	if ((e = held_by(&pl->rd, real)) != NULL) {
		char r[PATH_MAX + 64];
		if (!tool_rule(pl, real, e, r, sizeof r))
			snprintf(r, sizeof r, "\"read\" in the policy: %s", e);
		return set(v, ACC_READ, r);
	}
	if (p->proc && path_within(real, "/proc"))
		return set(v, ACC_READ, "/proc (\"proc\": true; other processes' environments, memory and open files stay closed)");
	if (p->devices && path_within(real, "/dev")) {
		static const char *const dev[] = { "/dev/null", "/dev/zero", "/dev/full",
			"/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", NULL };
		for (size_t i = 0; dev[i]; i++)
			if (strcmp(real, dev[i]) == 0)
				return set(v, ACC_WRITE, "a usable device (\"devices\": true)");
		if (path_within(real, "/dev/shm") && need == NEED_WRITE && strrchr(real, '/') == real + 8)
			return set(v, ACC_WRITE, "/dev/shm: the shared memory and semaphores the agent creates are "
			    "its own (the broker makes them; confine --own-shm)");
		if (path_within(real, "/dev/shm")) {
			set(v, ACC_NONE, "/dev/shm: the shared memory of your other programs (the agent reaches only "
			    "the objects it creates)");
			suggest(pl, NEED_WRITE, "/dev/shm", v);
			snprintf(v->grant + strlen(v->grant), sizeof v->grant - strlen(v->grant),
			    " (every program's shared memory; not advised)");
			v->verb = "use it";
			return;
		}
		set(v, ACC_NONE, "/dev: only the usable devices and the agent's own terminal are granted");
		if (need != NEED_WRITE)	/* a device that is not there: no line */
			suggest(pl, need, at, v);
		return;
	}
	if (pl->home[0] && path_within(real, pl->home) && tc_is_secret(pl->home, real)) {
		set(v, ACC_NONE, "a credential in your home: nothing grants it by default");
		suggest(pl, need, at, v);
		return;
	}
	if (pl->home[0] && path_within(real, pl->home)) {
		set(v, ACC_NONE, "your home: never granted by default (the agent gets a private one)");
		suggest(pl, need, at, v);
		return;
	}
	set(v, ACC_NONE, "no rule grants it");
	suggest(pl, need, at, v);
}

void
verdict_path(const struct plan *pl, const char *real, enum need need, const char *at, struct verdict *v)
{
	memset(v, 0, sizeof *v);
	judge(pl, real, need, at, v);
	/* granted, but less than the path needs: the line that gives it */
	if ((need == NEED_EXEC && v->acc != ACC_NONE && v->acc != ACC_EXEC) ||
	    (need == NEED_WRITE && v->acc != ACC_NONE && v->acc != ACC_WRITE)) {
		v->short_of_need = 1;
		suggest(pl, need, at, v);
	}
}

/* The address rules (confine --filter-ip): a literal's class decides
 * before any port does. 1 when they settled v. */
static int
address_rules(const struct plan *pl, const char *host, unsigned port, struct verdict *v)
{
	const struct policy *p = pl->pol;
	uint8_t a[16];
	int af = strchr(host, ':') ? AF_INET6 : AF_INET;
	enum ip_class c;
	size_t i;

	if (p->net == NET_UNFILTERED || p->net == NET_NONE || inet_pton(af, host, a) != 1)
		return 0;
	c = ip_class_of(af, a);
	if (c == IPC_METADATA || c == IPC_LINKLOCAL) {
		set(v, ACC_NONE, c == IPC_METADATA ? "cloud metadata: never reachable (confine --filter-ip)" :
		    "link-local: never reachable (confine --filter-ip)");
		v->never = 1;
		snprintf(v->grant, sizeof v->grant, "\"network\": \"open-unfiltered\" (not advised)");
		return 1;
	}
	if (c == IPC_LOOPBACK) {
		for (i = 0; i < p->allow_loopback.n; i++)
			if (p->allow_loopback.v[i] == port)
				return set(v, ACC_WRITE, "\"network\": {\"allow_loopback\": [...]} lists the port"), 1;
		set(v, ACC_NONE, "loopback: only the agent's own servers and \"allow_loopback\" ports");
		snprintf(v->grant, sizeof v->grant, "\"network\": {\"allow_loopback\": [%u]}", port);
		return 1;
	}
	if (c == IPC_PRIVATE && p->deny_private) {
		set(v, ACC_NONE, "\"network\": {\"deny_private\": true}");
		snprintf(v->grant, sizeof v->grant, "\"network\": {\"deny_private\": false}");
		return 1;
	}
	return 0;
}

static void
allowlist(const struct plan *pl, const char *host, struct verdict *v)
{
	const struct policy *p = pl->pol;
	char h[HOST_MAX], pat[HOST_MAX];

	if (host_normalize(host, strlen(host), 0, h) != HOST_BAD)
		for (size_t i = 0; i < p->allow.n; i++)
			if (host_normalize(p->allow.v[i], strlen(p->allow.v[i]), 1, pat) != HOST_BAD &&
			    host_match(pat, h))
				return set(v, ACC_WRITE, "\"network\": {\"allow\": [...]} lists it (through egress-proxy)");
	set(v, ACC_NONE, "\"network\": {\"allow\": [...]} does not list it");
	snprintf(v->grant, sizeof v->grant, "\"network\": {\"allow\": [\"%s\"]}", h);
}

void
verdict_connect(const struct plan *pl, const char *host, unsigned port, struct verdict *v)
{
	const struct policy *p = pl->pol;

	memset(v, 0, sizeof *v);
	v->net = 1;
	if (address_rules(pl, host, port, v))
		return;
	switch (p->net) {
	case NET_UNFILTERED:
		set(v, ACC_WRITE, "\"network\": \"open-unfiltered\"");
		return;
	case NET_ALLOW:
		allowlist(pl, host, v);
		return;
	case NET_OPEN:
		set(v, ACC_WRITE, "\"network\": \"open\"");
		return;
	case NET_NONE:
		set(v, ACC_NONE, "\"network\": \"none\": no socket but unix ones");
		break;
	case NET_PORTS:
		for (size_t i = 0; i < p->connect.n; i++)
			if (p->connect.v[i] == port)
				return set(v, ACC_WRITE, "\"network\": {\"connect\": [...]} lists the port");
		set(v, ACC_NONE, "\"network\": {\"connect\": [...]} does not list the port");
		break;
	}
	snprintf(v->grant, sizeof v->grant, "\"network\": {\"connect\": [%u]}", port);
}
