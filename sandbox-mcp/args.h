/* args: tool arguments, checked. Each returns -1 with a reason in err when
 * the argument is there but wrong, or required and absent. Pure. */
#ifndef SBX_ARGS_H
#define SBX_ARGS_H
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

/* String argument key into out (n bytes, NUL added, no embedded NUL).
 * Returns its length, 0 with *out = "" when absent and not required. */
int arg_str(const struct targs *a, const char *key, int required, char *out, size_t n,
    char *err, size_t errn);
/* The same without a length cap: a fresh malloc'd copy in *out (NULL when
 * absent), its length in *len; max bounds it. */
int arg_blob(const struct targs *a, const char *key, int required, size_t max, char **out,
    size_t *len, char *err, size_t errn);
/* Integer argument: *v keeps its default when absent. */
int arg_int(const struct targs *a, const char *key, int64_t min, int64_t max, int64_t *v,
    char *err, size_t errn);
/* Boolean argument: *v keeps its default when absent. */
int arg_bool(const struct targs *a, const char *key, int *v, char *err, size_t errn);
/* A checkpoint argument: a string (a hex id, or decimal digits: a number)
 * or drun's integer (its number in session_history, 0 the oldest), as
 * text into out. Its length, 0 when absent. */
int arg_ckpt(const struct targs *a, const char *key, char *out, size_t n, char *err, size_t errn);
/* Token index of key's value (-1 absent), checked to be of type (JSMN_ARRAY...). */
int arg_tok(const struct targs *a, const char *key, int type, int required, char *err, size_t errn);
/* Element i's token of array token arr (i < size). */
int arg_elem(const struct targs *a, int arr, int i);
/* The string at token k into out: length, or -1 with a reason naming what. */
int arg_tokstr(const struct targs *a, int k, const char *what, char *out, size_t n, char *err, size_t errn);

#endif
