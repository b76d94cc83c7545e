/* cfgcmd: drun's configuration verbs, as sandbox-mcp config VERB:
 * add-path, remove-path (mount_allowlist), add-domain, remove-domain
 * (domain_allowlist), list. The file is read and checked whole first (a
 * malformed one is refused, never rewritten); every other member is kept
 * as it was written; the new file replaces the old atomically, mode 0600.
 * I/O. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cfgcmd.h"
#include "config.h"
#include "fdio.h"
#include "hostname.h"
#include "json.h"
#include "jw.h"
#include "msg.h"
#include "path.h"
#include "status.h"
#include "toml.h"

enum { CFG_TOK = 4096 };

/* token t's text as written (a string with its quotes) */
static void
raw(struct buf *o, const char *js, const jsmntok_t *t)
{
	int q = t->type == JSMN_STRING;

	buf_add(o, js + t->start - q, (size_t)(t->end - t->start + 2 * q));
}

/* The file's text with key's list given add or less rm; *changed 0 when
 * it was already so. */
static int
edit(const char *js, size_t len, const char *key, const char *add, const char *rm, struct buf *o, int *changed)
{
	static jsmntok_t t[CFG_TOK];
	int n = len ? json_parse(js, len, t, CFG_TOK) : 0, k = 1, seen = 0, first = 1;

	*changed = 0;
	if (n < 0 || (n > 0 && t[0].type != JSMN_OBJECT))
		return -1;
	buf_adds(o, "{\n");
	for (int i = 0; n > 0 && i < t[0].size; i++, k = json_next(t, k + 1)) {
		int v = k + 1;
		buf_adds(o, first ? "  " : ",\n  ");
		first = 0;
		raw(o, js, &t[k]);
		buf_adds(o, ": ");
		if (!json_eq(js, &t[k], key)) {
			raw(o, js, &t[v]);
			continue;
		}
		seen = 1;
		buf_adds(o, "[");
		for (int e = 0, x = v + 1, f = 1; e < t[v].size; e++, x = json_next(t, x)) {
			if (rm && json_eq(js, &t[x], rm)) {
				*changed = 1;
				continue;
			}
			if (add && json_eq(js, &t[x], add))
				add = NULL;	/* there already */
			buf_adds(o, f ? "" : ", ");
			f = 0;
			raw(o, js, &t[x]);
		}
		if (add) {
			buf_adds(o, t[v].size ? ", " : "");
			json_quote_buf(o, add, strlen(add));
			*changed = 1;
		}
		buf_adds(o, "]");
	}
	if (!seen && add) {
		buf_adds(o, first ? "  \"" : ",\n  \"");
		buf_adds(o, key);
		buf_adds(o, "\": [");
		json_quote_buf(o, add, strlen(add));
		buf_adds(o, "]");
		*changed = 1;
	}
	buf_adds(o, "\n}\n");
	return o->p ? 0 : -1;
}

static int
write_cfg(const char *path, const struct buf *b)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int dfd, rc;

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	rc = file_replace_atomic(dfd, slash ? slash + 1 : path, b->p, b->len, 0600);
	close(dfd);
	return rc;
}

static void
list(const struct config *c)
{
	printf("domain_allowlist:\n");
	for (int i = 0; i < c->domain_allowlist.n; i++)
		printf("  - %s\n", c->domain_allowlist.v[i]);
	printf("mount_allowlist:\n");
	if (c->mount_allowlist.n == 0)
		printf("  (empty: nothing can be mounted)\n");
	for (int i = 0; i < c->mount_allowlist.n; i++)
		printf("  - %s\n", c->mount_allowlist.v[i]);
}

/* drun keys with no meaning here, left out by import-toml (named only):
 * the web interface's port, the chat client's model and its API keys */
static int
dropped(const char *js, const jsmntok_t *k)
{
	size_t l = (size_t)(k->end - k->start);

	return json_eq(js, k, "web_port") || json_eq(js, k, "default_model") ||
	    (l > 8 && memcmp(js + k->end - 8, "_api_key", 8) == 0);
}

