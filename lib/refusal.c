/* refusal: the broker's refusal records as text (see refusal.h). Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refusal.h"

static int
plain(unsigned char c)
{
	return c >= 0x21 && c <= 0x7e && c != '%';
}

size_t
refusal_escape(const void *in, size_t n, char *out, size_t outn)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = in;
	size_t o = 0;

	if (outn == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (plain(s[i])) {
			if (o + 1 >= outn)
				break;
			out[o++] = (char)s[i];
		} else {
			if (o + 3 >= outn)
				break;
			out[o++] = '%';
			out[o++] = hex[s[i] >> 4];
			out[o++] = hex[s[i] & 15];
		}
	}
	out[o] = '\0';
	return o;
}

static int
hexdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/* A value as refusal_escape writes them: plain bytes and %XX only. */
static int
valid(const char *v, size_t n, int may_be_empty)
{
	if (n == 0)
		return may_be_empty ? 0 : -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '%') {
			if (i + 2 >= n || !hexdigit(v[i + 1]) || !hexdigit(v[i + 2]))
				return -1;
			i += 2;
		} else if (!plain((unsigned char)v[i]))
			return -1;
	}
	return 0;
}

int
refusal_format(const struct refusal *r, char *out, size_t n)
{
	int w;

	if (r->dropped)
		w = snprintf(out, n, "dropped n=%llu t=%lld\n", r->dropped, (long long)r->when_ms);
	else {
		if (valid(r->kind, strlen(r->kind), 0) || valid(r->dest, strlen(r->dest), 0) ||
		    valid(r->why, strlen(r->why), 0) || valid(r->exe, strlen(r->exe), 1) ||
		    valid(r->comm, strlen(r->comm), 1))
			return -1;
		w = snprintf(out, n, "refused t=%lld kind=%s dest=%s why=%s pid=%ld exe=%s comm=%s\n",
		    (long long)r->when_ms, r->kind, r->dest, r->why, r->pid, r->exe, r->comm);
	}
	return w < 0 || (size_t)w >= n || w > REFUSAL_LINE_MAX ? -1 : w;
}

/* The next "key=value" of line[*at..len): value copied into out[0..n). */
static int
take(const char *line, size_t len, size_t *at, const char *key, char *out, size_t n,
    int may_be_empty)
{
	size_t kl = strlen(key), s, e;

	s = *at;
	if (s >= len || len - s < kl + 1 || memcmp(line + s, key, kl) != 0 || line[s + kl] != '=')
		return -1;
	s += kl + 1;
	for (e = s; e < len && line[e] != ' '; e++)
		;
	if (e - s >= n || valid(line + s, e - s, may_be_empty) != 0)
		return -1;
	memcpy(out, line + s, e - s);
	out[e - s] = '\0';
	*at = e < len ? e + 1 : e;
	return 0;
}

static int
number(const char *v, long long max, long long *out)
{
	char *end;
	long long x;

	if (v[0] < '0' || v[0] > '9' || strlen(v) > 19)
		return -1;
	x = strtoll(v, &end, 10);
	if (*end || x < 0 || x > max)
		return -1;
	*out = x;
	return 0;
}

int
refusal_parse(const char *line, size_t len, struct refusal *r)
{
	char t[24], p[24];
	size_t at;
	long long v;

	memset(r, 0, sizeof *r);
	if (len > REFUSAL_LINE_MAX || memchr(line, '\0', len))
		return -1;
	if (len > 8 && memcmp(line, "dropped ", 8) == 0) {
		at = 8;
		if (take(line, len, &at, "n", p, sizeof p, 0) || number(p, (long long)1 << 62, &v) ||
		    v == 0)
			return -1;
		r->dropped = (unsigned long long)v;
		if (take(line, len, &at, "t", t, sizeof t, 0) || number(t, (long long)1 << 52, &v) ||
		    at != len)
			return -1;
		r->when_ms = v;
		return 0;
	}
	if (len <= 8 || memcmp(line, "refused ", 8) != 0)
		return -1;
	at = 8;
	if (take(line, len, &at, "t", t, sizeof t, 0) || number(t, (long long)1 << 52, &v))
		return -1;
	r->when_ms = v;
	if (take(line, len, &at, "kind", r->kind, sizeof r->kind, 0) ||
	    take(line, len, &at, "dest", r->dest, sizeof r->dest, 0) ||
	    take(line, len, &at, "why", r->why, sizeof r->why, 0) ||
	    take(line, len, &at, "pid", p, sizeof p, 0) || number(p, 1 << 30, &v))
		return -1;
	r->pid = (long)v;
	if (take(line, len, &at, "exe", r->exe, sizeof r->exe, 1) ||
	    take(line, len, &at, "comm", r->comm, sizeof r->comm, 1) || at != len)
		return -1;
	return 0;
}
