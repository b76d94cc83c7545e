/* The layer model and the NAME=VALUE line parser (see layers.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "layers.h"
#include "num.h"
#include "secret.h"

/* Never passed, whoever asks: each lets a variable run code, redirect
 * traffic or reach a credential outside the boundary. */
const struct ef_deny ef_deny_table[] = {
	{ "http_proxy", EF_NOCASE, "proxy variable: redirects the program's traffic" },
	{ "https_proxy", EF_NOCASE, "proxy variable: redirects the program's traffic" },
	{ "ftp_proxy", EF_NOCASE, "proxy variable: redirects the program's traffic" },
	{ "all_proxy", EF_NOCASE, "proxy variable: redirects the program's traffic" },
	{ "no_proxy", EF_NOCASE, "proxy variable: redirects the program's traffic" },
	{ "_proxy", EF_SUFFIX_NOCASE, "proxy variable: redirects the program's traffic" },
	{ "NODE_OPTIONS", EF_EXACT, "loads code into every node process" },
	{ "LD_", EF_PREFIX, "dynamic loader variable: loads code into every program" },
	{ "DYLD_", EF_PREFIX, "dynamic loader variable: loads code into every program" },
	{ "BASH_ENV", EF_EXACT, "runs a script in every non-interactive bash" },
	{ "ENV", EF_EXACT, "runs a script in every interactive sh" },
	{ "PROMPT_COMMAND", EF_EXACT, "runs a command at every bash prompt" },
	{ "PYTHONSTARTUP", EF_EXACT, "runs a script in every interactive python" },
	{ "PYTHONINSPECT", EF_EXACT, "turns python scripts interactive" },
	{ "PERL5OPT", EF_EXACT, "injects options and modules into every perl" },
	{ "PERL5LIB", EF_EXACT, "puts modules before perl's own" },
	{ "RUBYOPT", EF_EXACT, "injects options and libraries into every ruby" },
	{ "JAVA_TOOL_OPTIONS", EF_EXACT, "injects options and agents into every JVM" },
	{ "_JAVA_OPTIONS", EF_EXACT, "injects options and agents into every JVM" },
	{ "GIT_CONFIG", EF_PREFIX, "git configuration from outside: runs commands" },
	{ "GIT_EXEC_PATH", EF_EXACT, "replaces git's own programs" },
	{ "GIT_SSH", EF_PREFIX, "runs a command for every git ssh transport" },
	{ "GIT_ASKPASS", EF_EXACT, "runs a command that answers credential prompts" },
	{ "SSH_ASKPASS", EF_PREFIX, "runs a command that answers credential prompts" },
	{ "SSH_AUTH_SOCK", EF_EXACT, "the user's ssh agent: signs with the user's keys" },
};
const size_t ef_deny_count = sizeof ef_deny_table / sizeof ef_deny_table[0];

const char *const ef_baseline_names[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "LANG", "LC_ALL",
	"LC_CTYPE", "TZ", "TERM", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
};
const size_t ef_baseline_count = sizeof ef_baseline_names / sizeof ef_baseline_names[0];

const char *
ef_strerror(enum ef_code code)
{
	switch (code) {
	case EF_OK: return "no error";
	case EF_E_NAME: return "invalid variable name";
	case EF_E_NOEQ: return "line without '='";
	case EF_E_NUL: return "NUL byte in line";
	case EF_E_CR: return "carriage return in line";
	case EF_E_LONG: return "line longer than 32768 bytes";
	case EF_E_MANY: return "more than 1024 entries";
	case EF_E_DENIED: return "never passes";
	case EF_E_PINNED: return "pinned twice";
	case EF_E_VALUE: return "not a port number from 1 to 65535";
	}
	return "unknown error";
}

const char *
ef_layer_name(enum ef_layer layer)
{
	static const char *const names[] = { "baseline", "keep", "set", "file", "fd", "pin" };

	return (unsigned)layer < sizeof names / sizeof names[0] ? names[layer] : "?";
}

