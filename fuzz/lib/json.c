/* json_parse must never read out of bounds, and whatever it accepts must
 * be walkable by the helpers every program uses. The one quoter makes a
 * valid JSON string of any bytes, which reads back as those bytes when
 * they were valid UTF-8. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void
quoted(const char *s, size_t n)
{
	static char q[2048 * 6 + 3], back[2048 * 3 + 1];
	jsmntok_t t[2];
	int qn = json_quote(s, n, q, sizeof q), bn;

	if (qn < 0 || json_parse(q, (size_t)qn, t, 2) != 1 || t[0].type != JSMN_STRING ||
	    (bn = json_str(q, &t[0], back, sizeof back)) < 0)
		abort();
	if (utf8_valid(s, n) && ((size_t)bn != n || memcmp(back, s, n) != 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jsmntok_t t[256];
	char out[256];
	int n, i, k;

	quoted((const char *)data, size < 2048 ? size : 2048);
	n = json_parse((const char *)data, size, t, 256);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i = i + 1) {
		if (t[i].type == JSMN_STRING)
			(void)json_str((const char *)data, &t[i], out, sizeof out);
		if (t[i].type == JSMN_OBJECT) {
			k = json_get((const char *)data, t, i, "name");
			if (k >= n)
				abort();
		}
		if (json_next(t, i) > n)
			abort();
	}
	(void)json_pointer((const char *)data, t, n, 0, "/a/0/b~1c");
	return 0;
}
