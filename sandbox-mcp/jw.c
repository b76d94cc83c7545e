#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "jw.h"

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

int
jw_quote(struct buf *b, const char *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	char esc[8];

	if (buf_add(b, "\"", 1) < 0)
		return -1;
	while (i < n) {
		unsigned char c = p[i];
		size_t l = u8len(p + i, n - i);
		const char *rep = NULL;
		size_t repn = 0;

		if (l == 1 && (c < 0x20 || c == '"' || c == '\\')) {
			if (c == '"') rep = "\\\"";
			else if (c == '\\') rep = "\\\\";
			else if (c == '\n') rep = "\\n";
			else if (c == '\r') rep = "\\r";
			else if (c == '\t') rep = "\\t";
			else {
				snprintf(esc, sizeof esc, "\\u00%c%c", hx[c >> 4], hx[c & 15]);
				rep = esc;
			}
			repn = strlen(rep);
		} else if (l == 0) {
			rep = "\xef\xbf\xbd";
			repn = 3;
			l = 1;
		}
		if (rep) {
			if (buf_add(b, s + i - run, run) < 0 || buf_add(b, rep, repn) < 0)
				return -1;
			run = 0;
		} else {
			run += l;
		}
		i += l;
	}
	if (buf_add(b, s + i - run, run) < 0 || buf_add(b, "\"", 1) < 0)
		return -1;
	return 0;
}

static void
pre(struct jw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth > 0 && w->comma[w->depth - 1] && buf_add(&w->b, ",", 1) < 0)
		w->err = 1;
	if (w->depth > 0)
		w->comma[w->depth - 1] = 1;
}

void
jw_open(struct jw *w, char kind)
{
	pre(w);
	if (w->depth >= JW_DEPTH || buf_add(&w->b, &kind, 1) < 0) {
		w->err = 1;
		return;
	}
	w->comma[w->depth++] = 0;
}

void
jw_close(struct jw *w, char kind)
{
	if (w->depth == 0 || buf_add(&w->b, &kind, 1) < 0) {
		w->err = 1;
		return;
	}
	w->depth--;
}

void
jw_key(struct jw *w, const char *k)
{
	pre(w);
	if (jw_quote(&w->b, k, strlen(k)) < 0 || buf_add(&w->b, ":", 1) < 0)
		w->err = 1;
	w->after_key = 1;
}

void
jw_strn(struct jw *w, const char *s, size_t n)
{
	pre(w);
	if (jw_quote(&w->b, s, n) < 0)
		w->err = 1;
}

void
jw_str(struct jw *w, const char *s)
{
	jw_strn(w, s, strlen(s));
}

void
jw_int(struct jw *w, int64_t v)
{
	char t[32];

	pre(w);
	snprintf(t, sizeof t, "%" PRId64, v);
	if (buf_adds(&w->b, t) < 0)
		w->err = 1;
}

void
jw_bool(struct jw *w, int v)
{
	pre(w);
	if (buf_adds(&w->b, v ? "true" : "false") < 0)
		w->err = 1;
}

void
jw_null(struct jw *w)
{
	pre(w);
	if (buf_adds(&w->b, "null") < 0)
		w->err = 1;
}

void
jw_raw(struct jw *w, const char *json, size_t n)
{
	pre(w);
	if (buf_add(&w->b, json, n) < 0)
		w->err = 1;
}
