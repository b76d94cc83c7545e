/* pkgspec: see pkgspec.h.
 *
 *   pip:  NAME [ "[" NAME ("," NAME)* "]" ] [ CLAUSE ("," CLAUSE)* ]
 *         NAME    [A-Za-z0-9] ([A-Za-z0-9._-]* [A-Za-z0-9])?
 *         CLAUSE  (== | != | ~= | >= | <= | > | <) VERSION
 *         VERSION [0-9] [A-Za-z0-9.+!_-]*, "==" and "!=" may end in ".*"
 *   npm:  [ "@" PART "/" ] PART [ "@" VERSION ]
 *         PART    [a-z0-9] [a-z0-9._-]*     (lowercase, as npm requires of new names)
 *         VERSION [~^]? [A-Za-z0-9] [A-Za-z0-9.+_-]*   (1.2.3, ^1.2, ~1.2.3, 1.x, latest)
 *               | (>= | <= | > | < | =) [0-9] [A-Za-z0-9.+_-]*
 * No markers (';'), no direct references ('@ URL'), no ranges with blanks or
 * '||', no git/file/npm: forms (':'), no paths ('/', '.', '~' at the start). */
#include <stdio.h>
#include <string.h>

#include "pkgspec.h"

int
pkg_mgr_parse(const char *s, enum pkg_mgr *m)
{
	if (strcmp(s, "pip") == 0)
		return *m = PKG_PIP, 0;
	if (strcmp(s, "npm") == 0)
		return *m = PKG_NPM, 0;
	return -1;
}

const char *
pkg_mgr_name(enum pkg_mgr m)
{
	return m == PKG_PIP ? "pip" : "npm";
}

static int
alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int
no(char *why, size_t whyn, const char *reason)
{
	snprintf(why, whyn, "%s", reason);
	return 0;
}

/* pip NAME at s[*i]: advances *i; 0 when there is none. */
static int
pip_name(const char *s, size_t len, size_t *i)
{
	size_t b = *i;

	if (b >= len || !alnum(s[b]))
		return 0;
	while (*i < len && (alnum(s[*i]) || s[*i] == '.' || s[*i] == '_' || s[*i] == '-'))
		(*i)++;
	return alnum(s[*i - 1]);
}

static int
pip_version(const char *s, size_t len, size_t *i, int star)
{
	if (*i >= len || s[*i] < '0' || s[*i] > '9')
		return 0;
	while (*i < len && (alnum(s[*i]) || strchr(".+!_-", s[*i])))
		(*i)++;
	if (star && *i < len && s[*i] == '*' && s[*i - 1] == '.') {
		(*i)++;
		return 1;
	}
	return alnum(s[*i - 1]);
}

static int
pip_ok(const char *s, size_t len, char *why, size_t whyn)
{
	static const char *const ops[] = { "==", "!=", "~=", ">=", "<=", ">", "<", NULL };
	size_t i = 0;

	if (!pip_name(s, len, &i))
		return no(why, whyn, "not a package name (letters, digits, '.', '_', '-'; a letter or digit first and last)");
	if (i < len && s[i] == '[') {
		do {
			i++;
			if (!pip_name(s, len, &i))
				return no(why, whyn, "an extra is not a name");
		} while (i < len && s[i] == ',');
		if (i >= len || s[i] != ']')
			return no(why, whyn, "extras not closed by ']'");
		i++;
	}
	while (i < len) {
		int k, star;
		for (k = 0; ops[k]; k++)
			if (strncmp(s + i, ops[k], strlen(ops[k])) == 0)
				break;
		if (ops[k] == NULL || (ops[k][1] == '=' && i + 2 < len && s[i + 2] == '='))
			return no(why, whyn, "only a name, extras and version clauses (==, !=, ~=, >=, <=, >, <) are accepted");
		star = ops[k][0] == '=' || ops[k][0] == '!';
		i += strlen(ops[k]);
		if (!pip_version(s, len, &i, star))
			return no(why, whyn, "a version clause without a version");
		if (i < len && s[i] != ',')
			return no(why, whyn, "only a name, extras and version clauses (==, !=, ~=, >=, <=, >, <) are accepted");
		if (i < len && ++i >= len)
			return no(why, whyn, "a ',' with no clause after it");
	}
	return 1;
}

static int
npm_part(const char *s, size_t len, size_t *i)
{
	size_t b = *i;

	if (b >= len || !((s[b] >= 'a' && s[b] <= 'z') || (s[b] >= '0' && s[b] <= '9')))
		return 0;
	while (*i < len && ((s[*i] >= 'a' && s[*i] <= 'z') || (s[*i] >= '0' && s[*i] <= '9') ||
	    strchr("._-", s[*i])))
		(*i)++;
	return 1;
}

static int
npm_ok(const char *s, size_t len, char *why, size_t whyn)
{
	size_t i = 0;

	if (s[0] == '@') {
		i = 1;
		if (!npm_part(s, len, &i) || i >= len || s[i] != '/')
			return no(why, whyn, "a scope is @scope/name, lowercase letters, digits, '.', '_', '-'");
		i++;
	}
	if (!npm_part(s, len, &i))
		return no(why, whyn, "not a package name (lowercase letters, digits, '.', '_', '-'; a letter or digit first)");
	if (i == len)
		return 1;
	if (s[i] != '@')
		return no(why, whyn, "only a name and @version (a version, ^ or ~ range, one comparison, or a tag) are accepted");
	i++;
	if (i < len && (s[i] == '~' || s[i] == '^'))
		i++;
	else if (i < len && strchr("<>=", s[i])) {
		i += (i + 1 < len && s[i + 1] == '=' && s[i] != '=') ? 2 : 1;
		if (i >= len || s[i] < '0' || s[i] > '9')
			return no(why, whyn, "a comparison without a version");
	}
	if (i >= len || !alnum(s[i]))
		return no(why, whyn, "@ without a version or tag");
	while (i < len && (alnum(s[i]) || strchr(".+_-", s[i])))
		i++;
	if (i < len)
		return no(why, whyn, "only a name and @version (a version, ^ or ~ range, one comparison, or a tag) are accepted");
	return 1;
}

int
pkg_spec_ok(enum pkg_mgr m, const char *s, size_t len, char *why, size_t whyn)
{
	if (len == 0)
		return no(why, whyn, "an empty specifier");
	if (len > PKG_SPEC_MAX)
		return no(why, whyn, "longer than 214 bytes");
	if (memchr(s, '\0', len))
		return no(why, whyn, "holds a NUL byte");
	if (s[0] == '-')
		return no(why, whyn, "starts with '-' (an option, not a package)");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == ' ')
			return no(why, whyn, "holds a blank, a control character or a non-ASCII byte");
		if (strchr(";&|$`()\\\"'{}*?#", c) && !(c == '*' && m == PKG_PIP))
			return no(why, whyn, "holds a shell metacharacter");
	}
	if (memmem(s, len, "://", 3) || (m == PKG_NPM && memchr(s, ':', len)) || (m == PKG_PIP && memchr(s, '@', len)))
		return no(why, whyn, "a URL or a direct reference, not a package name");
	if (s[0] == '.' || s[0] == '/' || s[0] == '~' || (m == PKG_PIP && memchr(s, '/', len)))
		return no(why, whyn, "a path, not a package name");
	return m == PKG_PIP ? pip_ok(s, len, why, whyn) : npm_ok(s, len, why, whyn);
}

int
pkg_recorded(const char *record, enum pkg_mgr m)
{
	const char *name = pkg_mgr_name(m);
	size_t n = strlen(name);

	for (const char *p = record; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return 1;
	return 0;
}
