/* gitxref_parse reads the attempt's packed-refs, which the agent wrote:
 * any bytes give a list or ENOMEM, never a crash; every entry kept is a
 * branch or tag with a well-formed id of the asked length, once each. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitxref.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gitxrefs l = { 0 };
	size_t hexlen;

	if (size == 0)
		return 0;
	hexlen = data[0] & 1 ? 64 : 40;	/* sha256 or sha1 repositories */
	if (gitxref_parse((const char *)data + 1, size - 1, hexlen, &l) == 0)
		for (size_t i = 0; i < l.n; i++) {
			const char *nm = l.v[i].name;
			if (strlen(l.v[i].oid) != hexlen || !gitref_oid_ok(l.v[i].oid, hexlen, hexlen) ||
			    !gitref_name_ok(nm, strlen(nm)) ||
			    (strncmp(nm, "refs/heads/", 11) != 0 && strncmp(nm, "refs/tags/", 10) != 0) ||
			    gitxref_find(&l, nm) != &l.v[i])
				abort();
		}
	gitxref_free(&l);
	return 0;
}
