#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef JSMN_HEADER
#include <jsmn.h>
#define JSMN_HEADER
#include "buf.h"
#include "json.h"

int
utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	uint32_t c;
	int k;

	while (i < n) {
		c = s[i];
		if (c < 0x80) { i++; continue; }
		if (c >= 0xc2 && c <= 0xdf) k = 1, c &= 0x1f;
		else if (c >= 0xe0 && c <= 0xef) k = 2, c &= 0x0f;
		else if (c >= 0xf0 && c <= 0xf4) k = 3, c &= 0x07;
		else return 0;
		if (n - i <= (size_t)k)
			return 0;
		for (int j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			c = (c << 6) | (s[i + j] & 0x3f);
		}
		if ((k == 2 && c < 0x800) || (k == 3 && (c < 0x10000 || c > 0x10ffff)) ||
		    (c >= 0xd800 && c <= 0xdfff))
			return 0;
		i += (size_t)k + 1;
	}
	return 1;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static int
hex4(const char *p, uint32_t *v)
{
	int i, h;

	*v = 0;
	for (i = 0; i < 4; i++) {
		if ((h = hexval(p[i])) < 0)
			return -1;
		*v = (*v << 4) | (uint32_t)h;
	}
	return 0;
}

static size_t
put_utf8(uint32_t c, char *o)
{
	if (c < 0x80) { o[0] = (char)c; return 1; }
	if (c < 0x800) { o[0] = (char)(0xc0 | c >> 6); o[1] = (char)(0x80 | (c & 0x3f)); return 2; }
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12); o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f)); return 3;
	}
	o[0] = (char)(0xf0 | c >> 18); o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f)); o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* Decode a JSON string body s[0..n). out may be NULL to only validate. */
static int
unescape(const char *s, size_t n, char *out, size_t cap)
{
	size_t i = 0, o = 0, w;
	uint32_t c, lo;
	char tmp[4];

	if (!utf8_valid(s, n))
		return errno = EINVAL, -1;
	while (i < n) {
		const char *src = s + i;
		if ((unsigned char)s[i] < 0x20)
			return errno = EINVAL, -1;
		if (s[i] != '\\') {
			w = 1; i++;
		} else {
			if (i + 1 >= n)
				return errno = EINVAL, -1;
			switch (s[i + 1]) {
			case '"': tmp[0] = '"'; break;
			case '\\': tmp[0] = '\\'; break;
			case '/': tmp[0] = '/'; break;
			case 'b': tmp[0] = '\b'; break;
			case 'f': tmp[0] = '\f'; break;
			case 'n': tmp[0] = '\n'; break;
			case 'r': tmp[0] = '\r'; break;
			case 't': tmp[0] = '\t'; break;
			case 'u':
				if (i + 6 > n || hex4(s + i + 2, &c) < 0)
					return errno = EINVAL, -1;
				i += 6;
				if (c >= 0xd800 && c <= 0xdbff) {
					if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u' ||
					    hex4(s + i + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
						return errno = EINVAL, -1;
					c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				} else if (c >= 0xdc00 && c <= 0xdfff) {
					return errno = EINVAL, -1;
				}
				w = put_utf8(c, tmp);
				src = tmp;
				goto copy;
			default:
				return errno = EINVAL, -1;
			}
			w = 1; i += 2; src = tmp;
		}
copy:
		if (out) {
			if (o + w >= cap)
				return errno = ENOSPC, -1;
			memcpy(out + o, src, w);
		}
		o += w;
	}
	if (out)
		out[o] = '\0';
	return (int)o;
}

static int
number_ok(const char *s, size_t n)
{
	size_t i = 0;

	if (i < n && s[i] == '-') i++;
	if (i >= n) return 0;
	if (s[i] == '0') i++;
	else if (s[i] >= '1' && s[i] <= '9') while (i < n && s[i] >= '0' && s[i] <= '9') i++;
	else return 0;
	if (i < n && s[i] == '.') {
		i++;
		if (i >= n || s[i] < '0' || s[i] > '9') return 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-')) i++;
		if (i >= n || s[i] < '0' || s[i] > '9') return 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') i++;
	}
	return i == n;
}

static int
primitive_ok(const char *s, size_t n)
{
	return (n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0) ||
	    (n == 4 && memcmp(s, "null", 4) == 0) || number_ok(s, n);
}

static int
ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int
json_depth_ok(const char *js, size_t len, int max)
{
	int d = 0, in = 0;

	for (size_t i = 0; i < len; i++) {
		char c = js[i];
		if (in) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in = 0;
		} else if (c == '"') {
			in = 1;
		} else if (c == '{' || c == '[') {
			if (++d > max)
				return 0;
		} else if (c == '}' || c == ']') {
			d--;
		}
	}
	return 1;
}

