#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "jw.h"

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
	if (json_quote_buf(&w->b, k, strlen(k)) < 0 || buf_add(&w->b, ":", 1) < 0)
		w->err = 1;
	w->after_key = 1;
}

void
jw_strn(struct jw *w, const char *s, size_t n)
{
	pre(w);
	if (json_quote_buf(&w->b, s, n) < 0)
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
