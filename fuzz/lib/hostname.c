/* The host normaliser sees names the agent chose (egress-proxy's CONNECT
 * and URLs, IDNA text): any bytes give a kind or HOST_BAD, never a crash;
 * a normal name is short, plain ASCII, normal again unchanged and matches
 * itself. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostname.h"

static void
check(const char *s, size_t n, int pattern)
{
	char out[HOST_MAX], again[HOST_MAX];
	enum host_kind k = host_normalize(s, n, pattern, out);
	size_t len;

	if (k == HOST_BAD)
		return;
	if (k < HOST_NAME || k > HOST_IP6 || (k == HOST_WILD && !pattern) ||
	    memchr(out, '\0', HOST_MAX) == NULL)
		abort();
	len = strlen(out);
	if (len == 0 || len > 253)
		abort();
	for (size_t i = 0; i < len; i++)
		if (!((out[i] >= 'a' && out[i] <= 'z') || (out[i] >= '0' && out[i] <= '9') ||
		    strchr("-.:*[]", out[i]) != NULL))
			abort();
	if (host_normalize(out, len, pattern, again) != k || strcmp(out, again) != 0)
		abort();
	if (k == HOST_NAME && !host_match(out, out))
		abort();
	if (k == HOST_WILD && host_match(out, out + 2))
		abort();	/* "*.NAME" wants a label before NAME */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned cp[64];
	char puny[256];
	size_t n = 0;

	check((const char *)data, size, 0);
	check((const char *)data, size, 1);
	for (size_t i = 0; i + 3 <= size && n < 64; i += 3)
		cp[n++] = ((unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8 | data[i + 2]) % 0x110000;
	int r = punycode_encode(cp, n, puny, sizeof puny);
	if (r >= 0 && ((size_t)r >= sizeof puny || puny[r] != '\0'))
		abort();
	return 0;
}
