/* verify: ask the provider whose a token is (the profile's "verify"
 * request), over HTTPS with libcurl, outside the boundary. */
#ifndef SS_VERIFY_H
#define SS_VERIFY_H
#include <stddef.h>

#include "profile.h"

enum { VERIFY_ANSWER_MAX = 65536 };

/* Make v's request with token; put the account id the answer names into
 * acct (n bytes). cacert: trust only the CAs in that file (tests), NULL the
 * system bundle. No proxy from the environment ever sees the token.
 * Returns 0, or -1 with a one-line reason in err (the token never in it). */
int verify_account(const struct prof_verify *v, const char *token, const char *cacert,
    char *acct, size_t n, char *err, size_t errn);

#endif
