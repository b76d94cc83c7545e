#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostname.h"
#include "json.h"
#include "policy.h"
#include "profile.h"

const char policy_default_json[] =
"{\n"
"  \"version\": 1,\n"
"  \"workspace\": \".\",\n"
"  \"git\": \"worktree\",\n"
"  \"git_deps\": [\"node_modules\", \".venv\", \"venv\", \"target\", \"vendor/bundle\"],\n"
"  \"read\": [],\n"
"  \"exec\": [\"/usr\", \"/bin\", \"/lib*\", \"/sbin\", \"/etc\"],\n"
"  \"path_exec\": true,\n"
"  \"write\": [],\n"
"  \"devices\": true,\n"
"  \"proc\": true,\n"
"  \"network\": \"open\",\n"
"  \"scope\": true,\n"
"  \"userns\": false,\n"
"  \"env\": {\"keep\": [], \"set\": {}, \"files\": []},\n"
"  \"agent\": null,\n"
"  \"full_setup\": false,\n"
"  \"minimum_tier\": \"" POLICY_DEFAULT_TIER "\",\n"
"  \"mcp\": {}\n"
"}\n";

static const char *const tiers[] = { "fs", "fs+net", "full" };

int
policy_tier_rank(const char *tier)
{
	for (size_t i = 0; i < sizeof tiers / sizeof tiers[0]; i++)
		if (strcmp(tier, tiers[i]) == 0)
			return (int)i;
	return -1;
}

struct pctx {
	const char *js;
	const jsmntok_t *t;
	int n;
	struct json_err *err;
};

/* the error at token tok of c (lib/json) */
#define fail(c, tok, ...) json_fail((c)->err, (c)->js, (c)->t, (tok), __VA_ARGS__)

static int
get_bool(struct pctx *c, int k, const char *key, int *out)
{
	const jsmntok_t *t = &c->t[k];

	if (t->type == JSMN_PRIMITIVE && c->js[t->start] == 't')
		return *out = 1, 0;
	if (t->type == JSMN_PRIMITIVE && c->js[t->start] == 'f')
		return *out = 0, 0;
	return fail(c, k, "\"%s\" must be a boolean, not %s", key, json_type_name(t, c->js));
}

/* A string without control characters or NUL, at most max bytes. */
static int
get_str(struct pctx *c, int k, const char *key, size_t max, char **out)
{
	char buf[PATH_MAX + 1];
	int l;

	if (c->t[k].type != JSMN_STRING)
		return fail(c, k, "\"%s\" must be a string, not %s", key, json_type_name(&c->t[k], c->js));
	if (max > PATH_MAX)
		max = PATH_MAX;
	l = json_str(c->js, &c->t[k], buf, max + 1);
	if (l < 0)
		return fail(c, k, "\"%s\" is longer than %zu bytes", key, max);
	for (int i = 0; i < l; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return fail(c, k, "\"%s\" holds a control character", key);
	if ((*out = strdup(buf)) == NULL)
		return fail(c, -1, "out of memory");
	return 0;
}

static void
list_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
list_push(struct pctx *c, struct strlist *l, char *s)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof *v);

	if (v == NULL) {
		free(s);
		return fail(c, -1, "out of memory");
	}
	l->v = v;
	l->v[l->n++] = s;
	return 0;
}

