/* runfiles report parses the snapshot's state (names the agent chose, from
 * a narrowed walker): any bytes give a state or a refusal with a reason,
 * never a crash; a state it accepts formats to text that parses to the
 * same state again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rf.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rf_state s, t;
	char why[256], *out;
	size_t len;

	why[0] = '\0';
	if (rf_state_parse((const char *)data, size, &s, why, sizeof why) < 0)
		return why[0] ? 0 : (abort(), 0);
	for (size_t i = 0; i < s.nd; i++)
		if (s.d[i].s0 + s.d[i].ns > s.nsub || s.d[i].f0 + s.d[i].nf > s.nf)
			abort();
	if (rf_state_format(&s, &out, &len) < 0)
		abort();
	if (rf_state_parse(out, len, &t, why, sizeof why) < 0 || t.nd != s.nd || t.nf != s.nf || t.nsub != s.nsub ||
	    t.truncated != s.truncated || strcmp(t.hooks, s.hooks) != 0)
		abort();
	for (size_t i = 0; i < s.nf; i++)
		if (strcmp(s.f[i].rel, t.f[i].rel) != 0 || memcmp(s.f[i].sha, t.f[i].sha, 32) != 0)
			abort();
	free(out);
	rf_state_free(&s);
	rf_state_free(&t);
	return 0;
}
