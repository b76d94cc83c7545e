/* layers: env-filter's environment model. Pure: no I/O, no exit.
 *
 * The new environment starts empty. Each option is a layer, applied in
 * command-line order; a later layer that gives a name a value replaces the
 * earlier value (the variable keeps its first position). Pins (-p) are
 * applied last, so a pinned value wins whatever the order. A layer that
 * gives no value (-k of an unset or dropped variable) leaves earlier ones
 * alone. Names on the never-pass list are refused whoever asks for them. */
#ifndef ENVFILTER_LAYERS_H
#define ENVFILTER_LAYERS_H
#include <stddef.h>

#define EF_MAX_VARS 1024		/* variables in the result, entries per source */
#define EF_MAX_LINE 32768		/* bytes per NAME=VALUE line, newline excluded */
#define EF_MAX_TEXT (1024 * 1024)	/* bytes per -f file or -F descriptor */
#define EF_MAX_DROP 64			/* dropped variables remembered for warnings */

enum ef_layer { EF_BASELINE, EF_KEEP, EF_SET, EF_FILE, EF_FD, EF_PIN };

/* Errors: the line (1-based, 0 when not from a text) and, for EF_E_DENIED,
 * the refused name and its reason, go to struct ef_err. */
enum ef_code {
	EF_OK,
	EF_E_NAME,	/* invalid variable name */
	EF_E_NOEQ,	/* no '=' */
	EF_E_NUL,	/* NUL byte in a line */
	EF_E_CR,	/* carriage return in a line */
	EF_E_LONG,	/* line over EF_MAX_LINE */
	EF_E_MANY,	/* over EF_MAX_VARS */
	EF_E_DENIED,	/* a never-pass name */
	EF_E_PINNED,	/* the same name pinned twice */
	EF_E_VALUE,	/* --proxy: not a port number */
};

struct ef_err {
	enum ef_code code;
	size_t line;
	const char *name;	/* EF_E_DENIED, EF_E_PINNED: the name (not terminated) */
	size_t nlen;
	const char *why;	/* EF_E_DENIED: the table's reason */
};

struct ef_var {
	const char *kv;		/* "NAME=VALUE", NUL-terminated, never copied */
	size_t nlen;		/* length of NAME */
	enum ef_layer layer;
	const char *src;	/* EF_FILE: the path, EF_FD: "fd N"; else NULL */
	size_t line;		/* EF_FILE, EF_FD: its line */
};

struct ef_drop {
	const char *name;
	size_t nlen;
	const char *shape;	/* what the value looked like, never the value */
};

struct ef_env {
	struct ef_var var[EF_MAX_VARS];
	size_t n;
	struct ef_var pin[EF_MAX_VARS];
	size_t npin;
	struct ef_drop drop[EF_MAX_DROP];
	size_t ndrop;		/* may exceed EF_MAX_DROP: only the first are kept */
};

/* The message for an error code ("line without '='", ...). */
const char *ef_strerror(enum ef_code code);
/* Names: [A-Za-z_][A-Za-z0-9_]*. 1 when valid. */
int ef_name_valid(const char *name, size_t len);
/* The reason NAME never passes, or NULL when it may. */
const char *ef_denied(const char *name, size_t len);
/* The never-pass table, for the manual and tests: pattern, kind, reason. */
struct ef_deny {
	const char *pat;
	enum { EF_EXACT, EF_NOCASE, EF_PREFIX, EF_SUFFIX_NOCASE } how;
	const char *why;
};
extern const struct ef_deny ef_deny_table[];
extern const size_t ef_deny_count;
/* The --baseline names. */
extern const char *const ef_baseline_names[];
extern const size_t ef_baseline_count;

/* Check one NAME=VALUE line of len bytes (no newline): 0, or an error code.
 * *nlen gets the length of NAME. */
enum ef_code ef_parse_line(const char *line, size_t len, size_t *nlen);

/* The layers. Each returns 0, or -1 with *err filled in. Strings are kept
 * by pointer: they must outlive env. */
int ef_baseline(struct ef_env *env, char *const caller[], struct ef_err *err);
int ef_keep(struct ef_env *env, char *const caller[], const char *name, struct ef_err *err);
/* -s and -p: kv is "NAME=VALUE". */
int ef_set(struct ef_env *env, const char *kv, enum ef_layer layer, struct ef_err *err);
/* --proxy PORT: pin the proxy variables (which no other layer may set) to
 * http://127.0.0.1:PORT, NO_PROXY and no_proxy to nothing. PORT must be a
 * number from 1 to 65535 (EF_E_VALUE otherwise). */
int ef_proxy(struct ef_env *env, const char *port, struct ef_err *err);
/* -f and -F: lines of NAME=VALUE; empty lines and lines starting with '#'
 * are skipped. buf must hold len bytes plus one more, which may be written:
 * line ends are overwritten with NUL in place. */
int ef_text(struct ef_env *env, char *buf, size_t len, enum ef_layer layer,
    const char *src, struct ef_err *err);
/* Apply the pins. After this, env->var[0..n) is the result. */
int ef_finish(struct ef_env *env, struct ef_err *err);
/* The layer's name for --explain: "baseline", "keep", "set", "file", "fd", "pin". */
const char *ef_layer_name(enum ef_layer layer);

#endif