static int
name_ok(const char *s)
{
	if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

enum item { IT_PATH, IT_NAME, IT_ARG, IT_TOOL, IT_URI, IT_REL };

static int
item_check(struct pctx *c, int k, const char *key, enum item kind, const char *s)
{
	switch (kind) {
	case IT_PATH:
		if (!(s[0] == '/' || (s[0] == '~' && (s[1] == '\0' || s[1] == '/'))))
			return fail(c, k, "\"%s\": path \"%s\" is not absolute (start it with / or ~/)", key, s);
		if (strchr(s, '*') && strchr(strrchr(s, '/') ? strrchr(s, '/') : s, '*') != strchr(s, '*'))
			return fail(c, k, "\"%s\": path \"%s\": a '*' may only appear in the last component", key, s);
		break;
	case IT_NAME:
		if (!name_ok(s))
			return fail(c, k, "\"%s\": \"%s\" is not a valid environment variable name", key, s);
		break;
	case IT_TOOL:
		if (*s == '\0')
			return fail(c, k, "\"%s\": empty tool name", key);
		break;
	case IT_ARG:
		break;
	case IT_REL:	/* beneath the repository's top: no /, "..", "." or .git */
		for (const char *q = s; ; ) {
			size_t n = strcspn(q, "/");
			if (n == 0 || (n == 1 && *q == '.') || (n == 2 && strncmp(q, "..", 2) == 0) ||
			    (n == 4 && strncasecmp(q, ".git", 4) == 0))
				return fail(c, k, "\"%s\": \"%s\" must be a relative path beneath the repository (no /, ., .. or .git component)", key, s);
			if (q[n] == '\0')
				break;
			q += n + 1;
		}
		break;
	case IT_URI:
		for (const char *q = s; *q; q++)
			if ((unsigned char)*q <= 0x20 || (unsigned char)*q >= 0x7f)
				return fail(c, k, "\"%s\": \"%s\": a URI prefix is visible ASCII only", key, s);
		if (*s == '\0')
			return fail(c, k, "\"%s\": empty URI prefix", key);
		break;
	}
	return 0;
}

/* An array of strings, replacing *l; minus: "-ENTRY" is read as a removal
 * (merge_list) and checked without its '-'. */
static int
get_list(struct pctx *c, int k, const char *key, enum item kind, struct strlist *l, int minus)
{
	char *s;
	int i;

	if (c->t[k].type != JSMN_ARRAY)
		return fail(c, k, "\"%s\" must be an array of strings, not %s", key, json_type_name(&c->t[k], c->js));
	if (c->t[k].size > POLICY_MAX_ITEMS)
		return fail(c, k, "\"%s\" has more than %d entries", key, POLICY_MAX_ITEMS);
	list_free(l);
	for (i = k + 1; i < json_next(c->t, k); i = json_next(c->t, i)) {
		if (c->t[i].type != JSMN_STRING)
			return fail(c, i, "\"%s\" entries must be strings, not %s", key, json_type_name(&c->t[i], c->js));
		if (get_str(c, i, key, PATH_MAX - 1, &s) < 0)
			return -1;
		if ((*s == '\0' || (minus && strcmp(s, "-") == 0)) && kind != IT_ARG) {
			free(s);
			return fail(c, i, "\"%s\": empty entry", key);
		}
		if (!(minus && strcmp(s, "-*") == 0) && item_check(c, i, key, kind, s + (minus && *s == '-')) < 0) {
			free(s);
			return -1;
		}
		if (list_push(c, l, s) < 0)
			return -1;
	}
	return 0;
}

/* A list of the policy (read, exec, write, env.keep, env.files, git_deps)
 * over the default's: each entry adds itself (once), "-ENTRY" takes the
 * list's ENTRY away, as written in the default (corral policy default),
 * "-*" every entry before it; taking away what is not there is an error. An empty array over a non-empty
 * list is one too: it once took the default's grants away, and now would
 * silently keep them. */
static int
merge_list(struct pctx *c, int k, const char *key, enum item kind, struct strlist *l)
{
	struct strlist add = { 0 };
	size_t j;
	int i, r = -1;

	if (c->t[k].type == JSMN_ARRAY && c->t[k].size == 0 && l->n > 0)
		return fail(c, k, "\"%s\": [] adds nothing to the default's %zu entries (a list adds to the default): "
		    "take one away with a '-' before it, as \"-%s\", or all with \"-*\"", key, l->n, l->v[0]);
	if (get_list(c, k, key, kind, &add, 1) < 0)
		goto out;
	for (i = k + 1, j = 0; j < add.n; j++, i = json_next(c->t, i)) {
		const char *s = add.v[j];
		size_t at;
		if (strcmp(s, "-*") == 0) {
			list_free(l);
			continue;
		}
		for (at = 0; at < l->n; at++)
			if (strcmp(l->v[at], s + (*s == '-')) == 0)
				break;
		if (*s == '-' && at == l->n) {
			fail(c, i, "\"%s\": \"%s\" takes away nothing: the default's \"%s\" has no \"%s\"%s",
			    key, s, key, s + 1, l->n ? "" : " (it is empty)");
			goto out;
		}
		if (*s == '-') {
			free(l->v[at]);
			memmove(l->v + at, l->v + at + 1, (l->n - at - 1) * sizeof *l->v);
			l->n--;
		} else if (at == l->n) {
			if (list_push(c, l, add.v[j]) < 0) {
				add.v[j] = NULL;
				goto out;
			}
			add.v[j] = NULL;
		}
	}
	r = 0;
out:
	list_free(&add);
	return r;
}

static int
get_ports(struct pctx *c, int k, const char *key, struct portlist *pl)
{
	int64_t v;
	int i;

	if (c->t[k].type != JSMN_ARRAY)
		return fail(c, k, "\"%s\" must be an array of port numbers, not %s", key, json_type_name(&c->t[k], c->js));
	if (c->t[k].size > POLICY_MAX_PORTS)
		return fail(c, k, "\"%s\" has more than %d ports", key, POLICY_MAX_PORTS);
	pl->n = 0;
	for (i = k + 1; i < json_next(c->t, k); i = json_next(c->t, i)) {
		if (c->t[i].type != JSMN_PRIMITIVE || json_int(c->js, &c->t[i], &v) < 0)
			return fail(c, i, "\"%s\" entries must be integers, not %s", key, json_type_name(&c->t[i], c->js));
		if (v < 1 || v > 65535)
			return fail(c, i, "\"%s\": port %lld is out of range 1-65535", key, (long long)v);
		pl->v[pl->n++] = (uint16_t)v;
	}
	return 0;
}

/* 1 when the key token at i, which decodes to key (the caller has it),
 * repeats an earlier key of object t[obj]: the error points at the second
 * occurrence. */
static int
dup_before(struct pctx *c, int obj, int i, const char *key)
{
	int k;

	if (strlen(key) >= 256)
		return 0;	/* as ever: a key this long is never compared */
	for (k = obj + 1; k < i; k = json_next(c->t, k + 1))
		if (json_eq(c->js, &c->t[k], key))
			return 1;
	return 0;
}

/* Walk object t[k]: each key must be one of keys[], else an error. Calls
 * fn(c, keyindex, valuetoken, arg) for each. Duplicate keys are errors. */
typedef int (*member_fn)(struct pctx *c, int which, int v, void *arg);

static int
walk(struct pctx *c, int k, const char *what, const char *const keys[], member_fn fn, void *arg)
{
	int i, m, w;
	char kb[64];
	uint64_t seen = 0;	/* the keys[] met so far (each names one entry) */

	if (c->t[k].type != JSMN_OBJECT)
		return fail(c, k, "%s must be an object, not %s", what, json_type_name(&c->t[k], c->js));
	i = k + 1;
	for (m = 0; m < c->t[k].size; m++) {
		const jsmntok_t *t = &c->t[i];
		size_t rl = (size_t)(t->end - t->start);
		/* a key without an escape is its bytes: compared as json_eq
		 * compares it, without its look for one per entry of keys[] */
		int plain = t->type == JSMN_STRING && memchr(c->js + t->start, '\\', rl) == NULL;

		for (w = 0; keys[w]; w++)
			if (plain ? strlen(keys[w]) == rl && memcmp(c->js + t->start, keys[w], rl) == 0 :
			    json_eq(c->js, t, keys[w]))
				break;
		if (keys[w] == NULL) {
			if (json_str(c->js, &c->t[i], kb, sizeof kb) < 0)
				snprintf(kb, sizeof kb, "(a long key)");
			return fail(c, i, "unknown key \"%s\" in %s", kb, what);
		}
		/* an earlier key equal to keys[w] matched keys[w] (no two entries
		 * of a table are equal): what dup_before finds by comparing
		 * every earlier key again */
		if (w < 64 ? (seen >> w & 1) != 0 : dup_before(c, k, i, keys[w]))
			return fail(c, i, "duplicate key \"%s\" in %s", keys[w], what);
		if (w < 64)
			seen |= (uint64_t)1 << w;
		if (fn(c, w, i + 1, arg) < 0)
			return -1;
		i = json_next(c->t, i + 1);
	}
	return 0;
}

/* "network": "open" | "none" | "open-unfiltered", or an object with at
 * most one of "connect" (+ "bind"), "allow" and "mode", and the address
 * keys "deny_private" and "allow_loopback" (not under "none"). */
static const char *const net_keys[] = { "connect", "bind", "allow", "mode", "deny_private",
	"allow_loopback", NULL };

struct netparse {
	struct policy *p;
	int connect, bind, allow, mode;		/* token of each key, 0 if absent */
};

static int
net_mode_name(struct pctx *c, int k, enum net_mode *m)
{
	if (json_eq(c->js, &c->t[k], "open"))
		return *m = NET_OPEN, 0;
	if (json_eq(c->js, &c->t[k], "none"))
		return *m = NET_NONE, 0;
	if (json_eq(c->js, &c->t[k], "open-unfiltered"))
		return *m = NET_UNFILTERED, 0;
	return fail(c, k, "\"network\" must be \"open\", \"none\", \"open-unfiltered\", "
	    "{\"connect\": [...]} or {\"allow\": [...]}");
}

static int
net_member(struct pctx *c, int w, int v, void *arg)
{
	struct netparse *np = arg;
	struct policy *p = np->p;
	char out[HOST_MAX];
	size_t i;

	switch (w) {
	case 0: np->connect = v; return get_ports(c, v, net_keys[w], &p->connect);
	case 1: np->bind = v; return get_ports(c, v, net_keys[w], &p->bind);
	case 2:
		np->allow = v;
		if (get_list(c, v, "network.allow", IT_ARG, &p->allow, 0) < 0)
			return -1;
		for (i = 0; i < p->allow.n; i++) {
			if (host_normalize(p->allow.v[i], strlen(p->allow.v[i]), 1, out) == HOST_BAD)
				return fail(c, v, "\"network.allow\": \"%s\" is not a host name, \"*.NAME\" or an IP address",
				    p->allow.v[i]);
		}
		return 0;
	case 3:
		np->mode = v;
		if (c->t[v].type != JSMN_STRING)
			return fail(c, v, "\"network.mode\" must be a string, not %s", json_type_name(&c->t[v], c->js));
		return net_mode_name(c, v, &p->net);
	case 4: return get_bool(c, v, "network.deny_private", &p->deny_private);
	case 5: return get_ports(c, v, "network.allow_loopback", &p->allow_loopback);
	}
	return 0;
}

static int
get_network(struct pctx *c, int k, struct policy *p)
{
	struct netparse np = { .p = p };

	p->connect.n = p->bind.n = p->allow_loopback.n = 0;
	p->deny_private = 0;
	list_free(&p->allow);
	if (c->t[k].type == JSMN_STRING)
		return net_mode_name(c, k, &p->net);
	if (c->t[k].type != JSMN_OBJECT)
		return fail(c, k, "\"network\" must be \"open\", \"none\" or an object, not %s", json_type_name(&c->t[k], c->js));
	p->net = NET_OPEN;
	if (walk(c, k, "\"network\"", net_keys, net_member, &np) < 0)
		return -1;
	if (!!np.connect + !!np.allow + !!np.mode > 1)
		return fail(c, k, "\"network\" takes one of \"connect\", \"allow\" and \"mode\"");
	if (np.bind && !np.connect)
		return fail(c, np.bind, "\"network.bind\" needs \"connect\" (a list of ports, maybe empty)");
	if (np.connect)
		p->net = NET_PORTS;
	if (np.allow) {
		if (p->allow.n == 0)
			return fail(c, np.allow, "\"network.allow\" is empty: use \"network\": \"none\"");
		p->net = NET_ALLOW;
	}
	if (p->net == NET_NONE && (p->deny_private || p->allow_loopback.n))
		return fail(c, np.mode, "\"network\" \"none\" takes no \"deny_private\" or \"allow_loopback\"");
	return 0;
}

static const char *const env_keys[] = { "keep", "set", "files", "project", NULL };

static int
env_member(struct pctx *c, int w, int v, void *arg)
{
	struct policy *p = arg;
	char *name, *val, *s;
	int i, m;

	switch (w) {
	case 0: return merge_list(c, v, "env.keep", IT_NAME, &p->env_keep);
	case 2: return merge_list(c, v, "env.files", IT_PATH, &p->env_files);
	case 3:	/* corral env: the project whose values this policy's runs get */
		if (get_str(c, v, "env.project", 64, &s) < 0)
			return -1;
		if (!prof_name_ok(s)) {
			fail(c, v, "\"env.project\" \"%.64s\" must be %s", s, PROF_NAME_RULE);
			free(s);
			return -1;
		}
		free(p->env_project);
		p->env_project = s;
		return 0;
	}
	if (c->t[v].type != JSMN_OBJECT)
		return fail(c, v, "\"env.set\" must be an object of strings, not %s", json_type_name(&c->t[v], c->js));
	if (c->t[v].size > POLICY_MAX_ITEMS)
		return fail(c, v, "\"env.set\" has more than %d entries", POLICY_MAX_ITEMS);
	list_free(&p->env_set);
	i = v + 1;
	for (m = 0; m < c->t[v].size; m++) {
		if (get_str(c, i, "env.set", 255, &name) < 0)
			return -1;
		if (!name_ok(name)) {
			fail(c, i, "\"env.set\": \"%s\" is not a valid environment variable name", name);
			free(name);
			return -1;
		}
		if (dup_before(c, v, i, name)) {
			fail(c, i, "duplicate key \"%s\" in \"env.set\"", name);
			free(name);
			return -1;
		}
		if (get_str(c, i + 1, "env.set", 4096, &val) < 0) {
			free(name);
			return -1;
		}
		s = malloc(strlen(name) + strlen(val) + 2);
		if (s)
			sprintf(s, "%s=%s", name, val);
		free(name);
		free(val);
		if (s == NULL)
			return fail(c, -1, "out of memory");
		if (list_push(c, &p->env_set, s) < 0)
			return -1;
		i = json_next(c->t, i + 1);
	}
	return 0;
}

static const char *const mcp_keys[] = { "command", "url", "tools", "credential_file", "env_keep",
	"resources", "prompts", NULL };

static int
mcp_member(struct pctx *c, int w, int v, void *arg)
{
	struct mcp_server *s = arg;

	switch (w) {
	case 0: return get_list(c, v, "command", IT_ARG, &s->command, 0);
	case 1: return get_str(c, v, "url", 4096, &s->url);
	case 2: return get_list(c, v, "tools", IT_TOOL, &s->tools, 0);
	case 3:
		if (get_str(c, v, "credential_file", PATH_MAX - 1, &s->credential_file) < 0)
			return -1;
		return item_check(c, v, "credential_file", IT_PATH, s->credential_file);
	case 4: return get_list(c, v, "env_keep", IT_NAME, &s->env_keep, 0);
	case 5: return get_list(c, v, "resources", IT_URI, &s->resources, 0);
	case 6: return get_list(c, v, "prompts", IT_TOOL, &s->prompts, 0);
	}
	return 0;
}

static void
mcp_free(struct mcp_server *s)
{
	free(s->name);
	list_free(&s->command);
	free(s->url);
	list_free(&s->tools);
	free(s->credential_file);
	list_free(&s->env_keep);
	list_free(&s->resources);
	list_free(&s->prompts);
	memset(s, 0, sizeof *s);
}

static int
get_mcp(struct pctx *c, int k, struct policy *p)
{
	struct mcp_server *s;
	int i, m;

	if (c->t[k].type != JSMN_OBJECT)
		return fail(c, k, "\"mcp\" must be an object of servers, not %s", json_type_name(&c->t[k], c->js));
	if (c->t[k].size > POLICY_MAX_MCP)
		return fail(c, k, "\"mcp\" has more than %d servers", POLICY_MAX_MCP);
	for (size_t j = 0; j < p->nmcp; j++)
		mcp_free(&p->mcp[j]);
	p->nmcp = 0;
	i = k + 1;
	for (m = 0; m < c->t[k].size; m++) {
		s = &p->mcp[p->nmcp++];
		if (get_str(c, i, "mcp", 64, &s->name) < 0)
			return -1;
		if (strspn(s->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(s->name))
			return fail(c, i, "\"mcp\": server name \"%s\" must be letters, digits, '-' or '_'", s->name);
		if (*s->name == '\0')
			return fail(c, i, "\"mcp\": empty server name");
		if (dup_before(c, k, i, s->name))
			return fail(c, i, "duplicate key \"%s\" in \"mcp\"", s->name);
		if (walk(c, i + 1, "an \"mcp\" server", mcp_keys, mcp_member, s) < 0)
			return -1;
		if ((s->command.n > 0) == (s->url != NULL))
			return fail(c, i + 1, "\"mcp\" server \"%s\" needs exactly one of \"command\" and \"url\"", s->name);
		if (s->url && strncmp(s->url, "https://", 8) != 0 && strncmp(s->url, "http://", 7) != 0)
			return fail(c, i + 1, "\"mcp\" server \"%s\": url must be http:// or https://", s->name);
		if (s->tools.n == 0)
			return fail(c, i + 1, "\"mcp\" server \"%s\" needs \"tools\": the allowlist of tool names", s->name);
		i = json_next(c->t, i + 1);
	}
	return 0;
}

/* The policy's top-level keys: the table walk() matches and top_member's
 * switch, by name (a key added in one place and not the other fails to build
 * or is caught by -Wswitch). */
enum top_key {
	TK_VERSION, TK_WORKSPACE, TK_GIT_PROTECT, TK_READ, TK_EXEC, TK_WRITE, TK_PATH_EXEC,
	TK_DEVICES, TK_PROC, TK_NETWORK, TK_SCOPE, TK_ENV, TK_AGENT, TK_FULL_SETUP,
	TK_MINIMUM_TIER, TK_MCP, TK_USERNS, TK_GIT, TK_LIMITS, TK_GIT_DEPS, TK_BROWSER, TK_COUNT
};

static const char *const top_keys[TK_COUNT + 1] = {
	[TK_VERSION] = "version",
	[TK_WORKSPACE] = "workspace",
	[TK_GIT_PROTECT] = "git_protect",
	[TK_READ] = "read",
	[TK_EXEC] = "exec",
	[TK_WRITE] = "write",
	[TK_PATH_EXEC] = "path_exec",
	[TK_DEVICES] = "devices",
	[TK_PROC] = "proc",
	[TK_NETWORK] = "network",
	[TK_SCOPE] = "scope",
	[TK_ENV] = "env",
	[TK_AGENT] = "agent",
	[TK_FULL_SETUP] = "full_setup",
	[TK_MINIMUM_TIER] = "minimum_tier",
	[TK_MCP] = "mcp",
	[TK_USERNS] = "userns",
	[TK_GIT] = "git",
	[TK_LIMITS] = "limits",
	[TK_GIT_DEPS] = "git_deps",
	[TK_BROWSER] = "browser",
};

static const char *const browser_keys[] = { "tools", "package", NULL };

static int
browser_member(struct pctx *c, int w, int v, void *arg)
{
	struct browser_opts *b = arg;

	if (w == 0) {
		list_free(&b->tools);
		if (get_list(c, v, "browser.tools", IT_TOOL, &b->tools, 0) < 0)
			return -1;
		if (b->tools.n == 0)
			return fail(c, v, "\"browser.tools\" is empty: name the tools the agent may call");
		return 0;
	}
	free(b->package);
	b->package = NULL;
	if (get_str(c, v, "browser.package", PATH_MAX - 1, &b->package) < 0)
		return -1;
	if (b->package[0] != '/')
		return fail(c, v, "\"browser.package\" must be an absolute path");
	return item_check(c, v, "browser.package", IT_PATH, b->package);
}

/* "browser": true, false, or {"tools": [...], "package": "/dir"} */
static int
get_browser(struct pctx *c, int v, struct policy *p)
{
	static const char *const deftools[] = { BROWSER_TOOLS };

	if (c->t[v].type == JSMN_OBJECT) {
		p->browser.on = 1;
		if (walk(c, v, "\"browser\"", browser_keys, browser_member, &p->browser) < 0)
			return -1;
	} else if (c->t[v].type != JSMN_PRIMITIVE || (c->js[c->t[v].start] != 't' && c->js[c->t[v].start] != 'f')) {
		return fail(c, v, "\"browser\" must be true, false or an object, not %s", json_type_name(&c->t[v], c->js));
	} else if (get_bool(c, v, "browser", &p->browser.on) < 0) {
		return -1;
	}
	for (size_t i = 0; p->browser.on && p->browser.tools.n == i && i < sizeof deftools / sizeof *deftools; i++) {
		char *t = strdup(deftools[i]);
		if (t == NULL)
			return fail(c, -1, "out of memory");
		if (list_push(c, &p->browser.tools, t) < 0)
			return -1;
	}
	return 0;
}

/* "limits": {"memory": "512M", "processes": 64, ...}; sizes are bytes or
 * a string with K, M, G, T; the others positive integers. Each key present
 * replaces that limit; null removes it. */
static int
limits_member(struct pctx *c, int w, int v, void *arg)
{
	struct limits *l = arg;
	const char *tv = c->js + c->t[v].start;
	int tl = c->t[v].end - c->t[v].start;
	char buf[32];
	int64_t n;
	uint64_t u;

	if (c->t[v].type == JSMN_PRIMITIVE && tv[0] == 'n')
		return l->v[w] = 0, 0;
	if ((w == LIM_MEMORY || w == LIM_FSIZE) && c->t[v].type == JSMN_STRING) {
		int bad = json_str(c->js, &c->t[v], buf, sizeof buf) < 0 ? EINVAL :
		    limits_size_parse(buf, &u) < 0 ? errno : 0;
		if (bad)
			return fail(c, v, bad == ERANGE ? "\"limits.%s\" is too large (at most 16 EiB)" :
			    "\"limits.%s\" must be a positive size such as 512M (K, M, G, T)", limits_keys[w]);
		if (u == 0)
			return fail(c, v, "\"limits.%s\" must be at least 1, not 0", limits_keys[w]);
		return l->v[w] = u, 0;
	}
	if (c->t[v].type == JSMN_PRIMITIVE && (tv[0] == '-' || (tv[0] >= '0' && tv[0] <= '9')) &&
	    json_int(c->js, &c->t[v], &n) < 0)	/* a number, but not a whole one that fits */
		return fail(c, v, "\"limits.%s\" must be a positive integer, not %.*s", limits_keys[w],
		    tl > 24 ? 24 : tl, tv);
	if (c->t[v].type != JSMN_PRIMITIVE || json_int(c->js, &c->t[v], &n) < 0)
		return fail(c, v, "\"limits.%s\" must be a positive integer%s, not %s", limits_keys[w],
		    w == LIM_MEMORY || w == LIM_FSIZE ? " or a size string" : "", json_type_name(&c->t[v], c->js));
	if (n < 1)
		return fail(c, v, "\"limits.%s\" must be at least 1, not %lld", limits_keys[w], (long long)n);
	/* pids.max takes no more (PID_MAX_LIMIT); a larger one limits nothing */
	if (w == LIM_PROCS && n > LIMITS_MAX_PROCS)
		return fail(c, v, "\"limits.processes\" must be at most %d (the kernel's largest number of processes), not %lld",
		    LIMITS_MAX_PROCS, (long long)n);
	l->v[w] = (uint64_t)n;
	return 0;
}

/* A policy file names the paths of array k of "read", "exec" or "write"
 * ("-PATH" too): none of them stays if_present. */
static int
named(struct pctx *c, int k, const char *key, struct policy *p)
{
	char *s;
	int i, j;

	if (c->t[k].type != JSMN_ARRAY)
		return 0;	/* the list's own parser says what is wrong */
	for (i = k + 1, j = 0; j < c->t[k].size; j++, i = json_next(c->t, i)) {
		if (c->t[i].type != JSMN_STRING)
			continue;
		if (get_str(c, i, key, PATH_MAX - 1, &s) < 0)
			return -1;
		for (size_t at = 0; at < p->if_present.n; at++)
			if (strcmp(p->if_present.v[at], s + (*s == '-')) == 0) {
				free(p->if_present.v[at]);
				p->if_present.v[at] = p->if_present.v[--p->if_present.n];
				break;
			}
		free(s);
	}
	return 0;
}

static int
top_member(struct pctx *c, int w, int v, void *arg)
{
	struct policy *p = arg;
	enum top_key tk = (enum top_key)w;
	const char *key = top_keys[w];
	int64_t ver;
	char *s;

	if ((tk == TK_READ || tk == TK_EXEC || tk == TK_WRITE) && named(c, v, key, p) < 0)
		return -1;
	switch (tk) {
	case TK_VERSION:
		if (c->t[v].type != JSMN_PRIMITIVE || json_int(c->js, &c->t[v], &ver) < 0)
			return fail(c, v, "\"version\" must be an integer, not %s", json_type_name(&c->t[v], c->js));
		if (ver != 1)
			return fail(c, v, "policy version %lld is not supported (this corral reads version 1)", (long long)ver);
		return 0;
	case TK_WORKSPACE:
		if (get_str(c, v, key, PATH_MAX - 1, &s) < 0)
			return -1;
		if (*s == '\0') {
			free(s);
			return fail(c, v, "\"workspace\" is empty");
		}
		free(p->workspace);
		p->workspace = s;
		return 0;
	case TK_GIT_PROTECT: {
		int on = 1;
		if (get_bool(c, v, key, &on) < 0)
			return -1;
		if (!on)
			p->git = GIT_OFF;	/* the old key: false handed over the real .git */
		return 0;
	}
	case TK_READ: return merge_list(c, v, key, IT_PATH, &p->read);
	case TK_EXEC: return merge_list(c, v, key, IT_PATH, &p->exec);
	case TK_WRITE: return merge_list(c, v, key, IT_PATH, &p->write);
	case TK_PATH_EXEC: return get_bool(c, v, key, &p->path_exec);
	case TK_DEVICES: return get_bool(c, v, key, &p->devices);
	case TK_PROC: return get_bool(c, v, key, &p->proc);
	case TK_NETWORK: return get_network(c, v, p);
	case TK_SCOPE: return get_bool(c, v, key, &p->scope);
	case TK_ENV: return walk(c, v, "\"env\"", env_keys, env_member, p);
	case TK_AGENT:
		if (c->t[v].type == JSMN_PRIMITIVE && c->js[c->t[v].start] == 'n') {
			free(p->agent);
			p->agent = NULL;
			return 0;
		}
		if (get_str(c, v, key, 64, &s) < 0)
			return -1;
		if (!prof_name_ok(s)) {
			fail(c, v, "\"agent\" \"%.64s\" must be %s", s, PROF_NAME_RULE);
			free(s);
			return -1;
		}
		free(p->agent);
		p->agent = s;
		return 0;
	case TK_FULL_SETUP: return get_bool(c, v, key, &p->full_setup);
	case TK_MINIMUM_TIER:
		if (get_str(c, v, key, 16, &s) < 0)
			return -1;
		if (policy_tier_rank(s) < 0) {
			fail(c, v, "\"minimum_tier\" \"%s\" is not one of fs, fs+net, full", s);
			free(s);
			return -1;
		}
		free(p->min_tier);
		p->min_tier = s;
		return 0;
	case TK_MCP: return get_mcp(c, v, p);
	case TK_USERNS: return get_bool(c, v, key, &p->userns);
	case TK_GIT:
		if (get_str(c, v, key, 16, &s) < 0)
			return -1;
		if (strcmp(s, "worktree") == 0)
			p->git = GIT_WORKTREE;
		else if (strcmp(s, "in-place") == 0)
			p->git = GIT_INPLACE;
		else if (strcmp(s, "off") == 0)
			p->git = GIT_OFF;
		else {
			free(s);
			return fail(c, v, "\"git\" must be \"worktree\", \"in-place\" or \"off\"");
		}
		free(s);
		return 0;
	case TK_LIMITS: return walk(c, v, "\"limits\"", limits_keys, limits_member, &p->limits);
	case TK_GIT_DEPS: return merge_list(c, v, key, IT_REL, &p->git_deps);
	case TK_BROWSER: return get_browser(c, v, p);
	case TK_COUNT: break;
	}
	return 0;
}

void
policy_init(struct policy *p)
{
	memset(p, 0, sizeof *p);
	p->net = NET_OPEN;
}

int
policy_parse(const char *buf, size_t len, struct policy *p, struct json_err *err)
{
	struct pctx c = { .js = buf, .err = err };
	jsmntok_t small[512], *t;
	unsigned ntok;
	int n, r;

	memset(err, 0, sizeof *err);
	if (len > POLICY_MAX_LEN) {
		snprintf(err->msg, sizeof err->msg, "larger than %d bytes", POLICY_MAX_LEN);
		return -1;
	}
	/* each token starts at a byte of its own (a bracket, a string's
	 * first byte or closing quote, a primitive's first byte), so len + 1
	 * tokens hold any document of len bytes: the embedded policy (458
	 * bytes) parses in tokens on the stack, a larger one in len + 1 from
	 * the heap, not the 320 KB of POLICY_MAX_TOKENS mapped and unmapped
	 * each parse; "more than POLICY_MAX_TOKENS" as before */
	ntok = len < POLICY_MAX_TOKENS ? (unsigned)len + 1 : POLICY_MAX_TOKENS;
	t = ntok <= sizeof small / sizeof small[0] ? small : malloc(ntok * sizeof *t);
	if (t == NULL) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -1;
	}
	n = json_parse(buf, len, t, ntok);
	if (n < 0) {
		r = errno;
		if (r == ENOMEM) {
			if (t != small)
				free(t);
			snprintf(err->msg, sizeof err->msg, "more than %d JSON tokens", POLICY_MAX_TOKENS);
			return -1;
		}
		if (r == ELOOP) {
			/* said before jsmn runs: its cost grows with the square of the depth */
			if (t != small)
				free(t);
			snprintf(err->msg, sizeof err->msg, "nested deeper than %d levels", JSON_MAX_DEPTH);
			return -1;
		}
		/* where jsmn stopped, when it did: the position of a syntax error */
		jsmn_parser jp;
		jsmn_init(&jp);
		c.t = t;
		if (jsmn_parse(&jp, buf, len, t, ntok) < 0) {
			jsmntok_t at = { .type = JSMN_PRIMITIVE, .start = (int)jp.pos };
			c.t = &at;
			fail(&c, 0, "not valid JSON");
		} else {
			snprintf(err->msg, sizeof err->msg, "not valid JSON (a bad literal, number, escape or trailing text)");
		}
		if (t != small)
			free(t);
		return -1;
	}
	c.t = t;
	c.n = n;
	r = walk(&c, 0, "the policy", top_keys, top_member, p);
	if (t != small)
		free(t);
	return r;
}

int
policy_default(struct policy *p, struct json_err *err)
{
	struct strlist *l = &p->if_present;

	policy_init(p);
	if (policy_parse(policy_default_json, sizeof policy_default_json - 1, p, err) < 0)
		return -1;
	if (p->exec.n && (l->v = calloc(p->exec.n, sizeof *l->v)) == NULL)
		return snprintf(err->msg, sizeof err->msg, "out of memory"), -1;
	for (l->n = 0; l->n < p->exec.n; l->n++)
		if ((l->v[l->n] = strdup(p->exec.v[l->n])) == NULL)
			return snprintf(err->msg, sizeof err->msg, "out of memory"), -1;
	return 0;
}

void
policy_free(struct policy *p)
{
	free(p->workspace);
	list_free(&p->read);
	list_free(&p->exec);
	list_free(&p->write);
	list_free(&p->allow);
	list_free(&p->env_keep);
	list_free(&p->env_set);
	list_free(&p->env_files);
	list_free(&p->if_present);
	list_free(&p->git_deps);
	free(p->env_project);
	free(p->agent);
	free(p->min_tier);
	for (size_t i = 0; i < p->nmcp; i++)
		mcp_free(&p->mcp[i]);
	list_free(&p->browser.tools);
	free(p->browser.package);
	policy_init(p);
}
