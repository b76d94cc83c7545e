/*
 * json: the checks jsmn leaves to us. jsmn tokenizes; it does not validate.
 * Every file but json.c includes jsmn with JSMN_HEADER; JSMN_STRICT and
 * JSMN_PARENT_LINKS come from the build flags, so every unit agrees.
 * Pure: no I/O.
 */
#ifndef CORRAL_JSON_H
#define CORRAL_JSON_H
#include <stddef.h>
#include <stdint.h>

#define JSMN_HEADER
#include <jsmn.h>

enum { JSON_MAX_LEN = 1 << 24 };	/* jsmn offsets are int: bound every input */
/* Deepest nesting of objects and arrays json_parse accepts. jsmn closes a
 * container by walking up from the last token, so its time grows with the
 * square of the depth; bounded, every check here is linear in the size. */
enum { JSON_MAX_DEPTH = 64 };

/* Tokenize js[0..len) into toks (ntoks of them) and check the result is one
 * well-formed value: a single top-level token covering the input (surrounding
 * whitespace aside), strings valid UTF-8 with valid escapes, numbers in JSON
 * grammar. Returns the token count, or -1 (errno EINVAL malformed, ENOMEM too
 * many tokens, EFBIG too long, ELOOP nested deeper than JSON_MAX_DEPTH). */
int json_parse(const char *js, size_t len, jsmntok_t *toks, unsigned ntoks);
/* "an object", "an array", "a string", "a boolean", "null", "a number":
 * what token t of js is, for messages. */
const char *json_type_name(const jsmntok_t *t, const char *js);
/* 1 when no object or array in js[0..len) is nested deeper than max (the
 * top level is depth 1); brackets inside strings do not count. One pass,
 * stopping at the first level too deep: run it before jsmn does. */
int json_depth_ok(const char *js, size_t len, int max);
/* Where a document jsmn tokenized (t, n tokens) but json_parse refused
 * goes wrong: the byte offset of the first bad token, separator or
 * trailing text (0 when none is found). For error messages. */
long json_error_at(const char *js, size_t len, const jsmntok_t *t, int n);
/* Index of the token after t[i] and all its children. */
int json_next(const jsmntok_t *t, int i);
/* In object t[obj], the value token for key (compared after unescaping), or
 * -1 when absent, -2 when the key appears more than once (never pick one). */
int json_get(const char *js, const jsmntok_t *t, int obj, const char *key);
/* Unescape string token t into out (n bytes with room for NUL). Returns the
 * length, or -1 (ENOSPC, EINVAL). Embedded NULs are kept: check the length. */
int json_str(const char *js, const jsmntok_t *t, char *out, size_t n);
/* 1 when string token t unescapes to exactly s (no embedded NUL), else 0. */
int json_eq(const char *js, const jsmntok_t *t, const char *s);
/* Integer primitive (no fraction or exponent) into *v; -1 EINVAL/ERANGE. */
int json_int(const char *js, const jsmntok_t *t, int64_t *v);
/* RFC 6901 pointer ("" is the root) from token root; value index or -1. */
int json_pointer(const char *js, const jsmntok_t *t, int ntok, int root, const char *ptr);
/* 1 when no object in the value t[root] (of the ntok tokens json_parse
 * made) has two keys that unescape to the same bytes, 0 when one has, -1
 * (ENOMEM). Sorting, not pairwise: O(k log k) in the k keys. */
int json_unique_keys(const char *js, const jsmntok_t *t, int ntok, int root);
/* 1 when s[0..n) is valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
int utf8_valid(const char *s, size_t n);
/* A configuration error (corral's policy, sandbox-mcp's config): where,
 * and what. */
struct json_err {
	int line, col;		/* 1-based, in characters; 0 when the whole input is at fault */
	char msg[256];
};
/* Fill e: the position of token tok of js (a string's opening quote; tok
 * < 0: no position) and the message. Returns -1, for "return fail(...)". */
int json_fail(struct json_err *e, const char *js, const jsmntok_t *t, int tok, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The one JSON quoter: s[0..n) as a JSON string with quotes, control bytes
 * escaped, invalid UTF-8 as U+FFFD (any bytes make valid JSON; at most 6
 * bytes out per byte in, and 2). json_quote writes into out (size cap):
 * the length written (without NUL), or -1 ENOSPC. json_quote_buf appends
 * to b: 0, or -1 ENOMEM. */
struct buf;
int json_quote(const char *s, size_t n, char *out, size_t cap);
int json_quote_buf(struct buf *b, const char *s, size_t n);

#endif
