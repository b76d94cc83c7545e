/* sse: a Server-Sent Events parser (the WHATWG event stream format). Pure. */
#ifndef MCP_SSE_H
#define MCP_SSE_H
#include <stddef.h>
#include "rpc.h"

enum { SSE_ID_MAX = 255 };

struct sse {
	struct buf line, data;
	char event[32];		/* the current event's type ("" is "message") */
	size_t max;		/* longest line or event data */
	int cr, skip, overlong;
	char idbuf[SSE_ID_MAX + 1];	/* the id field of the event being read */
	int has_idbuf;
	/* what a reconnection needs: the last event id dispatched (printable
	 * ASCII only, else left as it was; "" none) and the retry field's
	 * reconnection time in ms (-1: none given). Kept across events. */
	char last_id[SSE_ID_MAX + 1];
	long retry;
};
/* A struct sse starts zeroed with .max set and .retry = -1. */

/* Feed n bytes. Each complete event with data is handed to fn with its
 * type (event field, "" when absent or too long to matter), its data
 * lines joined with a space (a raw newline in JSON is only whitespace, and
 * this keeps every message one line). Returns 0, or -1 when a line or an
 * event exceeds s->max (the rest of that event is skipped) or on ENOMEM. */
typedef void sse_fn(void *ctx, const char *event, const char *data, size_t n);
int sse_feed(struct sse *s, const char *p, size_t n, sse_fn *fn, void *ctx);
void sse_free(struct sse *s);

#endif
