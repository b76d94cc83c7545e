/* base64: the standard alphabet with padding. Pure. */
#include <string.h>

#include "base64.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

long
b64_encode(const void *src, size_t n, char *out, size_t cap)
{
	const unsigned char *v = src;
	size_t i, o = 0;

	if (n > ((size_t)-1 / 4) * 3 - 3 || B64_LEN(n) + 1 > cap)
		return -1;
	for (i = 0; i < n; i += 3) {
		unsigned a = v[i], b = i + 1 < n ? v[i + 1] : 0, c = i + 2 < n ? v[i + 2] : 0;
		out[o++] = B64[a >> 2];
		out[o++] = B64[((a & 3) << 4) | (b >> 4)];
		out[o++] = i + 1 < n ? B64[((b & 15) << 2) | (c >> 6)] : '=';
		out[o++] = i + 2 < n ? B64[c & 63] : '=';
	}
	out[o] = '\0';
	return (long)o;
}

static int
val(char c)
{
	const char *p = c ? strchr(B64, c) : NULL;
	return p ? (int)(p - B64) : -1;
}

long
b64_decode(const char *s, size_t n, void *dst, size_t cap)
{
	unsigned char *out = dst;
	size_t i, o = 0;

	if (n % 4)
		return -1;
	for (i = 0; i < n; i += 4) {
		int a = val(s[i]), b = val(s[i + 1]), c, d, last = i + 4 == n;
		if (a < 0 || b < 0)
			return -1;
		c = s[i + 2] == '=' && last ? -2 : val(s[i + 2]);
		d = s[i + 3] == '=' && last ? -2 : val(s[i + 3]);
		if (c == -1 || d == -1 || (c == -2 && d != -2))
			return -1;
		if (o + 1 + (c >= 0) + (d >= 0) > cap)
			return -1;
		out[o++] = (unsigned char)((a << 2) | (b >> 4));
		if (c >= 0)
			out[o++] = (unsigned char)(((b & 15) << 4) | (c >> 2));
		if (d >= 0)
			out[o++] = (unsigned char)(((c & 3) << 6) | d);
	}
	return (long)o;
}
