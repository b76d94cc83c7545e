/* base64: the standard alphabet with padding (RFC 4648 section 4). Pure. */
#ifndef CORRAL_BASE64_H
#define CORRAL_BASE64_H
#include <stddef.h>

/* The encoded length of n bytes (without NUL). */
#define B64_LEN(n) (4 * (((n) + 2) / 3))
/* s[0..n) encoded into out (cap bytes, NUL added). Its length, or -1. */
long b64_encode(const void *s, size_t n, char *out, size_t cap);
/* Standard base64 s[0..n) (a multiple of 4 long, padding only at the end,
 * no whitespace) decoded into out (cap bytes). Its length, or -1. */
long b64_decode(const char *s, size_t n, void *out, size_t cap);

#endif
