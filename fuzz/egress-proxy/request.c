/* egress-proxy's request head parser sees what the agent sends: any bytes
 * give complete, incomplete or a refusal with a reason, never a crash; a
 * complete head names a host that is already normal, and a rewritten
 * absolute-form head keeps no proxy or connection header of the agent's. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "request.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[EREQ_MAX_HEAD + 512];
	const char *why = NULL, *l, *nl, *end;
	char again[HOST_MAX];
	struct ereq r;
	int rc;

	rc = ereq_parse((const char *)data, size, &r, out, sizeof out, &why);
	if (rc == 1)
		return size >= EREQ_MAX_HEAD ? (abort(), 0) : 0;
	if (rc == -1) {
		if (why == NULL || why[0] == '\0')
			abort();
		return 0;
	}
	if (rc != 0 || r.head_len > size || r.head_len < 4 || r.port == 0 || r.kind == HOST_BAD ||
	    memchr(r.host, '\0', sizeof r.host) == NULL)
		abort();
	/* the host is normal: normalizing it again changes nothing */
	if (host_normalize(r.host, strlen(r.host), 0, again) != r.kind || strcmp(again, r.host) != 0)
		abort();
	if (r.connect)
		return r.out_len != 0 ? (abort(), 0) : 0;
	if (r.out_len < 4 || r.out_len > sizeof out || memcmp(out + r.out_len - 4, "\r\n\r\n", 4) != 0 ||
	    memchr(out, '\0', r.out_len) != NULL || out[0] == ' ')
		abort();
	/* one Host, one Connection (ours), no Proxy-* header */
	end = out + r.out_len - 2;
	int host = 0, conn = 0;
	for (l = memmem(out, r.out_len, "\r\n", 2) + 2; l < end; l = nl + 2) {
		nl = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
		if (nl == NULL)
			abort();
		if ((size_t)(nl - l) >= 6 && strncasecmp(l, "proxy-", 6) == 0)
			abort();
		host += (size_t)(nl - l) >= 5 && strncasecmp(l, "host:", 5) == 0;
		conn += (size_t)(nl - l) >= 11 && strncasecmp(l, "connection:", 11) == 0;
	}
	if (host != 1 || conn != 1)
		abort();
	return 0;
}
