#include <errno.h>
#include <sys/random.h>

#include "rnd.h"

int
rnd_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	ssize_t r;

	while (n > 0) {
		r = getrandom(p, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int
rnd_hex(char *out, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	unsigned char b[64];
	size_t i, k;

	for (k = 0; k < n; k += sizeof b) {
		size_t m = n - k < sizeof b ? n - k : sizeof b;
		if (rnd_bytes(b, m) < 0)
			return -1;
		for (i = 0; i < m; i++) {
			out[2 * (k + i)] = hx[b[i] >> 4];
			out[2 * (k + i) + 1] = hx[b[i] & 15];
		}
	}
	out[2 * n] = '\0';
	return 0;
}
