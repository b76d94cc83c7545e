/* bash: session_bash, through corral's chain (env-filter -> confine ->
 * /bin/sh -c), after probe has proven the boundary. I/O. */
#ifndef SBX_BASH_H
#define SBX_BASH_H
#include "argv.h"
#include "sess.h"

enum {
	BASH_CMD_MAX = 64 << 10,	/* bytes of one command */
	BASH_OUT_MAX = 1 << 20,		/* bytes of stdout (and of stderr) returned */
};

/* The chain's argv for running prog (a NULL-terminated vector) in session
 * ss, and the environment env-filter itself starts with. Returns 0, or -1
 * with a reason (a grant that would expose the home or the store). */
int chain_build(struct sbx *s, const struct sess *ss, char *const *prog, struct argv *av,
    struct argv *env, char *err, size_t errn);
/* probe --quiet --require full, once per process; -1 with a reason. */
int chain_prove(struct sbx *s, char *err, size_t errn);

tool_fn tool_session_bash;

#endif
