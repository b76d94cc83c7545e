/* hostname: host names as an allowlist compares them. Pure.
 *
 * A name is normalized once: one trailing dot dropped, ASCII lowercased,
 * each label holding non-ASCII text (UTF-8) lowercased and written as
 * IDNA punycode ("xn--..."), every label 1-63 of [a-z0-9-] not starting or
 * ending with '-', at most 253 bytes in all. An IP literal (IPv4 dotted
 * quad, IPv6 bare or in brackets) becomes its canonical text. A pattern may
 * also be "*.NAME": any name with one or more labels before NAME. */
#ifndef CORRAL_HOSTNAME_H
#define CORRAL_HOSTNAME_H
#include <stddef.h>

enum host_kind { HOST_BAD = -1, HOST_NAME = 0, HOST_WILD, HOST_IP4, HOST_IP6 };

#define HOST_MAX 254	/* 253 bytes and the NUL */

/* Normalize s[0..len) into out (HOST_MAX bytes): its kind, or HOST_BAD
 * (wildcards only when pattern is 1). For HOST_WILD, out is "*.NAME". */
enum host_kind host_normalize(const char *s, size_t len, int pattern, char out[HOST_MAX]);
/* Does the normalized host match the normalized pattern? */
int host_match(const char *pattern, const char *host);
/* RFC 3492 punycode of the code points cp[0..n) into out (outn bytes,
 * NUL-terminated): its length, or -1 when it does not fit. */
int punycode_encode(const unsigned *cp, size_t n, char *out, size_t outn);

#endif