/* Outer extent of token t (a string's quotes included). */
static size_t tstart(const jsmntok_t *t) { return (size_t)t->start - (t->type == JSMN_STRING); }
static size_t tend(const jsmntok_t *t) { return (size_t)t->end + (t->type == JSMN_STRING); }

/* -1 when js[from..to) is whitespace around exactly one sep (none when
 * sep is 0), else the offset of the first wrong byte. */
static long
gap_at(const char *js, size_t from, size_t to, char sep)
{
	int seen = 0;

	if (to < from)
		return (long)to;
	for (size_t i = from; i < to; i++) {
		if (ws(js[i]))
			continue;
		if (js[i] != sep || !sep || seen++)
			return (long)i;
	}
	return sep && seen != 1 ? (long)to : -1;
}

/* jsmn lets stray and trailing separators through ([1,], {"a":1,}, [1 2],
 * {"a" 1}): check every gap between siblings, after a key and before a
 * close, in one pass over the tokens (document order, parent links) with a
 * stack of open containers and keys, bounded by JSON_MAX_DEPTH. Returns
 * -1, or the offset of the first wrong byte. */
static long
separators_at(const char *js, const jsmntok_t *t, int n)
{
	struct { int tok, cnt; size_t pos; } st[2 * JSON_MAX_DEPTH + 4];
	int sp = 0;
	long at;

	for (int i = 0; i <= n; i++) {
		int p = i < n ? t[i].parent : -2;
		while (sp > 0 && st[sp - 1].tok != p) {
			int c = st[--sp].tok;
			if (t[c].type == JSMN_STRING) {
				if (sp > 0)
					st[sp - 1].pos = st[sp].pos;	/* a key ends after its value */
			} else if ((at = gap_at(js, st[sp].pos, (size_t)t[c].end - 1, 0)) >= 0) {
				return at;
			}
		}
		if (i == n)
			break;
		if (p >= 0) {
			if (sp == 0)
				return (long)tstart(&t[i]);
			at = gap_at(js, st[sp - 1].pos, tstart(&t[i]),
			    t[p].type == JSMN_STRING ? ':' : st[sp - 1].cnt ? ',' : 0);
			if (at >= 0)
				return at;
			st[sp - 1].cnt++;
			st[sp - 1].pos = tend(&t[i]);
		}
		if (t[i].type == JSMN_OBJECT || t[i].type == JSMN_ARRAY ||
		    (t[i].type == JSMN_STRING && p >= 0 && t[p].type == JSMN_OBJECT)) {
			if (sp == (int)(sizeof st / sizeof st[0]))
				return (long)tstart(&t[i]);
			st[sp].tok = i;
			st[sp].cnt = 0;
			st[sp].pos = t[i].type == JSMN_STRING ? tend(&t[i]) : (size_t)t[i].start + 1;
			sp++;
		}
	}
	return -1;
}

