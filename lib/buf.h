/* buf: a growable byte buffer, always NUL-terminated past len. */
#ifndef CORRAL_BUF_H
#define CORRAL_BUF_H
#include <stddef.h>

struct buf {
	char *p;
	size_t len, cap;
};

/* Append s[0..n). Returns 0, or -1 with errno ENOMEM (nothing appended). */
int buf_add(struct buf *b, const void *s, size_t n);
/* Append n bytes for the caller to fill: where they start, or NULL with
 * errno ENOMEM (nothing appended). */
char *buf_extend(struct buf *b, size_t n);
/* Append the string s. */
int buf_adds(struct buf *b, const char *s);
/* Release the memory; b is empty and reusable afterwards. */
void buf_free(struct buf *b);
/* Drop the first n bytes (all of them when n >= len). */
void buf_consume(struct buf *b, size_t n);

#endif
