/* libFuzzer harness over the audit record parser (denials_parse). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "denials.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct denials ds;
	int type = size ? 1423 + data[0] % 3 : 1423;

	if (size > 0) {
		data++;
		size--;
	}
	if (ds.n == DENIALS_MAX)
		memset(&ds, 0, sizeof ds);
	denials_parse(&ds, type == 1425 ? 1300 : type, (const char *)data, size, 1);
	if (ds.n > DENIALS_MAX || strlen(ds.domain) >= sizeof ds.domain)
		abort();
	for (size_t i = 0; i < ds.n; i++)
		if (strlen(ds.d[i].object) >= sizeof ds.d[i].object || strlen(ds.d[i].exe) >= sizeof ds.d[i].exe)
			abort();
	return 0;
}