long
json_error_at(const char *js, size_t len, const jsmntok_t *t, int n)
{
	size_t b;
	long at;

	for (int i = 0; i < n; i++) {
		size_t s = (size_t)t[i].start, l = (size_t)(t[i].end - t[i].start);
		if (t[i].type == JSMN_STRING && unescape(js + s, l, NULL, 0) < 0)
			return (long)tstart(&t[i]);
		if (t[i].type == JSMN_PRIMITIVE && !primitive_ok(js + s, l))
			return (long)s;
	}
	if ((at = separators_at(js, t, n)) >= 0)
		return at;
	for (b = len; b > 0 && ws(js[b - 1]); b--)
		;
	return n > 0 && tend(&t[0]) < b ? (long)tend(&t[0]) : 0;
}

int
json_parse(const char *js, size_t len, jsmntok_t *t, unsigned ntoks)
{
	jsmn_parser p;
	int n, i;
	size_t a, b;

	if (len > JSON_MAX_LEN)
		return errno = EFBIG, -1;
	if (memchr(js, '\0', len))
		return errno = EINVAL, -1;
	if (!json_depth_ok(js, len, JSON_MAX_DEPTH))
		return errno = ELOOP, -1;
	jsmn_init(&p);
	n = jsmn_parse(&p, js, len, t, ntoks);
	if (n == JSMN_ERROR_NOMEM)
		return errno = ENOMEM, -1;
	if (n <= 0)
		return errno = EINVAL, -1;
	/* one top-level value covering the whole input */
	for (a = 0; a < len && ws(js[a]); a++)
		;
	for (b = len; b > 0 && ws(js[b - 1]); b--)
		;
	if (t[0].start < 0 || t[0].end < 0)
		return errno = EINVAL, -1;
	if (t[0].type == JSMN_STRING) {
		if ((size_t)t[0].start != a + 1 || (size_t)t[0].end != b - 1)
			return errno = EINVAL, -1;
	} else if ((size_t)t[0].start != a || (size_t)t[0].end != b) {
		return errno = EINVAL, -1;
	}
	if (json_next(t, 0) != n)
		return errno = EINVAL, -1;
	for (i = 0; i < n; i++) {
		size_t s = (size_t)t[i].start, l = (size_t)(t[i].end - t[i].start);
		if (t[i].end < t[i].start)
			return errno = EINVAL, -1;
		if (t[i].type == JSMN_STRING && unescape(js + s, l, NULL, 0) < 0)
			return errno = EINVAL, -1;
		if (t[i].type == JSMN_PRIMITIVE && !primitive_ok(js + s, l))
			return errno = EINVAL, -1;
		/* an object's direct children are its keys: strings, one value each
		 * (by parent link: one look per token, not a walk per object) */
		if (t[i].parent >= 0 && t[t[i].parent].type == JSMN_OBJECT &&
		    (t[i].type != JSMN_STRING || t[i].size != 1))
			return errno = EINVAL, -1;
	}
	if (separators_at(js, t, n) >= 0)
		return errno = EINVAL, -1;
	return n;
}

int
json_next(const jsmntok_t *t, int i)
{
	int pending = 1;

	/* every token's size is its count of direct children (object: keys,
	 * key: its value, array: elements) */
	while (pending > 0) {
		pending += t[i].size - 1;
		i++;
	}
	return i;
}

int
json_str(const char *js, const jsmntok_t *t, char *out, size_t n)
{
	if (t->type != JSMN_STRING)
		return errno = EINVAL, -1;
	return unescape(js + t->start, (size_t)(t->end - t->start), out, n);
}

int
json_eq(const char *js, const jsmntok_t *t, const char *s)
{
	char buf[512];
	size_t n = strlen(s), rl = (size_t)(t->end - t->start);
	int l;

	/* an escape never decodes longer than it is spelled: a token shorter
	 * than s is not s */
	if (t->type != JSMN_STRING || n >= sizeof buf || rl < n)
		return 0;
	/* fast path: no escapes, so the string is its bytes (a key of another
	 * length, the common miss, never needs decoding) */
	if (memchr(js + t->start, '\\', rl) == NULL)
		return rl == n && memcmp(js + t->start, s, n) == 0;
	l = json_str(js, t, buf, sizeof buf);
	return l >= 0 && (size_t)l == n && memcmp(buf, s, n) == 0;
}

