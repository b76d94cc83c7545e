/* window: drun's byte window over a file or a stream (window.c). */
#ifndef SBX_WINDOW_H
#define SBX_WINDOW_H
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "jw.h"

/* Write offset, total_bytes and, for the bytes [offset, offset+limit)
 * of buf (limit < 0: to the end), either the lines matching re (re not
 * NULL) as matches [{line_number, byte_offset, text}], or content (base64
 * with encoding "base64" where the window is not UTF-8 text), length and
 * has_more. buf is written to (a NUL at each line end, put back). */
void window_emit(struct jw *out, char *buf, size_t len, int64_t offset, int64_t limit, const regex_t *re);

#endif