/* import-toml FILE: drun's config.toml converted into the (new) JSON file */
static int
import_toml(const char *cfgpath, const char *home, const char *src)
{
	static jsmntok_t t[CFG_TOK];
	struct buf js = { 0 }, out = { 0 };
	struct json_err e;
	struct config c;
	char *text;
	size_t len;
	int n, k = 1, first = 1;

	if (access(cfgpath, F_OK) == 0)
		return msg_fatal("%s exists: not replaced", cfgpath),
		    msg_hint("remove it first, or change it with config add-path and add-domain"), 1;
	if (file_read_bounded(AT_FDCWD, src, 1 << 20, &text, &len) < 0)
		return msg_fatal_sys("unable to read %s", src), EXIT_USAGE;
	if (toml_to_json(text, len, &js, &e) < 0) {
		free(text);
		buf_free(&js);
		return msg_fatal("%s:%d:%d: %s", src, e.line, e.col, e.msg), 1;
	}
	free(text);
	n = json_parse(js.p, js.len, t, CFG_TOK);
	buf_adds(&out, "{\n");
	for (int i = 0; n > 0 && i < t[0].size; i++, k = json_next(t, k + 1)) {
		if (dropped(js.p, &t[k])) {
			fprintf(stderr, "sandbox-mcp: %.*s: not carried (no meaning here)\n", t[k].end - t[k].start, js.p + t[k].start);
			continue;
		}
		buf_adds(&out, first ? "  " : ",\n  ");
		first = 0;
		raw(&out, js.p, &t[k]);
		buf_adds(&out, ": ");
		raw(&out, js.p, &t[k + 1]);
	}
	buf_adds(&out, "\n}\n");
	buf_free(&js);
	config_defaults(&c);
	if (n < 1 || !out.p || config_parse(out.p, out.len, &c, &e) < 0) {
		config_free(&c);
		buf_free(&out);
		return msg_fatal("%s: %s", src, n < 1 ? "unable to convert" : e.msg),
		    msg_hint("see DRUN COMPATIBILITY in sandbox-mcp(1)"), 1;
	}
	config_free(&c);
	if (write_cfg(cfgpath, &out) < 0) {
		buf_free(&out);
		return msg_fatal_sys("unable to write %s", cfgpath), EXIT_USAGE;
	}
	buf_free(&out);
	fprintf(stderr, "sandbox-mcp: %s converted into %s\n", src, cfgpath);
	(void)home;
	return 0;
}

int
cfgcmd_main(const char *cfgpath, const char *home, int argc, char **argv)
{
	static const char use[] = "config add-path PATH | remove-path PATH | add-domain NAME | remove-domain NAME | list | import-toml FILE";
	const char *verb = argc > 1 ? argv[1] : "", *arg = argc > 2 ? argv[2] : NULL, *key, *add = NULL, *rm = NULL;
	char why[1024], real[PATH_MAX], h[HOST_MAX];
	struct config c;
	struct buf out = { 0 };
	char *js = NULL;
	size_t len = 0;
	int changed;

	if (strcmp(verb, "import-toml") == 0 && arg && argc == 3)
		return import_toml(cfgpath, home, arg);
	if (config_load(cfgpath, home, &c, why, sizeof why) < 0)
		return msg_fatal("%s", why), msg_hint("fix the file first: config never rewrites a file it cannot read"), EXIT_USAGE;
	if (strcmp(verb, "list") == 0 && argc == 2) {
		list(&c);
		config_free(&c);
		return msg_stdout_done() < 0 ? EXIT_USAGE : 0;
	}
	config_free(&c);
	if (arg == NULL || argc != 3)
		return msg_usage("%s", use), EXIT_USAGE;
	if (strcmp(verb, "add-path") == 0 || strcmp(verb, "remove-path") == 0) {
		key = "mount_allowlist";
		if (realpath(arg, real) == NULL) {
			if (verb[0] == 'a')
				return msg_fatal_sys("cannot resolve %s", arg), EXIT_USAGE;
			snprintf(real, sizeof real, "%s", arg);	/* a stale entry still goes */
		}
		if (verb[0] == 'a' && (strcmp(real, "/") == 0 || (home && path_within(home, real))))
			return msg_fatal("%s would make the whole file system or the home mountable: refused", real),
			    msg_hint("add the project directories themselves"), 1;
		*(verb[0] == 'a' ? &add : &rm) = real;
	} else if (strcmp(verb, "add-domain") == 0 || strcmp(verb, "remove-domain") == 0) {
		key = "domain_allowlist";
		if (verb[0] == 'a' && host_normalize(arg, strlen(arg), 1, h) == HOST_BAD)
			return msg_fatal("%s is not a host name or *.NAME", arg), 1;
		*(verb[0] == 'a' ? &add : &rm) = arg;
	} else {
		return msg_usage("%s", use), EXIT_USAGE;
	}
	if (file_read_bounded(AT_FDCWD, cfgpath, 1 << 20, &js, &len) < 0 && errno != ENOENT)
		return msg_fatal_sys("unable to read %s", cfgpath), EXIT_USAGE;
	if (edit(js ? js : "", len, key, add, rm, &out, &changed) < 0) {
		free(js);
		return msg_fatal("%s: unable to edit", cfgpath), EXIT_USAGE;
	}
	free(js);
	/* what is written must read back: checked as the server will */
	config_defaults(&c);
	{
		struct json_err e;
		if (config_parse(out.p, out.len, &c, &e) < 0) {
			config_free(&c);
			buf_free(&out);
			return msg_fatal("%s: the edited file would not read back", cfgpath), EXIT_USAGE;
		}
	}
	config_free(&c);
	if (changed && write_cfg(cfgpath, &out) < 0) {
		buf_free(&out);
		return msg_fatal_sys("unable to write %s", cfgpath), EXIT_USAGE;
	}
	buf_free(&out);
	fprintf(stderr, "sandbox-mcp: %s %s %s %s in %s\n", changed ? (add ? "added" : "removed") : "nothing to do:",
	    add ? add : rm, changed ? (add ? "to" : "from") : (add ? "already in" : "not in"), key, cfgpath);
	return 0;
}
