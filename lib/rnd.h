/* rnd: kernel randomness, as bytes or lowercase hex. */
#ifndef CORRAL_RND_H
#define CORRAL_RND_H
#include <stddef.h>

int rnd_bytes(void *buf, size_t n);
/* n random bytes written as 2n hex digits plus NUL into out (2n+1 bytes). */
int rnd_hex(char *out, size_t n);

#endif
