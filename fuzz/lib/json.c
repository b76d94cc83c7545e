/* json_parse must never read out of bounds, and whatever it accepts must
 * be walkable by the helpers every program uses. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jsmntok_t t[256];
	char out[256];
	int n, i, k;

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
