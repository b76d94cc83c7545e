/* projenv: a project's environment (corral env, corral run --env) and
 * corral signin, through session-store (envcmd.c, signin.c). */
#ifndef CORRAL_PROJENV_H
#define CORRAL_PROJENV_H
#include <stddef.h>

#include "plan.h"

struct audit;

/* Why NAME (len bytes) is the agent's own and never a project variable
 * (HOME, TMPDIR, the XDG pins, its config directory and sign-in variables,
 * CORRAL_*), or NULL. */
const char *projenv_own(const char *name, size_t len);
/* Release pl->env_project for pl->attempt into a pipe: pl->env_fd is its
 * read end (inheritable, for env-filter -F). 0, or -1 reported. */
int projenv_open(struct plan *pl, char *const senv[], struct audit *au);
/* session-store ARGS (found beside corral, the store from HOME or
 * XDG_STATE_HOME), stdin from in (-1: /dev/null); its exit status. */
int projenv_store(char *const envp[], int in, const char *const args[]);
/* The same with fd3 as its descriptor 3 (-1: none). */
int projenv_store_fd3(char *const envp[], int in, int fd3, const char *const args[]);

#endif