int
ef_name_valid(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || (name[0] >= '0' && name[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

const char *
ef_denied(const char *name, size_t len)
{
	const struct ef_deny *d;
	size_t i, pl;

	for (i = 0; i < ef_deny_count; i++) {
		d = &ef_deny_table[i];
		pl = strlen(d->pat);
		switch (d->how) {
		case EF_EXACT:
			if (len == pl && memcmp(name, d->pat, pl) == 0)
				return d->why;
			break;
		case EF_NOCASE:
			if (len == pl && strncasecmp(name, d->pat, pl) == 0)
				return d->why;
			break;
		case EF_PREFIX:
			if (len >= pl && memcmp(name, d->pat, pl) == 0)
				return d->why;
			break;
		case EF_SUFFIX_NOCASE:
			if (len >= pl && strncasecmp(name + len - pl, d->pat, pl) == 0)
				return d->why;
			break;
		}
	}
	return NULL;
}

enum ef_code
ef_parse_line(const char *line, size_t len, size_t *nlen)
{
	const char *eq;

	if (len > EF_MAX_LINE)
		return EF_E_LONG;
	if (memchr(line, '\0', len))
		return EF_E_NUL;
	if (memchr(line, '\r', len))
		return EF_E_CR;
	eq = memchr(line, '=', len);
	if (eq == NULL)
		return EF_E_NOEQ;
	if (!ef_name_valid(line, (size_t)(eq - line)))
		return EF_E_NAME;
	*nlen = (size_t)(eq - line);
	return EF_OK;
}

static int
fail(struct ef_err *err, enum ef_code code, size_t line)
{
	err->code = code;
	err->line = line;
	err->name = NULL;
	err->nlen = 0;
	err->why = NULL;
	return -1;
}

static int
check_name(const char *name, size_t nlen, size_t line, struct ef_err *err)
{
	const char *why = ef_denied(name, nlen);

	if (why == NULL)
		return 0;
	fail(err, EF_E_DENIED, line);
	err->name = name;
	err->nlen = nlen;
	err->why = why;
	return -1;
}

static struct ef_var *
find(struct ef_var *v, size_t n, const char *name, size_t nlen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].nlen == nlen && memcmp(v[i].kv, name, nlen) == 0)
			return &v[i];
	return NULL;
}

/* Give kv's name its value in env: replace in place, or append. */
static int
put(struct ef_env *env, const struct ef_var *nv, struct ef_err *err)
{
	struct ef_var *v = find(env->var, env->n, nv->kv, nv->nlen);

	if (v == NULL) {
		if (env->n == EF_MAX_VARS)
			return fail(err, EF_E_MANY, nv->line);
		v = &env->var[env->n++];
	}
	*v = *nv;
	return 0;
}

static const char *
caller_get(char *const caller[], const char *name, size_t nlen)
{
	for (; caller && *caller; caller++)
		if (strncmp(*caller, name, nlen) == 0 && (*caller)[nlen] == '=')
			return *caller;
	return NULL;
}

/* A value from the caller: kept unless it looks like a secret. */
static int
keep_caller(struct ef_env *env, char *const caller[], const char *name, size_t nlen,
    enum ef_layer layer, struct ef_err *err)
{
	struct ef_var nv = { 0 };
	const char *kv = caller_get(caller, name, nlen), *shape;

	if (kv == NULL)
		return 0;
	shape = secret_shape(kv + nlen + 1, strlen(kv + nlen + 1));
	if (shape) {
		if (env->ndrop < EF_MAX_DROP) {
			env->drop[env->ndrop].name = kv;
			env->drop[env->ndrop].nlen = nlen;
			env->drop[env->ndrop].shape = shape;
		}
		env->ndrop++;
		return 0;
	}
	nv.kv = kv;
	nv.nlen = nlen;
	nv.layer = layer;
	return put(env, &nv, err);
}

int
ef_baseline(struct ef_env *env, char *const caller[], struct ef_err *err)
{
	size_t i;

	for (i = 0; i < ef_baseline_count; i++)
		if (keep_caller(env, caller, ef_baseline_names[i],
		    strlen(ef_baseline_names[i]), EF_BASELINE, err) < 0)
			return -1;
	return 0;
}

int
ef_keep(struct ef_env *env, char *const caller[], const char *name, struct ef_err *err)
{
	size_t nlen = strlen(name);

	if (nlen > EF_MAX_LINE)
		return fail(err, EF_E_LONG, 0);
	if (!ef_name_valid(name, nlen))
		return fail(err, EF_E_NAME, 0);
	if (check_name(name, nlen, 0, err) < 0)
		return -1;
	return keep_caller(env, caller, name, nlen, EF_KEEP, err);
}

int
ef_set(struct ef_env *env, const char *kv, enum ef_layer layer, struct ef_err *err)
{
	struct ef_var nv = { 0 };
	enum ef_code c;

	c = ef_parse_line(kv, strlen(kv), &nv.nlen);
	if (c == EF_E_CR)	/* one argument, not a line: a CR is a value */
		c = memchr(kv, '=', strlen(kv)) ? EF_OK : EF_E_NOEQ;
	if (c == EF_OK && !ef_name_valid(kv, (size_t)(strchr(kv, '=') - kv)))
		c = EF_E_NAME;
	if (c != EF_OK)
		return fail(err, c, 0);
	nv.nlen = (size_t)(strchr(kv, '=') - kv);
	if (check_name(kv, nv.nlen, 0, err) < 0)
		return -1;
	nv.kv = kv;
	nv.layer = layer;
	if (layer == EF_PIN) {
		if (find(env->pin, env->npin, kv, nv.nlen)) {
			fail(err, EF_E_PINNED, 0);
			err->name = kv;
			err->nlen = nv.nlen;
			return -1;
		}
		if (env->npin == EF_MAX_VARS)
			return fail(err, EF_E_MANY, 0);
		env->pin[env->npin++] = nv;
		return 0;
	}
	return put(env, &nv, err);
}

int
ef_proxy(struct ef_env *env, const char *port, struct ef_err *err)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "http_proxy",
		"https_proxy", "NO_PROXY", "no_proxy" };
	static char kv[6][48];
	struct ef_var nv = { 0 };
	size_t i;
	int p;

	if (num_parse_int(port, 1, 65535, &p) != 0)
		return fail(err, EF_E_VALUE, 0);
	for (i = 0; i < 6; i++) {
		if (i < 4)
			snprintf(kv[i], sizeof kv[i], "%s=http://127.0.0.1:%d", names[i], p);
		else
			snprintf(kv[i], sizeof kv[i], "%s=", names[i]);
		nv.kv = kv[i];
		nv.nlen = strlen(names[i]);
		nv.layer = EF_PIN;
		if (find(env->pin, env->npin, kv[i], nv.nlen)) {
			fail(err, EF_E_PINNED, 0);
			err->name = kv[i];
			err->nlen = nv.nlen;
			return -1;
		}
		if (env->npin == EF_MAX_VARS)
			return fail(err, EF_E_MANY, 0);
		env->pin[env->npin++] = nv;	/* past the never-pass table: ours */
	}
	return 0;
}

