/* libFuzzer harness over confine's rules parser (rules_parse). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sb_policy p;
	char *store = NULL;
	const char *why = NULL;
	size_t line = 0, i;

	sb_policy_init(&p);
	if (rules_parse((const char *)data, size, &p, &store, &line, &why) == 0) {
		/* every string the policy holds must be a NUL-terminated piece
		 * of the store */
		for (i = 0; i < p.npath; i++)
			if (p.path[i].path == NULL || strlen(p.path[i].path) > size)
				abort();
		if (p.npath > SB_MAX_PATHS || p.nkeep > SB_MAX_KEEPFD || p.nunix > SB_MAX_UNIX)
			abort();
	} else if (why == NULL || line > size + 1)
		abort();
	free(store);
	return 0;
}
