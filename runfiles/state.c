/* state: the snapshot's file, written by runfiles snapshot and read by
 * runfiles report (see rf.h). Pure. The format, one record a line:
 *
 *   corral-runfiles 1
 *   h HOOKS                        core.hooksPath (relative), when set
 *   d MODE RACY DEV INO CS CN MS MN SIZE NLINK REL   a directory walked
 *   s NAME                         ... one of its subdirectories
 *   f RULE SIZE LINK UNREADABLE SHA256 NAME          ... a matching file
 *   t                              a bound was reached
 *   end
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rf.h"
#include "runrules.h"

static const char magic[] = "corral-runfiles 1";

int
rf_escape(const char *s, char *out, size_t cap)
{
	size_t o = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || c == '\\') {
			if (o + 4 >= cap)
				return -1;
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
		} else {
			if (o + 1 >= cap)
				return -1;
			out[o++] = (char)c;
		}
	}
	if (o >= cap)
		return -1;
	out[o] = '\0';
	return (int)o;
}

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..n) unescaped into a new string; NULL on a bad escape or a NUL */
static char *
unescape(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	size_t j = 0;

	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			o[j++] = s[i];
			continue;
		}
		int h, l;
		if (i + 3 >= n || s[i + 1] != 'x' || (h = hexval(s[i + 2])) < 0 || (l = hexval(s[i + 3])) < 0 ||
		    (h << 4 | l) == 0) {
			free(o);
			return NULL;
		}
		o[j++] = (char)(h << 4 | l);
		i += 3;
	}
	o[j] = '\0';
	return o;
}

/* one line into b; a failure is sticky in *err */
static void __attribute__((format(printf, 3, 4)))
put(struct buf *b, int *err, const char *fmt, ...)
{
	char line[PATH_MAX * 4 + 256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line || buf_add(b, line, (size_t)n) < 0)
		*err = 1;
}

