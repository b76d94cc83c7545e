#include <string.h>

#include "sse.h"

static int
line_done(struct sse *s, sse_fn *fn, void *ctx)
{
	const char *l = s->line.p ? s->line.p : "";
	size_t n = s->line.len, k;
	int rc = 0;

	if (n == 0) {			/* blank line: dispatch */
		if (s->has_idbuf)	/* the last event id moves even with no data */
			memcpy(s->last_id, s->idbuf, sizeof s->last_id);
		s->has_idbuf = 0;
		if (s->data.len && !s->skip)
			fn(ctx, s->event, s->data.p, s->data.len);
		s->data.len = 0;
		s->skip = 0;
		s->event[0] = '\0';
		goto out;
	}
	if (l[0] == ':' || s->skip)
		goto out;
	k = strcspn(l, ":");
	if (k == 4 && memcmp(l, "data", 4) == 0) {
		const char *v = k < n ? l + k + 1 : l + n;
		size_t vn = (size_t)(l + n - v);
		if (vn && *v == ' ')
			v++, vn--;
		if (s->data.len + vn + 1 > s->max) {
			s->data.len = 0;
			s->skip = 1;
			rc = -1;
			goto out;
		}
		if ((s->data.len && buf_add(&s->data, " ", 1) < 0) || buf_add(&s->data, v, vn) < 0) {
			s->data.len = 0;
			s->skip = 1;
			rc = -1;
		}
	}
	if (k == 5 && memcmp(l, "event", 5) == 0) {
		const char *v = k < n ? l + k + 1 : l + n;
		size_t vn = (size_t)(l + n - v);
		if (vn && *v == ' ')
			v++, vn--;
		if (vn >= sizeof s->event)
			vn = 0;
		memcpy(s->event, v, vn);
		s->event[vn] = '\0';
	}
	if (k == 2 && memcmp(l, "id", 2) == 0) {
		const char *v = k < n ? l + k + 1 : l + n;
		size_t vn = (size_t)(l + n - v), i;
		if (vn && *v == ' ')
			v++, vn--;
		/* it goes back in a Last-Event-ID header: printable ASCII only */
		for (i = 0; i < vn && (unsigned char)v[i] >= 0x20 && (unsigned char)v[i] < 0x7f; i++)
			;
		if (i == vn && vn <= SSE_ID_MAX) {
			memcpy(s->idbuf, v, vn);
			s->idbuf[vn] = '\0';
			s->has_idbuf = 1;
		}
	}
	if (k == 5 && memcmp(l, "retry", 5) == 0) {
		const char *v = k < n ? l + k + 1 : l + n;
		size_t vn = (size_t)(l + n - v), i;
		long ms = 0;
		if (vn && *v == ' ')
			v++, vn--;
		for (i = 0; i < vn && v[i] >= '0' && v[i] <= '9'; i++)
			ms = ms > 86400000 ? ms : ms * 10 + (v[i] - '0');
		if (vn && i == vn)	/* digits only, else ignored (WHATWG) */
			s->retry = ms;
	}
	/* unknown fields: ignored */
out:
	s->line.len = 0;
	return rc;
}

int
sse_feed(struct sse *s, const char *p, size_t n, sse_fn *fn, void *ctx)
{
	size_t i, start = 0;
	int rc = 0;

	for (i = 0; i < n; i++) {
		char c = p[i];
		if (c != '\n' && c != '\r')
			continue;
		if (c == '\n' && s->cr && i == start) {	/* the \n of \r\n */
			s->cr = 0;
			start = i + 1;
			continue;
		}
		s->cr = c == '\r';
		if (s->overlong || s->line.len + (i - start) > s->max ||
		    buf_add(&s->line, p + start, i - start) < 0) {
			/* drop the line, and the event it belongs to */
			s->line.len = 0;
			s->data.len = 0;
			s->overlong = 0;
			s->skip = 1;
			rc = -1;
		} else if (line_done(s, fn, ctx) < 0) {
			rc = -1;
		}
		start = i + 1;
	}
	if (start < n) {
		s->cr = 0;
		if (!s->overlong && (s->line.len + (n - start) > s->max ||
		    buf_add(&s->line, p + start, n - start) < 0)) {
			s->line.len = 0;
			s->overlong = 1;
			rc = -1;
		}
	}
	return rc;
}

void
sse_free(struct sse *s)
{
	buf_free(&s->line);
	buf_free(&s->data);
}
