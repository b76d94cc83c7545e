/* jw: a small JSON writer over lib/buf.h's struct buf. Strings are written
 * lossily by lib/json's json_quote_buf: invalid UTF-8 becomes U+FFFD, so
 * any bytes (a command's output) make valid JSON. Errors are sticky:
 * check w->err once at the end. Pure. */
#ifndef SBX_JW_H
#define SBX_JW_H
#include <stddef.h>
#include <stdint.h>

#include "rpc.h"

enum { JW_DEPTH = 16 };

struct jw {
	struct buf b;
	int depth, err, after_key;
	unsigned char comma[JW_DEPTH];
};

void jw_open(struct jw *w, char kind);	/* '{' or '[' */
void jw_close(struct jw *w, char kind);	/* '}' or ']' */
void jw_key(struct jw *w, const char *k);
void jw_str(struct jw *w, const char *s);
void jw_strn(struct jw *w, const char *s, size_t n);
void jw_int(struct jw *w, int64_t v);
void jw_bool(struct jw *w, int v);
void jw_null(struct jw *w);
void jw_raw(struct jw *w, const char *json, size_t n);	/* an already valid value */

#endif