int
rf_state_format(const struct rf_state *s, char **out, size_t *len)
{
	static char q[PATH_MAX * 4 + 16];
	struct buf b = { 0 };
	char hex[65];
	int err = 0;

	put(&b, &err, "%s\n", magic);
	if (s->hooks[0] && rf_escape(s->hooks, q, sizeof q) >= 0)
		put(&b, &err, "h %s\n", q);
	for (size_t i = 0; i < s->nd && !err; i++) {
		const struct rf_dir *d = &s->d[i];
		if (rf_escape(d->rel, q, sizeof q) < 0)
			continue;
		put(&b, &err, "d %d %d %llu %llu %lld %ld %lld %ld %llu %llu %s\n", d->mode, d->racy,
		    (unsigned long long)d->dev, (unsigned long long)d->ino, (long long)d->cs, d->cn,
		    (long long)d->ms, d->mn, (unsigned long long)d->size, (unsigned long long)d->nlink, q);
		for (size_t j = d->s0; j < d->s0 + d->ns && j < s->nsub; j++)
			if (rf_escape(s->subs[j], q, sizeof q) >= 0)
				put(&b, &err, "s %s\n", q);
		for (size_t j = d->f0; j < d->f0 + d->nf && j < s->nf; j++) {
			const struct rf_file *e = &s->f[j];
			for (int k = 0; k < 32; k++)
				snprintf(hex + 2 * k, 3, "%02x", e->sha[k]);
			if (rf_escape(e->rel + e->base, q, sizeof q) >= 0)
				put(&b, &err, "f %d %llu %d %d %s %s\n", e->rule, (unsigned long long)e->size,
				    e->islink, e->unreadable, hex, q);
		}
	}
	if (s->truncated)
		put(&b, &err, "t\n");
	put(&b, &err, "end\n");
	if (err) {
		buf_free(&b);
		return errno = ENOMEM, -1;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* the next space-separated field of *p (within e) as a number in [lo, hi] */
static int
num(const char **p, const char *e, long long lo, unsigned long long hi, unsigned long long *v)
{
	const char *s = *p;
	int neg = 0;
	unsigned long long x = 0;

	if (s < e && *s == '-')
		neg = 1, s++;
	if (s >= e || *s < '0' || *s > '9')
		return -1;
	for (; s < e && *s >= '0' && *s <= '9'; s++) {
		if (x > (~0ULL - 9) / 10)
			return -1;
		x = x * 10 + (unsigned long long)(*s - '0');
	}
	if (s >= e || *s != ' ')
		return -1;
	if (neg ? (x > (unsigned long long)-(lo + 1) + 1) : x > hi)
		return -1;
	*v = neg ? 0ULL - x : x;
	*p = s + 1;
	return 0;
}

static int
fail(char *why, size_t cap, size_t line, const char *what)
{
	snprintf(why, cap, "line %zu: %s", line, what);
	return errno = EINVAL, -1;
}

int
rf_state_parse(const char *buf, size_t len, struct rf_state *s, char *why, size_t cap)
{
	const char *p = buf, *end = buf + len;
	struct rf_dir *cur = NULL;
	size_t ln = 0;
	int done = 0;

	memset(s, 0, sizeof *s);
	if (len > RF_STATE_MAX)
		return fail(why, cap, 0, "too long");
	while (p < end && !done) {
		const char *e = memchr(p, '\n', (size_t)(end - p)), *q;
		unsigned long long v[10];
		char *name;
		ln++;
		if (e == NULL)
			return rf_state_free(s), fail(why, cap, ln, "no end of line");
		if (ln == 1) {
			if ((size_t)(e - p) != sizeof magic - 1 || memcmp(p, magic, sizeof magic - 1) != 0)
				return fail(why, cap, ln, "not a runfiles state (version 1)");
			p = e + 1;
			continue;
		}
		if (e - p == 3 && memcmp(p, "end", 3) == 0) {
			done = 1;
			p = e + 1;
			continue;
		}
		if (e - p == 1 && *p == 't') {
			s->truncated = 1;
			p = e + 1;
			continue;
		}
		/* a letter, a space, the record (which may be empty: "h ") */
		if (e - p < 2 || p[1] != ' ')
			goto bad;
		q = p + 2;
		switch (*p) {
		case 'h':
			if (s->nd || (name = unescape(q, (size_t)(e - q))) == NULL)
				goto bad;
			snprintf(s->hooks, sizeof s->hooks, "%s", name);
			free(name);
			break;
		case 'd': {
			struct rf_dir d;
			static const unsigned long long max[] = { IN_N - 1, 1, ~0ULL, ~0ULL, (unsigned long long)INT64_MAX,
				999999999, (unsigned long long)INT64_MAX, 999999999, ~0ULL, ~0ULL };
			static const long long min[] = { 0, 0, 0, 0, INT64_MIN, 0, INT64_MIN, 0, 0, 0 };
			for (int i = 0; i < 10; i++)
				if (num(&q, e + 1, min[i], max[i], &v[i]) < 0)
					goto bad;
			if (s->nd >= RF_MAX_ENTRIES || (name = unescape(q, (size_t)(e - q))) == NULL)
				goto bad;
			if (s->nd == s->capd) {
				struct rf_dir *nd = realloc(s->d, (s->capd ? s->capd * 2 : 32) * sizeof *nd);
				if (nd == NULL)
					return free(name), rf_state_free(s), fail(why, cap, ln, "out of memory");
				s->d = nd;
				s->capd = s->capd ? s->capd * 2 : 32;
			}
			memset(&d, 0, sizeof d);
			d.rel = name;
			d.mode = (int)v[0];
			d.racy = (int)v[1];
			d.dev = v[2];
			d.ino = v[3];
			d.cs = (int64_t)v[4];
			d.cn = (long)v[5];
			d.ms = (int64_t)v[6];
			d.mn = (long)v[7];
			d.size = v[8];
			d.nlink = v[9];
			d.s0 = s->nsub;
			d.f0 = s->nf;
			s->d[s->nd++] = d;
			cur = &s->d[s->nd - 1];
			break;
		}
		case 's':
			if (cur == NULL || s->nsub >= RF_MAX_ENTRIES || (name = unescape(q, (size_t)(e - q))) == NULL)
				goto bad;
			if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
				free(name);
				goto bad;
			}
			if (s->nsub == s->capsub) {
				char **ns = realloc(s->subs, (s->capsub ? s->capsub * 2 : 32) * sizeof *ns);
				if (ns == NULL)
					return free(name), rf_state_free(s), fail(why, cap, ln, "out of memory");
				s->subs = ns;
				s->capsub = s->capsub ? s->capsub * 2 : 32;
			}
			s->subs[s->nsub++] = name;
			cur->ns++;
			break;
		case 'f': {
			struct rf_file f;
			size_t rl;
			memset(&f, 0, sizeof f);
			if (cur == NULL || s->nf >= RF_MAX_MATCHES)
				goto bad;
			if (num(&q, e + 1, -1, 1000, &v[0]) < 0 || ((long long)v[0] >= 0 && runrules_what((int)v[0]) == NULL) ||
			    num(&q, e + 1, 0, ~0ULL, &v[1]) < 0 || num(&q, e + 1, 0, 1, &v[2]) < 0 ||
			    num(&q, e + 1, 0, 1, &v[3]) < 0 || e - q < 66 || q[64] != ' ')
				goto bad;
			for (int k = 0; k < 32; k++) {
				int h = hexval(q[2 * k]), l = hexval(q[2 * k + 1]);
				if (h < 0 || l < 0)
					goto bad;
				f.sha[k] = (unsigned char)(h << 4 | l);
			}
			q += 65;
			if ((name = unescape(q, (size_t)(e - q))) == NULL)
				goto bad;
			if (!name[0] || strchr(name, '/') || (rl = strlen(cur->rel)) + strlen(name) + 2 > PATH_MAX ||
			    (f.rel = malloc(rl + strlen(name) + 2)) == NULL) {
				free(name);
				goto bad;
			}
			snprintf(f.rel, rl + strlen(name) + 2, "%s%s%s", cur->rel, rl ? "/" : "", name);
			f.base = rl ? rl + 1 : 0;
			free(name);
			f.rule = (int)(long long)v[0];
			f.size = v[1];
			f.islink = (int)v[2];
			f.unreadable = (int)v[3];
			if (s->nf == s->capf) {
				struct rf_file *nf = realloc(s->f, (s->capf ? s->capf * 2 : 32) * sizeof *nf);
				if (nf == NULL)
					return free(f.rel), rf_state_free(s), fail(why, cap, ln, "out of memory");
				s->f = nf;
				s->capf = s->capf ? s->capf * 2 : 32;
			}
			s->f[s->nf++] = f;
			cur->nf++;
			break;
		}
		default:
			goto bad;
		}
		p = e + 1;
		continue;
bad:
		rf_state_free(s);
		return fail(why, cap, ln, "malformed");
	}
	if (!done || p != end) {
		rf_state_free(s);
		return fail(why, cap, ln, done ? "data after the end" : "cut short (no end line)");
	}
	return 0;
}
