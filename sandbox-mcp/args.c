#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "json.h"

int
sbx_err(char *err, size_t errn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errn, fmt, ap);
	va_end(ap);
	return -1;
}

static int
find(const struct targs *a, const char *key)
{
	if (a->obj < 0)
		return -1;
	return json_get(a->js, a->t, a->obj, key);
}

int
arg_tok(const struct targs *a, const char *key, int type, int required, char *err, size_t errn)
{
	int v = find(a, key);

	if (v == -2)
		return sbx_err(err, errn, "argument \"%s\" given twice", key), -2;
	if (v < 0) {
		if (required)
			return sbx_err(err, errn, "argument \"%s\" is required", key), -2;
		return -1;
	}
	if (a->t[v].type == JSMN_PRIMITIVE && a->js[a->t[v].start] == 'n' && !required)
		return -1;	/* null: as absent */
	if ((int)a->t[v].type != type)
		return sbx_err(err, errn, "argument \"%s\" must be %s", key,
		    type == JSMN_ARRAY ? "an array" : type == JSMN_STRING ? "a string" :
		    type == JSMN_OBJECT ? "an object" : "a number"), -2;
	return v;
}

int
arg_elem(const struct targs *a, int arr, int i)
{
	int k = arr + 1;

	while (i-- > 0)
		k = json_next(a->t, k);
	return k;
}

int
arg_tokstr(const struct targs *a, int k, const char *what, char *out, size_t n, char *err, size_t errn)
{
	int l;

	if (a->t[k].type != JSMN_STRING)
		return sbx_err(err, errn, "%s must be a string", what);
	if ((l = json_str(a->js, &a->t[k], out, n)) < 0)
		return sbx_err(err, errn, "%s is longer than %zu bytes", what, n - 1);
	if (strlen(out) != (size_t)l)
		return sbx_err(err, errn, "%s holds a NUL byte", what);
	return l;
}

int
arg_str(const struct targs *a, const char *key, int required, char *out, size_t n,
    char *err, size_t errn)
{
	char what[80];
	int v = arg_tok(a, key, JSMN_STRING, required, err, errn);

	*out = '\0';
	if (v == -2)
		return -1;
	if (v < 0)
		return 0;
	snprintf(what, sizeof what, "argument \"%s\"", key);
	return arg_tokstr(a, v, what, out, n, err, errn);
}

int
arg_blob(const struct targs *a, const char *key, int required, size_t max, char **out,
    size_t *len, char *err, size_t errn)
{
	int v = arg_tok(a, key, JSMN_STRING, required, err, errn), l;
	size_t raw;

	*out = NULL;
	*len = 0;
	if (v == -2)
		return -1;
	if (v < 0)
		return 0;
	raw = (size_t)(a->t[v].end - a->t[v].start);
	if (raw > max * 6 + 16 && raw / 6 > max)
		return sbx_err(err, errn, "argument \"%s\" is larger than %zu bytes", key, max);
	if ((*out = malloc(raw + 1)) == NULL)
		return sbx_err(err, errn, "out of memory");
	if ((l = json_str(a->js, &a->t[v], *out, raw + 1)) < 0 || (size_t)l > max) {
		free(*out);
		*out = NULL;
		return sbx_err(err, errn, "argument \"%s\" is larger than %zu bytes", key, max);
	}
	*len = (size_t)l;
	return 0;
}

int
arg_int(const struct targs *a, const char *key, int64_t min, int64_t max, int64_t *v,
    char *err, size_t errn)
{
	int k = arg_tok(a, key, JSMN_PRIMITIVE, 0, err, errn);
	int64_t x;

	if (k == -2)
		return -1;
	if (k < 0)
		return 0;
	if (json_int(a->js, &a->t[k], &x) < 0 || x < min || x > max)
		return sbx_err(err, errn, "argument \"%s\" must be an integer from %lld to %lld", key,
		    (long long)min, (long long)max);
	*v = x;
	return 0;
}

int
arg_bool(const struct targs *a, const char *key, int *v, char *err, size_t errn)
{
	int k = find(a, key);

	if (k == -2)
		return sbx_err(err, errn, "argument \"%s\" given twice", key);
	if (k < 0 || (a->t[k].type == JSMN_PRIMITIVE && a->js[a->t[k].start] == 'n'))
		return 0;
	if (a->t[k].type != JSMN_PRIMITIVE || (a->js[a->t[k].start] != 't' && a->js[a->t[k].start] != 'f'))
		return sbx_err(err, errn, "argument \"%s\" must be true or false", key);
	*v = a->js[a->t[k].start] == 't';
	return 0;
}

int
arg_ckpt(const struct targs *a, const char *key, char *out, size_t n, char *err, size_t errn)
{
	int k = find(a, key);
	int64_t x;

	*out = '\0';
	if (k >= 0 && a->t[k].type == JSMN_PRIMITIVE && a->js[a->t[k].start] != 'n') {
		/* drun's integer ids: the checkpoint's number */
		if (json_int(a->js, &a->t[k], &x) < 0 || x < 0 || x > 999999)
			return sbx_err(err, errn, "argument \"%s\" must be a checkpoint id (hex) or number (0 to 999999)", key);
		snprintf(out, n, "%lld", (long long)x);
		return 1;
	}
	return arg_str(a, key, 0, out, n, err, errn);
}
