#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

char *
buf_extend(struct buf *b, size_t n)
{
	if (n > SIZE_MAX / 2 - b->len)
		return errno = ENOMEM, NULL;
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 256;
		char *q;
		while (c < b->len + n + 1)
			c *= 2;
		if ((q = realloc(b->p, c)) == NULL)
			return NULL;
		b->p = q;
		b->cap = c;
	}
	b->len += n;
	b->p[b->len] = '\0';
	return b->p + b->len - n;
}

int
buf_add(struct buf *b, const void *s, size_t n)
{
	char *at = buf_extend(b, n);

	if (at == NULL)
		return -1;
	if (n)
		memcpy(at, s, n);
	return 0;
}

int
buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
	} else {
		memmove(b->p, b->p + n, b->len - n);
		b->len -= n;
	}
	if (b->p)
		b->p[b->len] = '\0';
}
