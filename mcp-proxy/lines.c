/* lines: newline-delimited framing, bounded, and flushing what is queued. */
#include <errno.h>
#include <unistd.h>

#include "msg.h"
#include "proxy_int.h"

/* Read what fd has, hand complete lines to fn. A line longer than max is
 * dropped whole (memory stays bounded) and reported once with len 0 and
 * line NULL. */
/* A line over the limit: fn gets NULL, and p->over the start of it (what
 * was buffered, or the chunk), so the upstream's oversized answer can
 * still be matched to its request. */
static void
overflow(struct proxy *p, int who, struct buf *rd, const char *s, size_t sn,
    void (*fn)(struct proxy *, int, const char *, size_t))
{
	p->over_p = rd->len ? rd->p : s;
	p->over_n = rd->len ? rd->len : sn;
	fn(p, who, NULL, 0);
	rd->len = 0;
	p->over_p = NULL;
	p->over_n = 0;
}

int
feed(struct proxy *p, int fd, struct buf *rd, int *discard, size_t max,
    void (*fn)(struct proxy *, int, const char *, size_t), int who)
{
	char chunk[CHUNK];
	ssize_t n = read(fd, chunk, sizeof chunk);
	size_t i, start;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? FEED_OK : FEED_ERR;
	if (n == 0)
		return FEED_EOF;
	for (start = 0, i = 0; i < (size_t)n; i++) {
		if (chunk[i] != '\n')
			continue;
		if (*discard) {
			*discard = 0;
		} else if (rd->len + (i - start) > max) {
			overflow(p, who, rd, chunk + start, i - start, fn);
		} else if (rd->len) {
			if (buf_add(rd, chunk + start, i - start) < 0) {
				overflow(p, who, rd, chunk + start, i - start, fn);
			} else {
				fn(p, who, rd->p, rd->len);
				rd->len = 0;
			}
		} else {
			fn(p, who, chunk + start, i - start);
		}
		start = i + 1;
		if (p->state == UP_DOWN && who < 0)
			return FEED_ERR;	/* the upstream was dropped meanwhile */
	}
	if (start < (size_t)n && !*discard) {
		if (rd->len + ((size_t)n - start) > max || buf_add(rd, chunk + start, (size_t)n - start) < 0) {
			*discard = 1;
			overflow(p, who, rd, chunk + start, (size_t)n - start, fn);
		}
	}
	if (rd->len == 0 && rd->cap > 4 * CHUNK)
		buf_free(rd);
	return FEED_OK;
}

void
client_feed_line(struct proxy *p, int c, const char *line, size_t len)
{
	if (line == NULL) {
		conn_error(p, c, NULL, 0, RPC_INVALID_REQUEST, "message too large");
		return;
	}
	if (len && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return;		/* blank lines are keep-alives */
	client_line(p, c, line, len);
}

void
up_feed_line(struct proxy *p, int who, const char *line, size_t len)
{
	(void)who;
	if (line == NULL) {
		up_oversized(p, p->over_p, p->over_n);
		return;
	}
	if (len && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return;
	up_line(p, line, len);
}

int
flush(int fd, struct buf *b)
{
	ssize_t n;

	while (b->len) {
		n = write(fd, b->p, b->len);
		if (n < 0)
			return errno == EINTR ? 0 : errno == EAGAIN ? 0 : -1;
		buf_consume(b, (size_t)n);
	}
	if (b->cap > 4 * CHUNK)
		buf_free(b);
	return 0;
}
