/* report: default, verbose and JSON output. Pure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "version.h"

struct buf {
	char *p;
	size_t len, cap;
	int full;
};

static void __attribute__((format(printf, 2, 3)))
put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->full = 1;
		return;
	}
	b->len += (size_t)n;
}

static void
putq(struct buf *b, const char *s)
{
	int n;

	if (b->full)
		return;
	n = json_quote(s, strlen(s), b->p + b->len, b->cap - b->len);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->full = 1;
		return;
	}
	b->len += (size_t)n;
}

/* closed: proven, by a filter above the boundary (judge.h) */
static const char *
result(const struct probe_result *res)
{
	return !res->proven ? "unproven" : res->above ? "closed" : "proven";
}

static void
verbose(struct buf *b, const struct probe_report *r)
{
	size_t i;

	put(b, "platform=linux tier=%s\n", probe_tier_name(r->tier));
	put(b, "kernel: %s\n", r->kernel);
	if (r->abi > 0)
		put(b, "landlock abi: %d\n", r->abi);
	else
		put(b, "landlock abi: none\n");
	put(b, "required: %s (%s)\n", probe_tier_name(r->required),
	    r->failing < 0 ? "met" : "not met");
	for (i = 0; i < r->n; i++) {
		put(b, "check %s: %s [tier %s]\n", r->checks[i].name,
		    result(&r->results[i]),
		    probe_tier_name(r->checks[i].tier));
		put(b, "  proves: %s\n", r->checks[i].claim);
		put(b, "  evidence: %s\n", r->results[i].evidence);
	}
	put(b, "note: %s\n", PROBE_LOCAL_NOTE);
}

static void
json(struct buf *b, const struct probe_report *r)
{
	size_t i;
	int j;

	put(b, "{\"platform\":\"linux\",\"tier\":");
	putq(b, probe_tier_name(r->tier));
	put(b, ",\"required\":");
	putq(b, probe_tier_name(r->required));
	put(b, ",\"met\":%s,\"failing\":", r->failing < 0 ? "true" : "false");
	if (r->failing < 0)
		put(b, "null");
	else
		putq(b, r->checks[r->failing].name);
	put(b, ",\"kernel\":");
	putq(b, r->kernel);
	put(b, ",\"landlock_abi\":%d,\"version\":", r->abi > 0 ? r->abi : 0);
	putq(b, CORRAL_VERSION);
	put(b, ",\"note\":");
	putq(b, PROBE_LOCAL_NOTE);
	put(b, ",\"checks\":[");
	for (i = 0; i < r->n; i++) {
		const struct probe_result *res = &r->results[i];

		put(b, "%s{\"name\":", i ? "," : "");
		putq(b, r->checks[i].name);
		put(b, ",\"tier\":");
		putq(b, probe_tier_name(r->checks[i].tier));
		put(b, ",\"result\":\"%s\",\"proves\":", result(res));
		putq(b, r->checks[i].claim);
		put(b, ",\"evidence\":");
		putq(b, res->evidence);
		put(b, ",\"attempts\":[");
		for (j = 0; j < res->natt; j++) {
			put(b, "%s{\"what\":", j ? "," : "");
			putq(b, r->checks[i].att[j].what);
			put(b, ",\"got\":");
			putq(b, res->att[j].got);
			put(b, ",\"want\":");
			putq(b, res->att[j].want);
			put(b, ",\"ok\":%s}", res->att[j].ok ? "true" : "false");
		}
		put(b, "]}");
	}
	put(b, "]}\n");
}

int
probe_format(enum probe_format f, const struct probe_report *r, char *out, size_t cap)
{
	struct buf b = { out, 0, cap, 0 };

	if (cap == 0) {
		errno = ENOSPC;
		return -1;
	}
	out[0] = '\0';
	switch (f) {
	case FMT_DEFAULT:
		put(&b, "platform=linux tier=%s\n", probe_tier_name(r->tier));
		break;
	case FMT_VERBOSE:
		verbose(&b, r);
		break;
	case FMT_JSON:
		json(&b, r);
		break;
	}
	if (b.full) {
		out[0] = '\0';
		errno = ENOSPC;
		return -1;
	}
	return (int)b.len;
}
