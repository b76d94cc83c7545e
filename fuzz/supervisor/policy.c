/* libFuzzer harness over corral's policy parser (policy_parse), applied
 * over the embedded default as corral run does. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p;
	struct json_err e;

	if (policy_default(&p, &e) != 0)
		abort();
	if (policy_parse((const char *)data, size, &p, &e) == 0) {
		if (p.nmcp > POLICY_MAX_MCP || p.connect.n > POLICY_MAX_PORTS || p.bind.n > POLICY_MAX_PORTS)
			abort();
		for (size_t i = 0; i < p.exec.n; i++)
			if (p.exec.v[i] == NULL || (p.exec.v[i][0] != '/' && p.exec.v[i][0] != '~'))
				abort();
		if (p.min_tier && policy_tier_rank(p.min_tier) < 0)
			abort();
	} else if (e.msg[0] == '\0' || e.line < 0 || (size_t)e.line > size + 1) {
		abort();
	}
	policy_free(&p);
	return 0;
}
