/* argv: (corral, sandbox-mcp) growable NULL-terminated argument vectors and shell quoting. */
#ifndef CORRAL_ARGV_H
#define CORRAL_ARGV_H
#include <stddef.h>

struct argv {
	char **v;		/* NULL-terminated once anything was pushed */
	size_t n, cap;
	int err;		/* sticky: set when a push failed (ENOMEM) */
};

/* Push a copy of s (a failed push sets a->err; check it once at the end). */
void av_push(struct argv *a, const char *s);
void av_pushf(struct argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Push the strings given, up to a NULL, joined: av_pushf(a, "%s%s", x, y)
 * without a format to parse (planning pushes a note for every grant). */
void av_pushcat(struct argv *a, ...) __attribute__((sentinel));
enum { AV_PUSHF_MAX = 8192 };	/* what av_pushf and av_pushcat push is shorter (else ENAMETOOLONG) */
void av_pushv(struct argv *a, char *const *v);	/* every string of a NULL-terminated vector */
void av_free(struct argv *a);

/* A shell variable reference inside a generated argument: explain prints it
 * as "$NAME", everything else single-quoted. Never in run mode. */
#define SHVAR(name) "\001" name "\002"

/* Quote s as one POSIX shell word into out (cap bytes). With vars, SHVAR()
 * markers become "$NAME" expansions. Returns the length, -1 when it does not
 * fit. Words of only [A-Za-z0-9_@%+=:,./-] stay bare. */
int sh_quote(const char *s, int vars, char *out, size_t cap);

/* A program's verb ("PROG VERB [OPTION]..."): when argv[1] is not an
 * option, take it out (argv[0] moves up over it, for getopt) and return it;
 * NULL otherwise. */
const char *av_verb(int *argc, char ***argv);

#endif
