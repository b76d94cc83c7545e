#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fdio.h"
#include "json.h"
#include "jw.h"

static const char *const DEF_OVERLAYS[] = { "node_modules", ".venv", "target", NULL };
static const char *const DEF_ENV[] = { "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", NULL };

enum ktype { K_LIST, K_STR, K_INT, K_BOOL, K_PORTS };

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	int64_t min, max;
};

#define O(f) offsetof(struct config, f)
static const struct key KEYS[] = {
	{ "mount_allowlist", K_LIST, O(mount_allowlist), 0, 0 },
	{ "mount_overlay_paths", K_LIST, O(mount_overlay_paths), 0, 0 },
	{ "export_root", K_STR, O(export_root), 0, 0 },
	{ "domain_allowlist", K_LIST, O(domain_allowlist), 0, 0 },
	{ "fetch_timeout_ms", K_INT, O(fetch_timeout_ms), 1, 3600000 },
	{ "connect_timeout_ms", K_INT, O(connect_timeout_ms), 1, 600000 },
	{ "package_install_enabled", K_BOOL, O(package_install_enabled), 0, 0 },
	{ "package_install_timeout_ms", K_INT, O(package_install_timeout_ms), 1, 86400000 },
	{ "package_install_network", K_STR, O(package_install_network), 0, 0 },
	{ "bash_timeout_ms", K_INT, O(bash_timeout_ms), 1, 86400000 },
	{ "max_workspace_mb", K_INT, O(max_workspace_mb), 1, 1 << 20 },
	{ "max_sessions", K_INT, O(max_sessions), 1, 4096 },
	{ "max_concurrent_calls", K_INT, O(max_concurrent_calls), 1, 64 },
	{ "max_processes", K_INT, O(max_processes), 0, 4194304 },
	{ "max_memory_mb", K_INT, O(max_memory_mb), 0, 1 << 24 },
	{ "max_checkpoints", K_INT, O(max_checkpoints), 1, 100000 },
	{ "session_idle_timeout_secs", K_INT, O(session_idle_timeout_secs), 0, 100LL * 365 * 86400 },
	{ "env_allowlist", K_LIST, O(env_allowlist), 0, 0 },
	{ "snapshots_dir", K_STR, O(snapshots_dir), 0, 0 },
	{ "snapshot_on_close", K_BOOL, O(snapshot_on_close), 0, 0 },
	{ "package_install_allow_loopback", K_PORTS, O(package_install_allow_loopback), 1, 65535 },
	{ NULL, 0, 0, 0, 0 }
};
#undef O

static void
list_set(struct cfg_list *l, const char *const *v)
{
	l->n = 0;
	for (; *v && l->n < CFG_LIST_MAX; v++)
		l->v[l->n++] = strdup(*v);
}

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof *c);
	list_set(&c->mount_overlay_paths, DEF_OVERLAYS);
	list_set(&c->env_allowlist, DEF_ENV);
	c->fetch_timeout_ms = 30000;
	c->connect_timeout_ms = 10000;
	c->package_install_timeout_ms = 300000;
	c->bash_timeout_ms = 30000;
	c->max_workspace_mb = 512;
	c->max_sessions = 16;
	c->max_concurrent_calls = 8;
	c->max_processes = 1024;
	c->max_memory_mb = 4096;
	c->max_checkpoints = 100;
	c->session_idle_timeout_secs = 86400;
}

