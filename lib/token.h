/* token: a bearer token (mcp-proxy upstream and listener, sandbox-mcp
 * listener), from a private file or a descriptor, never argv or env. */
#ifndef CORRAL_TOKEN_H
#define CORRAL_TOKEN_H
#include <stddef.h>

enum { TOKEN_MAX = 4096 };

/* 1 when t[0..n) is a usable token: visible ASCII (0x21-0x7e) only, so it
 * cannot break out of its header line. Pure. */
int token_valid(const char *t, size_t n);
/* Read the token from path (a regular file, not a symlink, owned by us,
 * no group or other access) or from fd (closed afterwards) into out (cap
 * bytes), one trailing newline dropped. -1: *why names a policy failure,
 * or it is NULL and errno says why. */
int token_read(const char *path, int fd, char *out, size_t cap, const char **why);
/* token_read, saying why it failed (msg_fatal, and a hint for a file
 * others can read): what names the token ("listen token"), fdopt the
 * option the descriptor came from. Returns 0 or -1. */
int token_load(const char *what, const char *path, int fd, const char *fdopt, char *out, size_t cap);

#endif
