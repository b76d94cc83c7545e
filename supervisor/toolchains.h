/* toolchains: what each toolchain manager installed in the home needs, as
 * data (one entry per manager, each with its reason), and what stays out.
 * A PATH directory in the home is granted only when an entry matches it,
 * and then exactly what the entry says; no entry ever grants a file or
 * directory that holds credentials (tc_secrets, checked on every grant).
 * Reads the file system (stat, glob); no exit. */
#ifndef CORRAL_TOOLCHAINS_H
#define CORRAL_TOOLCHAINS_H
#include <stddef.h>

enum { TC_MAX_BIN = 2, TC_MAX_RX = 8, TC_MAX_RO = 3, TC_MAX_ENV = 2, TC_MAX_OUT = 4 };

/* Paths are relative to the home. In bin, one component may be '%': it
 * matches any one name (not "." or ".."), and '%' in need, rx, ro and env
 * stands for what it matched. A '*' in rx or ro is a glob over what exists. */
struct toolchain {
	const char *name;
	const char *bin[TC_MAX_BIN];	/* the PATH directories (resolved) it owns */
	const char *need;		/* must exist for the entry to apply (NULL: none) */
	const char *rx[TC_MAX_RX];	/* read + execute */
	const char *ro[TC_MAX_RO];	/* read only (its global version file) */
	const char *env[TC_MAX_ENV];	/* NAME=~/REL in the agent's environment: the
					 * manager finds its data through it, not the
					 * synthetic $HOME */
	const char *out[TC_MAX_OUT];	/* what stays out: "REL: why" */
	const char *why;
};

extern const struct toolchain toolchains[];	/* ends with name == NULL */

/* Names that hold credentials, relative to any directory a grant names:
 * a grant that holds one is narrowed to its other entries (tc_grant). */
extern const char *const tc_secrets[];		/* ends with NULL */
/* The same, relative to the home: nothing at or beneath these is granted,
 * nor any directory that holds one. */
extern const char *const tc_home_secrets[];	/* ends with NULL */

/* The entry, from index *from on, whose bin matches the PATH directory dir
 * (absolute, resolved) under home; the '%' match goes to cap. Returns the
 * entry's index (and sets *from past it), or -1 when no further entry matches. */
int tc_match(const char *home, const char *dir, int *from, char *cap, size_t capn);

/* Called for each path an entry grants: ro is 1 for read-only grants. */
typedef int (*tc_fn)(void *arg, const char *path, int ro);

/* Every existing path entry e grants for the match cap, narrowed so that no
 * grant holds or lies within a secret. Returns 0, or what fn returned when
 * it was not 0. */
int tc_grants(const struct toolchain *e, const char *home, const char *cap, tc_fn fn, void *arg);

/* Grant dir (absolute) through fn, narrowed around any secret it holds: a
 * directory holding one of tc_secrets is granted entry by entry, the secret
 * and the home's secrets left out. Used for the command's install tree too. */
int tc_grant(const char *home, const char *dir, int ro, tc_fn fn, void *arg);

/* 1 when p (absolute, resolved) is, lies within, or holds one of the home's
 * secrets (tc_home_secrets). */
int tc_is_secret(const char *home, const char *p);

/* For `corral why`: the entry that grants p (absolute, resolved) when the
 * PATH directory it names is on PATH, and which of its patterns does
 * (*pattern, relative to the home). NULL when no entry grants p. */
const struct toolchain *tc_which(const char *home, const char *p, const char **pattern);

#endif
