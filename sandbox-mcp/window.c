/* drun's byte window, one meaning for session_read_file and
 * checkpoint_read_stdstreams: offset and limit count bytes, a pattern's
 * matches give their line number and the byte offset of the line. Pure
 * but for the writer. */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "json.h"
#include "window.h"

void
window_emit(struct jw *out, char *buf, size_t len, int64_t offset, int64_t limit, const regex_t *re)
{
	size_t from = (uint64_t)offset < len ? (size_t)offset : len;
	size_t to = limit < 0 || (uint64_t)limit > len - from ? len : from + (size_t)limit;

	jw_key(out, "offset");
	jw_int(out, (int64_t)from);
	jw_key(out, "total_bytes");
	jw_int(out, (int64_t)len);
	if (re != NULL) {
		int64_t line = 1;
		jw_key(out, "matches");
		jw_open(out, '[');
		for (size_t p = 0; p < len; line++) {
			size_t e = p;
			while (e < len && buf[e] != '\n')
				e++;
			if (p >= from && e <= to) {
				char c = e < len ? buf[e] : '\0';
				if (e < len)
					buf[e] = '\0';
				if (regexec(re, buf + p, 0, NULL, 0) == 0) {
					jw_open(out, '{');
					jw_key(out, "line_number");
					jw_int(out, line);
					jw_key(out, "byte_offset");
					jw_int(out, (int64_t)p);
					jw_key(out, "text");
					jw_strn(out, buf + p, e - p);
					jw_close(out, '}');
				}
				if (e < len)
					buf[e] = c;
			}
			p = e + 1;
		}
		jw_close(out, ']');
		return;
	}
	jw_key(out, "content");
	if (to == from || (utf8_valid(buf + from, to - from) && memchr(buf + from, '\0', to - from) == NULL)) {
		jw_strn(out, to > from ? buf + from : "", to - from);
	} else {
		/* bytes that are not text come back exactly */
		char *enc = malloc(B64_LEN(to - from) + 1);
		if (enc == NULL || b64_encode(buf + from, to - from, enc, B64_LEN(to - from) + 1) < 0)
			jw_null(out);
		else
			jw_str(out, enc);
		free(enc);
		jw_key(out, "encoding");
		jw_str(out, "base64");
	}
	jw_key(out, "length");
	jw_int(out, (int64_t)(to - from));
	jw_key(out, "has_more");
	jw_bool(out, to < len);
}
