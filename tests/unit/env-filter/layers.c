/* env-filter's layer model and line parser. */
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "tap.h"

static const char *
val(const struct ef_env *env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < env->n; i++)
		if (env->var[i].nlen == n && strncmp(env->var[i].kv, name, n) == 0)
			return env->var[i].kv + n + 1;
	return NULL;
}

static int
layer_of(const struct ef_env *env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < env->n; i++)
		if (env->var[i].nlen == n && strncmp(env->var[i].kv, name, n) == 0)
			return (int)env->var[i].layer;
	return -1;
}

/* ef_text on a copy of s (with its spare byte), so tests can pass literals.
 * The copies stay reachable from here: env points into them. */
static char *copies[64];
static size_t ncopies;

static int
text(struct ef_env *env, const char *s, size_t len, struct ef_err *err)
{
	char *b;

	if (len == (size_t)-1)
		len = strlen(s);
	b = malloc(len + 1);
	if (ncopies < sizeof copies / sizeof copies[0])
		copies[ncopies++] = b;

	memcpy(b, s, len);
	return ef_text(env, b, len, EF_FILE, "t.env", err);
}

int
main(void)
{
	static struct ef_env env;
	struct ef_err err;
	size_t nl, i;
	char *big;
	char *caller[] = {
		"PATH=/usr/bin:/bin", "HOME=/home/u", "FOO=foo", "OTHER=o",
		"USER=ghp_abcdefghijABCDEFGHIJ0123456789abcd", "LD_PRELOAD=/x.so",
		"http_proxy=http://p", "TERM=xterm", NULL,
	};

	/* names */
	ok(ef_name_valid("A", 1), "A is a name");
	ok(ef_name_valid("_a9", 3), "_a9 is a name");
	ok(!ef_name_valid("9A", 2), "leading digit refused");
	ok(!ef_name_valid("A-B", 3), "dash refused");
	ok(!ef_name_valid("", 0), "empty name refused");
	ok(!ef_name_valid("A B", 3), "space refused");

	/* the line parser */
	is_int(ef_parse_line("A=1", 3, &nl), EF_OK, "A=1 parses");
	is_int(nl, 1, "name length 1");
	is_int(ef_parse_line("A=", 2, &nl), EF_OK, "empty value allowed");
	is_int(ef_parse_line("A=b=c", 5, &nl), EF_OK, "'=' in value allowed");
	is_int(nl, 1, "name ends at the first '='");
	is_int(ef_parse_line("A", 1, &nl), EF_E_NOEQ, "no '='");
	is_int(ef_parse_line("=1", 2, &nl), EF_E_NAME, "empty name");
	is_int(ef_parse_line("1A=1", 4, &nl), EF_E_NAME, "bad name");
	is_int(ef_parse_line("export A=1", 10, &nl), EF_E_NAME, "export prefix is no name");
	is_int(ef_parse_line("A=1\0b", 5, &nl), EF_E_NUL, "NUL byte");
	is_int(ef_parse_line("A=1\r", 4, &nl), EF_E_CR, "carriage return");
	big = malloc(EF_MAX_LINE + 2);
	memset(big, 'x', EF_MAX_LINE + 1);
	big[0] = 'A';
	big[1] = '=';
	is_int(ef_parse_line(big, EF_MAX_LINE, &nl), EF_OK, "line of the maximum length");
	is_int(ef_parse_line(big, EF_MAX_LINE + 1, &nl), EF_E_LONG, "one byte more");

	/* the never-pass table */
	ok(ef_denied("LD_PRELOAD", 10) != NULL, "LD_PRELOAD denied");
	ok(ef_denied("LD_", 3) != NULL, "LD_ prefix denied");
	ok(ef_denied("LDX", 3) == NULL, "LDX passes");
	ok(ef_denied("DYLD_INSERT_LIBRARIES", 21) != NULL, "DYLD_ denied");
	ok(ef_denied("HTTPS_PROXY", 11) != NULL, "HTTPS_PROXY denied");
	ok(ef_denied("Http_Proxy", 10) != NULL, "Http_Proxy denied (any case)");
	ok(ef_denied("no_proxy", 8) != NULL, "no_proxy denied");
	ok(ef_denied("RSYNC_PROXY", 11) != NULL, "*_proxy denied");
	ok(ef_denied("PROXYFOO", 8) == NULL, "PROXYFOO passes");
	ok(ef_denied("ENV", 3) != NULL, "ENV denied");
	ok(ef_denied("ENVX", 4) == NULL, "ENVX passes");
	ok(ef_denied("env", 3) == NULL, "env (lower case) passes: ENV is exact");
	ok(ef_denied("GIT_CONFIG_GLOBAL", 17) != NULL, "GIT_CONFIG_GLOBAL denied");
	ok(ef_denied("GIT_SSH_COMMAND", 15) != NULL, "GIT_SSH_COMMAND denied");
	ok(ef_denied("GIT_AUTHOR_NAME", 15) == NULL, "GIT_AUTHOR_NAME passes");
	ok(ef_denied("SSH_AUTH_SOCK", 13) != NULL, "SSH_AUTH_SOCK denied");
	ok(ef_denied("NODE_OPTIONS", 12) != NULL, "NODE_OPTIONS denied");
	ok(ef_denied("NODE_PATH", 9) == NULL, "NODE_PATH passes");
	for (i = 0; i < ef_deny_count; i++)
		if (ef_deny_table[i].why == NULL || *ef_deny_table[i].why == '\0')
			break;
	is_int(i, ef_deny_count, "every never-pass entry has a reason");
	for (i = 0; i < ef_baseline_count; i++)
		if (ef_denied(ef_baseline_names[i], strlen(ef_baseline_names[i])))
			break;
	is_int(i, ef_baseline_count, "no baseline name is on the never-pass list");

	/* baseline: its names only, secrets dropped */
	memset(&env, 0, sizeof env);
	is_int(ef_baseline(&env, caller, &err), 0, "baseline");
	is_int(env.n, 3, "baseline kept PATH HOME TERM");
	is_str(val(&env, "PATH"), "/usr/bin:/bin", "PATH kept");
	ok(val(&env, "FOO") == NULL, "FOO not in the baseline");
	ok(val(&env, "LD_PRELOAD") == NULL && val(&env, "http_proxy") == NULL,
	    "loader and proxy variables not in the baseline");
	ok(val(&env, "USER") == NULL, "secret-shaped USER dropped");
	is_int(env.ndrop, 1, "one drop recorded");
	ok(env.drop[0].nlen == 4 && strncmp(env.drop[0].name, "USER", 4) == 0, "the drop names USER");
	is_str(env.drop[0].shape, "GitHub token", "and its shape");

	/* keep */
	is_int(ef_keep(&env, caller, "FOO", &err), 0, "-k FOO");
	is_str(val(&env, "FOO"), "foo", "FOO kept");
	is_int(layer_of(&env, "FOO"), EF_KEEP, "FOO from keep");
	is_int(ef_keep(&env, caller, "ABSENT", &err), 0, "-k of an unset name");
	ok(val(&env, "ABSENT") == NULL, "adds nothing");
	is_int(ef_keep(&env, caller, "LD_PRELOAD", &err), -1, "-k LD_PRELOAD refused");
	is_int(err.code, EF_E_DENIED, "as never-pass");
	ok(err.nlen == 10 && strncmp(err.name, "LD_PRELOAD", 10) == 0, "naming it");
	is_int(ef_keep(&env, caller, "http_proxy", &err), -1, "-k http_proxy refused");
	is_int(ef_keep(&env, caller, "A-B", &err), -1, "-k A-B refused");
	is_int(err.code, EF_E_NAME, "as an invalid name");

	/* set, order, pins */
	memset(&env, 0, sizeof env);
	ef_set(&env, "A=1", EF_SET, &err);
	ef_set(&env, "B=1", EF_SET, &err);
	ef_set(&env, "A=2", EF_SET, &err);
	is_str(val(&env, "A"), "2", "later -s wins");
	is_int(env.n, 2, "no duplicate entry");
	is_str(env.var[0].kv, "A=2", "A keeps its first position");
	is_int(ef_set(&env, "A=3", EF_PIN, &err), 0, "-p A=3");
	ef_set(&env, "A=4", EF_SET, &err);
	is_int(ef_keep(&env, caller, "OTHER", &err), 0, "-k after the pin");
	is_int(ef_finish(&env, &err), 0, "finish");
	is_str(val(&env, "A"), "3", "pin wins over a later -s");
	is_int(layer_of(&env, "A"), EF_PIN, "A from the pin");
	is_int(ef_set(&env, "A=5", EF_PIN, &err), -1, "pinning A twice refused");
	is_int(err.code, EF_E_PINNED, "as pinned twice");
	is_int(ef_set(&env, "NOEQ", EF_SET, &err), -1, "-s without '='");
	is_int(err.code, EF_E_NOEQ, "as no '='");
	is_int(ef_set(&env, "1=x", EF_SET, &err), -1, "-s invalid name");
	is_int(err.code, EF_E_NAME, "as invalid name");
	is_int(ef_set(&env, "BASH_ENV=x", EF_PIN, &err), -1, "-p BASH_ENV refused");
	is_int(err.code, EF_E_DENIED, "as never-pass");
	is_int(ef_set(&env, "CR=a\rb", EF_SET, &err), 0, "-s: a CR is part of the value");
	is_int(ef_set(&env, "TOKEN=ghp_abcdefghijABCDEFGHIJ0123456789abcd", EF_SET, &err), 0,
	    "-s values are the run's own: no secret scan");

	/* a layer without a value leaves earlier ones alone */
	memset(&env, 0, sizeof env);
	ef_set(&env, "USER=mine", EF_SET, &err);
	ef_keep(&env, caller, "USER", &err);
	is_str(val(&env, "USER"), "mine", "-k of a dropped value keeps the earlier -s");
	ef_baseline(&env, caller, &err);
	is_str(val(&env, "PATH"), "/usr/bin:/bin", "baseline after -s");
	ef_set(&env, "PATH=/x", EF_SET, &err);
	is_str(val(&env, "PATH"), "/x", "-s after baseline wins");
	ef_baseline(&env, caller, &err);
	is_str(val(&env, "PATH"), "/usr/bin:/bin", "a second baseline wins again");

	/* text */
	memset(&env, 0, sizeof env);
	is_int(text(&env, "# c\n\nA=1\nB=two words\nA=3", -1, &err), 0, "text parses");
	is_str(val(&env, "A"), "3", "later line wins");
	is_str(val(&env, "B"), "two words", "value taken literally");
	is_int(env.var[1].line, 4, "B from line 4");
	is_str(env.var[1].src, "t.env", "and its source");
	is_int(text(&env, "C=1\n", 4, &err), 0, "trailing newline");
	is_str(val(&env, "C"), "1", "C=1");
	is_int(text(&env, "D='q'\n", 6, &err), 0, "quotes");
	is_str(val(&env, "D"), "'q'", "are kept literally");
	is_int(text(&env, "A=1\nnoeq\n", 9, &err), -1, "line without '='");
	is_int(err.code, EF_E_NOEQ, "EF_E_NOEQ");
	is_int(err.line, 2, "on line 2");
	is_int(text(&env, "A=1\n\nA B=1\n", 10, &err), -1, "invalid name");
	is_int(err.line, 3, "on line 3");
	is_int(text(&env, "A=1\0\n", 5, &err), -1, "NUL byte");
	is_int(err.code, EF_E_NUL, "EF_E_NUL");
	is_int(text(&env, "A=1\r\n", 5, &err), -1, "CRLF");
	is_int(err.code, EF_E_CR, "EF_E_CR");
	is_int(text(&env, "X=1\nPERL5LIB=/x\n", 16, &err), -1, "never-pass name in a file");
	is_int(err.code, EF_E_DENIED, "EF_E_DENIED");
	is_int(err.line, 2, "on line 2");
	ok(err.nlen == 8 && strncmp(err.name, "PERL5LIB", 8) == 0, "naming PERL5LIB");
	is_int(text(&env, " A=1\n", 5, &err), -1, "leading space refused");
	is_int(text(&env, big, EF_MAX_LINE + 1, &err), -1, "over-long line");
	is_int(err.code, EF_E_LONG, "EF_E_LONG");
	is_int(err.line, 1, "on line 1");

	/* counts: entries per source and variables in total */
	{
		size_t cap = (EF_MAX_VARS + 1) * 12, len = 0;
		char *t = malloc(cap + 1);

		for (i = 0; i < EF_MAX_VARS; i++)
			len += (size_t)sprintf(t + len, "V%zu=x\n", i);
		memset(&env, 0, sizeof env);
		is_int(ef_text(&env, t, len, EF_FILE, "t", &err), 0, "1024 entries");
		is_int(env.n, EF_MAX_VARS, "1024 variables");
		is_int(ef_set(&env, "ONEMORE=1", EF_SET, &err), -1, "the 1025th variable refused");
		is_int(err.code, EF_E_MANY, "EF_E_MANY");
		is_int(ef_set(&env, "V0=again", EF_SET, &err), 0, "replacing one still works");

		len = 0;
		for (i = 0; i <= EF_MAX_VARS; i++)
			len += (size_t)sprintf(t + len, "A=%zu\n", i % 10);
		memset(&env, 0, sizeof env);
		is_int(ef_text(&env, t, len, EF_FILE, "t", &err), -1, "1025 entries in one source");
		is_int(err.code, EF_E_MANY, "EF_E_MANY");
		is_int(err.line, EF_MAX_VARS + 1, "on line 1025");
		free(t);
	}
	free(big);

	is_str(ef_layer_name(EF_BASELINE), "baseline", "layer names");
	is_str(ef_layer_name(EF_FD), "fd", "fd layer name");
	return done_testing();
}
