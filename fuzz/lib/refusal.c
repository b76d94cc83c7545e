/* The refusal record parser sees what a pipe holds: any bytes give a
 * record or -1, never a crash, and a record formats back within bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "refusal.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct refusal r, b;
	char line[REFUSAL_LINE_MAX + 1];
	int n;

	if (refusal_parse((const char *)data, size, &r) == 0) {
		n = refusal_format(&r, line, sizeof line);
		if (n <= 0 || n > REFUSAL_LINE_MAX || refusal_parse(line, (size_t)n - 1, &b) != 0 ||
		    memcmp(&r, &b, sizeof r) != 0)
			abort();
	}
	refusal_escape(data, size < 400 ? size : 400, line, sizeof line);
	if (strpbrk(line, " \n\r\t") != NULL)
		abort();
	return 0;
}
