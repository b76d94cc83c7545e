/* The SSE reader sees whatever an HTTP upstream streams: any bytes, in any
 * split, give events within the bound, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

static void
on_event(void *ctx, const char *event, const char *data, size_t n)
{
	if (n > 1024 || memchr(data, '\n', n) || strlen(event) >= 32)
		abort();
	(*(size_t *)ctx)++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sse s = { .max = 1024 };
	size_t off = 0, events = 0, step = size ? (size_t)data[0] % 61 + 1 : 1;

	while (off < size) {
		size_t n = size - off < step ? size - off : step;
		(void)sse_feed(&s, (const char *)data + off, n, on_event, &events);
		off += n;
	}
	sse_free(&s);
	return 0;
}