int
ef_text(struct ef_env *env, char *buf, size_t len, enum ef_layer layer,
    const char *src, struct ef_err *err)
{
	struct ef_var nv = { 0 };
	size_t off = 0, lineno = 0, entries = 0, ll;
	enum ef_code c;
	char *nl;

	nv.layer = layer;
	nv.src = src;
	while (off < len) {
		lineno++;
		nl = memchr(buf + off, '\n', len - off);
		ll = nl ? (size_t)(nl - (buf + off)) : len - off;
		if (ll == 0 || buf[off] == '#') {
			off += ll + 1;
			continue;
		}
		c = ef_parse_line(buf + off, ll, &nv.nlen);
		if (c != EF_OK)
			return fail(err, c, lineno);
		if (++entries > EF_MAX_VARS)
			return fail(err, EF_E_MANY, lineno);
		if (check_name(buf + off, nv.nlen, lineno, err) < 0)
			return -1;
		buf[off + ll] = '\0';	/* the newline, or the spare byte at len */
		nv.kv = buf + off;
		nv.line = lineno;
		if (put(env, &nv, err) < 0)
			return -1;
		off += ll + 1;
	}
	return 0;
}

int
ef_finish(struct ef_env *env, struct ef_err *err)
{
	size_t i;

	for (i = 0; i < env->npin; i++)
		if (put(env, &env->pin[i], err) < 0)
			return -1;
	return 0;
}
