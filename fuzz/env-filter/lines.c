/* env-filter's -f/-F text layer: any bytes give a clean result or error. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"

static struct ef_env env;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ef_err err;
	char *buf;
	size_t i, nlen;

	if (size > EF_MAX_TEXT)
		return 0;
	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	memset(&env, 0, sizeof env);
	if (ef_text(&env, buf, size, EF_FILE, "fuzz", &err) == 0 &&
	    ef_finish(&env, &err) == 0) {
		for (i = 0; i < env.n; i++) {
			/* everything that passed must re-parse and not be denied */
			if (ef_parse_line(env.var[i].kv, strlen(env.var[i].kv), &nlen) != EF_OK ||
			    ef_denied(env.var[i].kv, nlen) != NULL)
				abort();
		}
	}
	free(buf);
	return 0;
}
