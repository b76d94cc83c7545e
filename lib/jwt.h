/* jwt: base64url and the payload segment of a JSON Web Token. Pure: no
 * I/O; nothing here checks a signature (see profile.h on what that means). */
#ifndef CORRAL_JWT_H
#define CORRAL_JWT_H
#include <stddef.h>

enum { JWT_E_SHAPE = -2 };

/* base64url without padding (padding at the end is tolerated) of s[0..n)
 * into out (cap bytes). The decoded length, or -1. */
int b64url_decode(const char *s, size_t n, char *out, size_t cap);
/* The decoded payload of the JWT v[0..vl) (header.payload.signature) into
 * out. Its length; JWT_E_SHAPE when v is not three dot-separated parts
 * (or the payload cannot fit), -1 when the payload is not base64url. */
int jwt_payload(const char *v, size_t vl, char *out, size_t cap);

#endif