static void
list_free(struct cfg_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

void
config_free(struct config *c)
{
	list_free(&c->mount_allowlist);
	list_free(&c->mount_overlay_paths);
	list_free(&c->domain_allowlist);
	list_free(&c->env_allowlist);
	free(c->export_root);
	free(c->snapshots_dir);
	free(c->package_install_network);
	c->export_root = c->snapshots_dir = c->package_install_network = NULL;
}

struct pc {
	const char *js;
	size_t len;
	const jsmntok_t *t;
	struct json_err *err;
};

/* the error at token tok of c (lib/json) */
#define fail(c, tok, ...) json_fail((c)->err, (c)->js, (c)->t, (tok), __VA_ARGS__)

/* A string without control characters or NUL. */
static int
get_str(struct pc *c, int k, const char *key, char **out)
{
	char buf[CFG_STR_MAX];
	int l;

	if (c->t[k].type != JSMN_STRING)
		return fail(c, k, "\"%s\" must be a string, not %s", key, json_type_name(&c->t[k], c->js));
	if ((l = json_str(c->js, &c->t[k], buf, sizeof buf)) < 0)
		return fail(c, k, "\"%s\": a string longer than %d bytes", key, CFG_STR_MAX - 1);
	for (int i = 0; i < l; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return fail(c, k, "\"%s\" holds a control character", key);
	if (l == 0)
		return fail(c, k, "\"%s\" is an empty string", key);
	if ((*out = strdup(buf)) == NULL)
		return fail(c, -1, "out of memory");
	return 0;
}

static int
get_value(struct pc *c, int v, const struct key *k, struct config *cf)
{
	char *base = (char *)cf + k->off;
	const jsmntok_t *t = &c->t[v];

	switch (k->type) {
	case K_BOOL:
		if (t->type != JSMN_PRIMITIVE || (c->js[t->start] != 't' && c->js[t->start] != 'f'))
			return fail(c, v, "\"%s\" must be a boolean, not %s", k->name, json_type_name(t, c->js));
		*(int *)base = c->js[t->start] == 't';
		return 0;
	case K_INT: {
		int64_t x;
		if (t->type != JSMN_PRIMITIVE || json_int(c->js, t, &x) < 0)
			return fail(c, v, "\"%s\" must be an integer, not %s", k->name, json_type_name(t, c->js));
		if (x < k->min || x > k->max)
			return fail(c, v, "\"%s\" must be between %lld and %lld", k->name,
			    (long long)k->min, (long long)k->max);
		*(int64_t *)base = x;
		return 0;
	}
	case K_STR: {
		char **s = (char **)base;
		if (t->type == JSMN_PRIMITIVE && c->js[t->start] == 'n') {
			free(*s);
			*s = NULL;
			return 0;
		}
		free(*s);
		*s = NULL;
		return get_str(c, v, k->name, s);
	}
	case K_PORTS: {
		struct cfg_ports *pl = (struct cfg_ports *)base;
		int e = v + 1;
		int64_t x;
		if (t->type != JSMN_ARRAY)
			return fail(c, v, "\"%s\" must be an array of port numbers, not %s", k->name, json_type_name(t, c->js));
		if (t->size > CFG_LIST_MAX)
			return fail(c, v, "\"%s\" has more than %d entries", k->name, CFG_LIST_MAX);
		pl->n = 0;
		for (int i = 0; i < t->size; i++, e = json_next(c->t, e)) {
			if (c->t[e].type != JSMN_PRIMITIVE || json_int(c->js, &c->t[e], &x) < 0 || x < k->min || x > k->max)
				return fail(c, e, "\"%s\": each entry must be a port number, 1 to 65535", k->name);
			pl->v[pl->n++] = (uint16_t)x;
		}
		return 0;
	}
	case K_LIST: {
		struct cfg_list *l = (struct cfg_list *)base;
		int e = v + 1;
		if (t->type != JSMN_ARRAY)
			return fail(c, v, "\"%s\" must be an array of strings, not %s", k->name, json_type_name(t, c->js));
		if (t->size > CFG_LIST_MAX)
			return fail(c, v, "\"%s\" has more than %d entries", k->name, CFG_LIST_MAX);
		list_free(l);
		for (int i = 0; i < t->size; i++, e = json_next(c->t, e))
			if (get_str(c, e, k->name, &l->v[l->n++]) < 0) {
				l->n--;
				return -1;
			}
		return 0;
	}
	}
	return -1;
}

static int
check_values(struct pc *c, struct config *cf)
{
	if (cf->package_install_network && strcmp(cf->package_install_network, "open-unfiltered") != 0)
		return fail(c, -1, "\"package_install_network\" must be \"open-unfiltered\" or null");
	for (int i = 0; i < cf->mount_allowlist.n; i++) {
		const char *p = cf->mount_allowlist.v[i];
		if (p[0] != '/' && strncmp(p, "~/", 2) != 0)
			return fail(c, -1, "\"mount_allowlist\" entry %s is not an absolute path (or ~/...)", p);
	}
	if (cf->export_root && cf->export_root[0] != '/' && strncmp(cf->export_root, "~/", 2) != 0)
		return fail(c, -1, "\"export_root\" %s is not an absolute path (or ~/...)", cf->export_root);
	if (cf->snapshots_dir && cf->snapshots_dir[0] != '/' && strncmp(cf->snapshots_dir, "~/", 2) != 0)
		return fail(c, -1, "\"snapshots_dir\" %s is not an absolute path (or ~/...)", cf->snapshots_dir);
	for (int i = 0; i < cf->mount_overlay_paths.n; i++) {
		const char *p = cf->mount_overlay_paths.v[i];
		if (strchr(p, '/') || strcmp(p, ".") == 0 || strcmp(p, "..") == 0)
			return fail(c, -1, "\"mount_overlay_paths\" entry %s must be a directory name, without '/'", p);
	}
	return 0;
}

int
config_parse(const char *buf, size_t len, struct config *cf, struct json_err *err)
{
	static jsmntok_t t[CFG_TOKENS_MAX];
	struct pc c = { buf, len, t, err };
	unsigned char seen[sizeof KEYS / sizeof KEYS[0]] = { 0 };
	int n, k;

	memset(err, 0, sizeof *err);
	n = json_parse(buf, len, t, CFG_TOKENS_MAX);
	if (n < 0) {
		jsmn_parser jp;
		if (errno == ENOMEM)
			return fail(&c, -1, "more than %d JSON tokens", CFG_TOKENS_MAX);
		if (errno == EFBIG)
			return fail(&c, -1, "too large");
		jsmntok_t at = { .type = JSMN_PRIMITIVE };
		jsmn_init(&jp);
		n = jsmn_parse(&jp, buf, len, t, CFG_TOKENS_MAX);
		at.start = n < 0 ? (int)jp.pos : (int)json_error_at(buf, len, t, n);
		c.t = &at;
		return fail(&c, 0, "not valid JSON");
	}
	if (t[0].type != JSMN_OBJECT)
		return fail(&c, 0, "the configuration must be an object, not %s", json_type_name(&t[0], buf));
	k = 1;
	for (int i = 0; i < t[0].size; i++) {
		int v = k + 1, j;
		for (j = 0; KEYS[j].name; j++)
			if (json_eq(buf, &t[k], KEYS[j].name))
				break;
		if (KEYS[j].name == NULL) {
			char name[64];
			if (json_str(buf, &t[k], name, sizeof name) < 0)
				snprintf(name, sizeof name, "(long)");
			return fail(&c, k, "unknown key \"%s\"", name);
		}
		if (seen[j]++)
			return fail(&c, k, "key \"%s\" given twice", KEYS[j].name);
		if (get_value(&c, v, &KEYS[j], cf) < 0)
			return -1;
		k = json_next(t, v);
	}
	return check_values(&c, cf);
}

/* "~/x" with home, in place. */
static int
tilde(char **s, const char *home)
{
	char *n;

	if (*s == NULL || strncmp(*s, "~/", 2) != 0)
		return 0;
	if (home == NULL || home[0] != '/')
		return -1;
	if ((n = malloc(strlen(home) + strlen(*s))) == NULL)
		return -1;
	sprintf(n, "%s%s", home, *s + 1);
	free(*s);
	*s = n;
	return 0;
}

int
config_load(const char *path, const char *home, struct config *c, char *why, size_t whyn)
{
	struct json_err e;
	char *buf;
	size_t len;

	config_defaults(c);
	if (file_read_bounded(AT_FDCWD, path, CFG_FILE_MAX, &buf, &len) < 0) {
		if (errno == ENOENT && access(path, F_OK) < 0 && errno == ENOENT)
			return 0;
		snprintf(why, whyn, "config %s: unable to read: %s", path,
		    errno == ELOOP ? "a symbolic link" : errno == EFBIG ? "larger than 1 MiB" : strerror(errno));
		config_free(c);
		return -1;
	}
	snprintf(c->source, sizeof c->source, "%s", path);
	if (config_parse(buf, len, c, &e) < 0) {
		if (e.line)
			snprintf(why, whyn, "config %s:%d:%d: %s", path, e.line, e.col, e.msg);
		else
			snprintf(why, whyn, "config %s: %s", path, e.msg);
		free(buf);
		config_free(c);
		return -1;
	}
	free(buf);
	for (int i = 0; i < c->mount_allowlist.n; i++)
		if (tilde(&c->mount_allowlist.v[i], home) < 0)
			goto nohome;
	if (tilde(&c->export_root, home) < 0 || tilde(&c->snapshots_dir, home) < 0)
		goto nohome;
	return 0;
nohome:
	snprintf(why, whyn, "config %s: a path starts with ~/ but there is no home directory", path);
	config_free(c);
	return -1;
}

static void
list_json(struct jw *w, const char *key, const struct cfg_list *l)
{
	jw_key(w, key);
	jw_open(w, '[');
	for (int i = 0; i < l->n; i++)
		jw_str(w, l->v[i]);
	jw_close(w, ']');
}

char *
config_json(const struct config *c)
{
	struct jw w = { 0 };

	jw_open(&w, '{');
	for (int j = 0; KEYS[j].name; j++) {
		const char *base = (const char *)c + KEYS[j].off;
		switch (KEYS[j].type) {
		case K_LIST:
			list_json(&w, KEYS[j].name, (const struct cfg_list *)base);
			break;
		case K_STR:
			jw_key(&w, KEYS[j].name);
			if (*(char *const *)base)
				jw_str(&w, *(char *const *)base);
			else
				jw_null(&w);
			break;
		case K_INT:
			jw_key(&w, KEYS[j].name);
			jw_int(&w, *(const int64_t *)base);
			break;
		case K_BOOL:
			jw_key(&w, KEYS[j].name);
			jw_bool(&w, *(const int *)base);
			break;
		case K_PORTS: {
			const struct cfg_ports *pl = (const struct cfg_ports *)base;
			jw_key(&w, KEYS[j].name);
			jw_open(&w, '[');
			for (int i = 0; i < pl->n; i++)
				jw_int(&w, pl->v[i]);
			jw_close(&w, ']');
			break;
		}
		}
	}
	jw_close(&w, '}');
	if (w.err) {
		buf_free(&w.b);
		return NULL;
	}
	return w.b.p;
}
