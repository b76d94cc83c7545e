/* jwt: base64url and the payload segment of a JSON Web Token. Pure. */
#include <stdint.h>
#include <string.h>

#include "jwt.h"

int
b64url_decode(const char *s, size_t n, char *out, size_t cap)
{
	uint32_t acc = 0;
	size_t i, o = 0;
	int bits = 0, v;

	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z') v = c - 'A';
		else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
		else if (c >= '0' && c <= '9') v = c - '0' + 52;
		else if (c == '-') v = 62;
		else if (c == '_') v = 63;
		else if (c == '=' && i + 2 >= n) break;	/* tolerate padding at the end */
		else return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= cap)
				return -1;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	if (n % 4 == 1)
		return -1;
	return (int)o;
}

int
jwt_payload(const char *v, size_t vl, char *out, size_t cap)
{
	const char *a = memchr(v, '.', vl), *b;

	b = a ? memchr(a + 1, '.', vl - (size_t)(a + 1 - v)) : NULL;
	if (a == NULL || b == NULL || (size_t)(b - a - 1) > cap * 4 / 3)
		return JWT_E_SHAPE;
	return b64url_decode(a + 1, (size_t)(b - a - 1), out, cap);
}
