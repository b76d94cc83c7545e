/* sse: a Server-Sent Events parser (the WHATWG event stream format). Pure. */
#ifndef MCP_SSE_H
#define MCP_SSE_H
#include <stddef.h>
#include "rpc.h"

struct sse {
	struct buf line, data;
	size_t max;		/* longest line or event data */
	int cr, skip, overlong;
};

/* Feed n bytes. Each complete event with data is handed to fn, its data
 * lines joined with a space (a raw newline in JSON is only whitespace, and
 * this keeps every message one line). Returns 0, or -1 when a line or an
 * event exceeds s->max (the rest of that event is skipped) or on ENOMEM. */
int sse_feed(struct sse *s, const char *p, size_t n, void (*fn)(void *, const char *, size_t), void *ctx);
void sse_free(struct sse *s);

#endif
