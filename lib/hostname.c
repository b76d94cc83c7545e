/* hostname: see hostname.h. */
#include <arpa/inet.h>
#include <string.h>
#include <wctype.h>

#include "hostname.h"

/* Lowercase a code point without depending on the locale: glibc's
 * towlower changes nothing outside ASCII in the C locale (musl's does).
 * The scripts of most host names are covered by hand, towlower the rest. */
static unsigned
lower(unsigned c)
{
	if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3AB && c != 0x3A2) ||
	    (c >= 0x410 && c <= 0x42F))
		return c + 0x20;
	if (c >= 0x400 && c <= 0x40F)
		return c + 0x50;
	if (((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) && c % 2 == 0)
		return c + 1;
	return (unsigned)towlower((wint_t)c);
}

int
punycode_encode(const unsigned *cp, size_t n, char *out, size_t outn)
{
	enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700 };
	unsigned long nn = 128, delta = 0, bias = 72, m, q, t, k;
	size_t o = 0, h, b, j;
	int first = 1;

#define PUT(ch) do { if (o + 1 >= outn) return -1; out[o++] = (char)(ch); } while (0)
	for (j = 0; j < n; j++)
		if (cp[j] < 0x80)
			PUT(cp[j]);
	h = b = o;
	if (b > 0)
		PUT('-');
	while (h < n) {
		m = ~0UL;
		for (j = 0; j < n; j++)
			if (cp[j] >= nn && cp[j] < m)
				m = cp[j];
		if ((m - nn) > (~0UL - delta) / (h + 1))
			return -1;
		delta += (m - nn) * (h + 1);
		nn = m;
		for (j = 0; j < n; j++) {
			if (cp[j] < nn && ++delta == 0)
				return -1;
			if (cp[j] != nn)
				continue;
			for (q = delta, k = BASE;; k += BASE) {
				t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
				if (q < t)
					break;
				m = t + (q - t) % (BASE - t);
				PUT(m < 26 ? 'a' + m : '0' + m - 26);
				q = (q - t) / (BASE - t);
			}
			PUT(q < 26 ? 'a' + q : '0' + q - 26);
			/* adapt the bias */
			delta = first ? delta / DAMP : delta / 2;
			delta += delta / (h + 1);
			for (k = 0; delta > ((BASE - TMIN) * TMAX) / 2; k += BASE)
				delta /= BASE - TMIN;
			bias = k + (BASE - TMIN + 1) * delta / (delta + SKEW);
			first = 0;
			delta = 0;
			h++;
		}
		delta++;
		nn++;
	}
#undef PUT
	out[o] = '\0';
	return (int)o;
}

/* One UTF-8 code point at s (of at most n bytes): its length, or 0. */
static size_t
utf8(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t l, i;
	unsigned c;


	if (s[0] < 0x80)
		return *cp = s[0], 1;
	if ((s[0] & 0xe0) == 0xc0)
		l = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		l = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		l = 4, c = s[0] & 0x07;
	else
		return 0;
	if (l > n)
		return 0;
	for (i = 1; i < l; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((l == 2 && c < 0x80) || (l == 3 && c < 0x800) || (l == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return l;
}

/* One label s[0..n) normalized onto out at *o. 0, or -1. */
static int
label(const char *s, size_t n, char *out, size_t *o)
{
	unsigned cp[64];
	size_t i, k = 0, l, ascii = 1;
	char buf[64];
	int r;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i += l) {
		if (k == 64 || (l = utf8((const unsigned char *)s + i, n - i, &cp[k])) == 0)
			return -1;
		if (cp[k] >= 0x80) {
			ascii = 0;
			cp[k] = lower(cp[k]);
		} else if (cp[k] >= 'A' && cp[k] <= 'Z')
			cp[k] += 'a' - 'A';
		if (cp[k] < 0x80 && !((cp[k] >= 'a' && cp[k] <= 'z') ||
		    (cp[k] >= '0' && cp[k] <= '9') || cp[k] == '-'))
			return -1;
		k++;
	}
	if (ascii) {
		for (i = 0; i < k; i++)
			buf[i] = (char)cp[i];
		r = (int)k;
	} else {
		memcpy(buf, "xn--", 4);
		r = punycode_encode(cp, k, buf + 4, sizeof buf - 4);
		if (r < 0)
			return -1;
		r += 4;
	}
	if (r > 63 || buf[0] == '-' || buf[r - 1] == '-' || *o + (size_t)r + 1 >= HOST_MAX)
		return -1;
	memcpy(out + *o, buf, (size_t)r);
	*o += (size_t)r;
	return 0;
}

enum host_kind
host_normalize(const char *s, size_t len, int pattern, char out[HOST_MAX])
{
	char tmp[HOST_MAX + 2];
	unsigned char a[16];
	size_t o = 0, i, st;
	int wild = 0;

	out[0] = '\0';
	if (len == 0 || len > HOST_MAX + 1 || memchr(s, '\0', len))
		return HOST_BAD;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (tmp[0] == '[' && tmp[len - 1] == ']') {
		tmp[len - 1] = '\0';
		if (inet_pton(AF_INET6, tmp + 1, a) != 1)
			return HOST_BAD;
		inet_ntop(AF_INET6, a, out, HOST_MAX);
		return HOST_IP6;
	}
	if (inet_pton(AF_INET6, tmp, a) == 1) {
		inet_ntop(AF_INET6, a, out, HOST_MAX);
		return HOST_IP6;
	}
	/* one trailing dot: a name's root, and after a dotted quad still that
	 * address (as URL parsers read it), so "1.2.3.4." is the IPv4 literal
	 * and normalizing twice gives the same kind */
	if (len > 1 && tmp[len - 1] == '.')
		tmp[--len] = '\0';
	if (inet_pton(AF_INET, tmp, a) == 1) {
		inet_ntop(AF_INET, a, out, HOST_MAX);
		return HOST_IP4;
	}
	i = 0;
	if (pattern && len > 2 && tmp[0] == '*' && tmp[1] == '.') {
		wild = 1;
		memcpy(out, "*.", 2);
		o = i = 2;
	}
	for (st = i; i <= len; i++) {
		if (i < len && tmp[i] != '.')
			continue;
		if (st != (wild ? 2u : 0u))
			out[o++] = '.';
		if (label(tmp + st, i - st, out, &o) != 0) {
			out[0] = '\0';
			return HOST_BAD;
		}
		st = i + 1;
	}
	out[o] = '\0';
	return wild ? HOST_WILD : HOST_NAME;
}

int
host_match(const char *pattern, const char *host)
{
	size_t pl, hl;

	if (pattern[0] == '*' && pattern[1] == '.') {
		pl = strlen(pattern + 1);	/* ".NAME" */
		hl = strlen(host);
		return hl > pl && strcmp(host + hl - pl, pattern + 1) == 0;
	}
	return strcmp(pattern, host) == 0;
}