int
json_get(const char *js, const jsmntok_t *t, int obj, const char *key)
{
	int k, m, found = -1;

	if (t[obj].type != JSMN_OBJECT)
		return -1;
	k = obj + 1;
	for (m = 0; m < t[obj].size; m++) {
		if (json_eq(js, &t[k], key)) {
			if (found >= 0)
				return -2;
			found = k + 1;
		}
		k = json_next(t, k + 1);
	}
	return found;
}

int
json_int(const char *js, const jsmntok_t *t, int64_t *v)
{
	const char *s = js + t->start;
	size_t i = 0, n = (size_t)(t->end - t->start);
	int neg = 0;
	uint64_t x = 0, lim;

	if (t->type != JSMN_PRIMITIVE || n == 0)
		return errno = EINVAL, -1;
	if (s[0] == '-') { neg = 1; i = 1; }
	if (i >= n)
		return errno = EINVAL, -1;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return errno = EINVAL, -1;
		if (x > (lim - (uint64_t)(s[i] - '0')) / 10)
			return errno = ERANGE, -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

int
json_pointer(const char *js, const jsmntok_t *t, int ntok, int root, const char *ptr)
{
	char seg[256];
	const char *p = ptr, *e;
	int cur = root;
	size_t n, i, o;

	if (*p == '\0')
		return root;
	if (*p != '/')
		return -1;
	while (*p == '/') {
		p++;
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		for (i = 0, o = 0; i < n; i++) {
			if (o + 1 >= sizeof seg)
				return -1;
			if (p[i] == '~') {
				if (i + 1 >= n || (p[i + 1] != '0' && p[i + 1] != '1'))
					return -1;
				seg[o++] = p[i + 1] == '0' ? '~' : '/';
				i++;
			} else {
				seg[o++] = p[i];
			}
		}
		seg[o] = '\0';
		if (cur >= ntok)
			return -1;
		if (t[cur].type == JSMN_OBJECT) {
			cur = json_get(js, t, cur, seg);
		} else if (t[cur].type == JSMN_ARRAY) {
			long idx = 0;
			int k, m;
			if (o == 0 || o > 6 || (seg[0] == '0' && o > 1))
				return -1;
			for (i = 0; i < o; i++) {
				if (seg[i] < '0' || seg[i] > '9')
					return -1;
				idx = idx * 10 + (seg[i] - '0');
			}
			if (idx >= t[cur].size)
				return -1;
			k = cur + 1;
			for (m = 0; m < idx; m++)
				k = json_next(t, k);
			cur = k;
		} else {
			return -1;
		}
		if (cur < 0)
			return -1;
		p += n;
	}
	return cur;
}

int
json_fail(struct json_err *e, const char *js, const jsmntok_t *t, int tok, const char *fmt, ...)
{
	int line = 1, col = 1, off;
	va_list ap;

	e->line = e->col = 0;
	if (tok >= 0) {
		/* a string token starts after its quote: point at the quote */
		off = t[tok].start - (t[tok].type == JSMN_STRING);
		for (int i = 0; i < off; i++) {
			if (js[i] == '\n')
				line++, col = 1;
			else if (((unsigned char)js[i] & 0xc0) != 0x80)
				col++;
		}
		e->line = line;
		e->col = col;
	}
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
u8len(const unsigned char *s, size_t n)
{
	size_t l = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
	    (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (l == 0 || l > n || !utf8_valid((const char *)s, l))
		return 0;
	return l;
}

/* ASCII that JSON takes as it is */
static int
plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* The one JSON quoter: s[0..n) quoted into out (NULL: only counted),
 * invalid UTF-8 as U+FFFD, so that any bytes make valid JSON. Its length. */
static size_t
quote(const char *s, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, i = 0, l;
	char esc[7];

#define PUT(b, k) do { if (out) memcpy(out + o, (b), (k)); o += (k); } while (0)
	PUT("\"", 1);
	for (; i < n; i += l) {
		unsigned char c = p[i];
		if (plain(c)) {
			/* a run of ASCII that stands for itself: one copy (paths,
			 * names: nearly everything the audit log holds) */
			for (l = 1; i + l < n && plain(p[i + l]); l++)
				;
			PUT(s + i, l);
		} else if ((l = u8len(p + i, n - i)) == 0) {
			PUT("\xef\xbf\xbd", 3);
			l = 1;
		} else if (l > 1 || (c >= 0x20 && c != '"' && c != '\\')) {
			PUT(s + i, l);
		} else if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t') {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : (char)c;
			PUT(esc, 2);
		} else {
			memcpy(esc, "\\u00", 4);
			esc[4] = hx[c >> 4];
			esc[5] = hx[c & 15];
			PUT(esc, 6);
		}
	}
	PUT("\"", 1);
#undef PUT
	return o;
}

int
json_quote(const char *s, size_t n, char *out, size_t cap)
{
	size_t len = quote(s, n, NULL);

	if (len >= cap || len > INT_MAX)
		return errno = ENOSPC, -1;
	quote(s, n, out);
	out[len] = '\0';
	return (int)len;
}

int
json_quote_buf(struct buf *b, const char *s, size_t n)
{
	char *at = buf_extend(b, quote(s, n, NULL));

	if (at == NULL)
		return -1;
	quote(s, n, at);
	return 0;
}

struct keyent {
	int parent;
	const char *k;		/* the key unescaped */
	size_t n;
};

static int
keyent_cmp(const void *a, const void *b)
{
	const struct keyent *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return memcmp(x->k, y->k, x->n);
}

int
json_unique_keys(const char *js, const jsmntok_t *t, int ntok, int root)
{
	struct keyent *e;
	char *bytes;
	size_t ne = 0, off = 0, total = 0;
	int end = json_next(t, root), rc = 1;

	if (end > ntok)
		end = ntok;
	for (int i = root + 1; i < end; i++)
		if (t[i].parent >= 0 && t[t[i].parent].type == JSMN_OBJECT)
			total += (size_t)(t[i].end - t[i].start) + 1;
	e = malloc(sizeof *e * (size_t)(end - root + 1));
	bytes = malloc(total + 1);
	if (!e || !bytes) {
		free(e);
		free(bytes);
		return errno = ENOMEM, -1;
	}
	/* every key unescaped once into one block, then sorted: equal keys of
	 * one object end up side by side */
	for (int i = root + 1; i < end; i++) {
		int l;
		if (t[i].parent < 0 || t[t[i].parent].type != JSMN_OBJECT)
			continue;
		if ((l = json_str(js, &t[i], bytes + off, total + 1 - off)) < 0) {
			rc = -1;
			goto out;
		}
		e[ne++] = (struct keyent){ t[i].parent, bytes + off, (size_t)l };
		off += (size_t)l + 1;
	}
	qsort(e, ne, sizeof *e, keyent_cmp);
	for (size_t i = 1; i < ne; i++)
		if (keyent_cmp(&e[i], &e[i - 1]) == 0) {
			rc = 0;
			break;
		}
out:
	free(e);
	free(bytes);
	return rc;
}

const char *
json_type_name(const jsmntok_t *t, const char *js)
{
	switch (t->type) {
	case JSMN_OBJECT: return "an object";
	case JSMN_ARRAY: return "an array";
	case JSMN_STRING: return "a string";
	case JSMN_PRIMITIVE:
		if (js[t->start] == 't' || js[t->start] == 'f') return "a boolean";
		if (js[t->start] == 'n') return "null";
		return "a number";
	default: return "something else";
	}
}
