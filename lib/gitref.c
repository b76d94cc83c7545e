#include <string.h>

#include "gitref.h"

int
gitref_name_ok(const char *s, size_t len)
{
	size_t i, comp = 0;	/* start of the current component */

	if (len < 6 || len > GITREF_NAME_MAX || strncmp(s, "refs/", 5) != 0)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= 0x20 || c >= 0x7f || strchr("~^:?*[\\", c) != NULL)
			return 0;
		if (c == '.' && i + 1 < len && s[i + 1] == '.')
			return 0;
		if (c == '@' && i + 1 < len && s[i + 1] == '{')
			return 0;
		if (c == '/') {
			if (i == comp)
				return 0;	/* "//" */
			if (i - comp >= 5 && memcmp(s + i - 5, ".lock", 5) == 0)
				return 0;
			comp = i + 1;
			continue;
		}
		if (i == comp && c == '.')
			return 0;
	}
	if (comp == len || s[len - 1] == '.')
		return 0;
	if (len - comp >= 5 && memcmp(s + len - 5, ".lock", 5) == 0)
		return 0;
	return 1;
}

int
gitref_oid_ok(const char *s, size_t len, size_t hexlen)
{
	int nonzero = 0;

	if (len != hexlen || (hexlen != 40 && hexlen != 64))
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		nonzero |= s[i] != '0';
	}
	return nonzero;
}

int
gitref_parse(const char *buf, size_t len, size_t hexlen, char *ref, char *oid)
{
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (memchr(buf, '\n', len) != NULL || memchr(buf, '\0', len) != NULL)
		return -1;
	if (len > 5 && memcmp(buf, "ref: ", 5) == 0) {
		if (!gitref_name_ok(buf + 5, len - 5))
			return -1;
		memcpy(ref, buf + 5, len - 5);
		ref[len - 5] = '\0';
		return 1;
	}
	if (!gitref_oid_ok(buf, len, hexlen))
		return -1;
	memcpy(oid, buf, len);
	oid[len] = '\0';
	return 0;
}

int
gitref_packed_find(const char *buf, size_t len, const char *ref, size_t hexlen, char *oid)
{
	size_t rl = strlen(ref), at = 0;
	int found = 1;

	while (at < len) {
		const char *l = buf + at, *nl = memchr(l, '\n', len - at);
		size_t n = nl ? (size_t)(nl - l) : len - at;

		size_t start = at;

		at += n + (nl != NULL);
		if (n == 0)
			continue;
		if (l[0] == '#') {
			if (start != 0)
				return -1;	/* a header is only the first line */
			continue;
		}
		if (l[0] == '^') {
			if (!gitref_oid_ok(l + 1, n - 1, hexlen))
				return -1;
			continue;
		}
		if (n < hexlen + 2 || l[hexlen] != ' ' || !gitref_oid_ok(l, hexlen, hexlen) ||
		    !gitref_name_ok(l + hexlen + 1, n - hexlen - 1))
			return -1;
		if (found == 1 && n - hexlen - 1 == rl && memcmp(l + hexlen + 1, ref, rl) == 0) {
			memcpy(oid, l, hexlen);
			oid[hexlen] = '\0';
			found = 0;
		}
	}
	return found;
}

int
gitref_gitfile(const char *buf, size_t len, char *out, size_t n)
{
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len <= 8 || memcmp(buf, "gitdir: ", 8) != 0 || len - 8 >= n ||
	    memchr(buf, '\n', len) != NULL || memchr(buf, '\0', len) != NULL)
		return -1;
	memcpy(out, buf + 8, len - 8);
	out[len - 8] = '\0';
	return 0;
}
