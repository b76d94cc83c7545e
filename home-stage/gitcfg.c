#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gitcfg.h"

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Parse a value from p (up to end of line) into out; 0 ok, 1 skip (bad
 * characters or too long), -1 malformed. *next is the next line. */
static int
value(const char *p, const char *end, char *out, const char **next)
{
	size_t o = 0;
	int q = 0, bad = 0, trail = 0;

	while (p < end && is_space(*p))
		p++;
	for (; p < end; p++) {
		char c = *p;
		if (c == '\n' && !q)
			break;
		if (!q && (c == '#' || c == ';')) {
			while (p < end && *p != '\n')
				p++;
			break;
		}
		if (c == '"') {
			q = !q;
			continue;
		}
		if (c == '\\') {
			if (++p >= end)
				return -1;
			c = *p;
			if (c == 'n' || c == 't' || c == 'b') {
				bad = 1;
				continue;
			}
			if (c == '\n')
				continue;	/* line continuation */
			if (c != '"' && c != '\\')
				return -1;
		} else if (c == '\n' && q) {
			return -1;
		} else if ((unsigned char)c < 0x20 && c != '\t') {
			bad = 1;
		}
		if (!q && is_space(c)) {
			trail++;
		} else {
			trail = 0;
		}
		if (o + 1 >= GITCFG_VALUE_MAX)
			bad = 1;
		else
			out[o++] = c;
	}
	if (q)
		return -1;
	while (trail-- > 0 && o > 0)
		o--;
	out[o] = '\0';
	*next = p < end ? p + 1 : end;
	return bad;
}

int
gitcfg_user(const char *buf, size_t len, char *name, char *email)
{
	const char *p = buf, *end = buf + len, *e, *k;
	char v[GITCFG_VALUE_MAX];
	int in_user = 0, r;
	size_t kl;

	while (p < end) {
		while (p < end && (is_space(*p) || *p == '\n'))
			p++;
		if (p >= end)
			break;
		if (*p == '#' || *p == ';') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (*p == '[') {
			e = memchr(p, ']', (size_t)(end - p));
			if (e == NULL || memchr(p, '\n', (size_t)(e - p)))
				return errno = EINVAL, -1;
			k = p + 1;
			while (k < e && is_space(*k))
				k++;
			kl = 0;
			while (k + kl < e && !is_space(k[kl]) && k[kl] != '"')
				kl++;
			in_user = kl == 4 && strncasecmp(k, "user", 4) == 0 && k + kl == e;
			if (kl == 4 && strncasecmp(k, "user", 4) == 0) {
				const char *t = k + kl;
				while (t < e && is_space(*t))
					t++;
				in_user = t == e;
			}
			p = e + 1;
			continue;
		}
		k = p;
		while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-'))
			p++;
		kl = (size_t)(p - k);
		while (p < end && is_space(*p))
			p++;
		if (p < end && *p == '=') {
			r = value(p + 1, end, v, &p);
			if (r < 0)
				return errno = EINVAL, -1;
		} else {
			/* a key without value (boolean true), or junk: skip the line */
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (!in_user || r != 0)
			continue;
		if (kl == 4 && strncasecmp(k, "name", 4) == 0)
			strcpy(name, v);
		else if (kl == 5 && strncasecmp(k, "email", 5) == 0)
			strcpy(email, v);
	}
	return 0;
}

static int
quote(const char *s, char *out, size_t n)
{
	size_t o = 0;

	if (n < 3)
		return -1;
	out[o++] = '"';
	for (; *s; s++) {
		if (o + 4 >= n)
			return -1;
		if (*s == '"' || *s == '\\')
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o++] = '"';
	out[o] = '\0';
	return (int)o;
}

int
gitcfg_format(const char *name, const char *email, char *out, size_t n)
{
	char qn[2 * GITCFG_VALUE_MAX + 3], qe[2 * GITCFG_VALUE_MAX + 3];
	int r;

	if (!*name && !*email) {
		if (n < 1)
			return errno = ENOSPC, -1;
		out[0] = '\0';
		return 0;
	}
	if (quote(name, qn, sizeof qn) < 0 || quote(email, qe, sizeof qe) < 0)
		return errno = ENOSPC, -1;
	r = snprintf(out, n, "[user]\n%s%s%s%s%s%s", *name ? "\tname = " : "", *name ? qn : "",
	    *name ? "\n" : "", *email ? "\temail = " : "", *email ? qe : "", *email ? "\n" : "");
	if (r < 0 || (size_t)r >= n)
		return errno = ENOSPC, -1;
	return r;
}
