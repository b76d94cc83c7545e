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
 * ss, and the environment env-filter itself starts with; rfd > 2: confine
 * --refusals rfd. Returns 0, or -1 with a reason (a grant that would
 * expose the home or the store). */
int chain_build(struct sbx *s, const struct sess *ss, char *const *prog, int rfd, struct argv *av,
    struct argv *env, char *err, size_t errn);
/* The chain for a staged install: prog is interp resolved in the
 * commands' PATH (a clear error when it is not there), then args; pins
 * (NAME=VALUE) set in its environment; only stage writable, nothing of the
 * session readable; net: confine's network options (NULL: the network as
 * it is). */
int chain_build_stage(struct sbx *s, const char *stage, const char *interp, char *const *args,
    char *const *pins, char *const *net, struct argv *av, struct argv *env, char *err, size_t errn);
/* probe --quiet --require full, once per process; -1 with a reason. */
int chain_prove(struct sbx *s, char *err, size_t errn);
/* 1 when name is found in the PATH commands get. */
int chain_on_path(struct sbx *s, const char *name);

/* A stream into the result: name (the bytes kept), name_bytes (all that
 * was written), name_truncated. */
void out_stream(struct jw *out, const char *name, const struct buf *b, uint64_t total);

struct refusals;
/* The boundary's refusals of one command: a pipe whose write end (the
 * return, > 2) is confine's --refusals; NULL (and -1) when none can be
 * had, and the command runs without. */
struct refusals *out_refusals_open(int *wfd);
/* After the command's tree ended: "refusals" [{kind, dest, why, pid, exe,
 * comm}] (in arrival order, at most REFUSALS_MAX), "refusals_more" and
 * "refusals_dropped" (the broker could not write them); frees rs. */
void out_refusals(struct jw *out, struct refusals *rs);

struct limits;
/* Each command's bounds from the configuration (max_processes,
 * max_memory_mb) into l; NULL when both are 0 (unbounded). */
const struct limits *sbx_limits(const struct sbx *s, struct limits *l);

tool_fn tool_session_bash;

#endif
