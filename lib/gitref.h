/* gitref: git's ref files read as data. Pure: no I/O, no exit. Everything
 * here parses what an agent may have written, so every input is bounded
 * and anything unexpected is refused, never guessed at. */
#ifndef CORRAL_GITREF_H
#define CORRAL_GITREF_H
#include <stddef.h>

enum { GITREF_NAME_MAX = 255, GITREF_OID_MAX = 64 };

/* 1 when s is a full ref name git would accept (refs/..., check-ref-format
 * rules, printable ASCII only), else 0. */
int gitref_name_ok(const char *s, size_t len);
/* 1 when s[0..len) is an object id of hexlen lowercase hex digits (40 for
 * SHA-1, 64 for SHA-256) and not the null id, else 0. */
int gitref_oid_ok(const char *s, size_t len, size_t hexlen);
/* A HEAD or loose ref file: "ref: NAME\n" (returns 1, NAME into ref, at
 * least GITREF_NAME_MAX + 1 bytes) or "OID\n" (returns 0, OID into oid, at
 * least GITREF_OID_MAX + 1 bytes). -1 for anything else. */
int gitref_parse(const char *buf, size_t len, size_t hexlen, char *ref, char *oid);
/* Look ref up in a packed-refs file: 0 and its id in oid, 1 when absent,
 * -1 when a line is malformed. */
int gitref_packed_find(const char *buf, size_t len, const char *ref, size_t hexlen, char *oid);
/* A gitfile ("gitdir: PATH\n"): PATH into out (n bytes). -1 when malformed. */
int gitref_gitfile(const char *buf, size_t len, char *out, size_t n);

#endif
