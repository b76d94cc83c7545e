/* drun's config.toml is hostile input to `sandbox-mcp config import-toml`
 * as much as any file: any bytes give either one JSON object that parses
 * (and converts the same way twice) or an error with a message and a
 * position inside the input, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static jsmntok_t t[8192];
	struct buf a = { 0 }, b = { 0 };
	struct json_err e;
	int rc = toml_to_json((const char *)data, size, &a, &e);

	if (rc < 0) {
		if (e.msg[0] == '\0' || e.line < 1 || e.col < 1)
			abort();
	} else {
		if (a.p == NULL || json_parse(a.p, a.len, t, 8192) < 1 || t[0].type != JSMN_OBJECT)
			abort();
		if (toml_to_json((const char *)data, size, &b, &e) < 0 || b.len != a.len || memcmp(a.p, b.p, a.len) != 0)
			abort();
	}
	buf_free(&a);
	buf_free(&b);
	return 0;
}
