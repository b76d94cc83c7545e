/* execenv: exec a program with an explicit environment, looked up in that
 * environment's PATH (never the caller's). */
#ifndef CORRAL_EXECENV_H
#define CORRAL_EXECENV_H

/* The value of NAME in envp, or NULL. */
const char *env_get(char *const envp[], const char *name);
/* Resolve prog (with a '/', used as is) along path into out (size n).
 * Returns 0, or -1 with errno: ENOENT not found, EACCES found but not
 * executable, ENAMETOOLONG. */
int exec_resolve(const char *prog, const char *path, char *out, size_t n);
/* execve argv[0] resolved in envp's PATH (default "/usr/bin:/bin" when
 * unset); a path (holding a '/') exec'd as it is, checked by exec_resolve
 * only when that fails. Returns only on failure: -1 with errno as
 * exec_resolve/execve. */
int exec_env(char *const argv[], char *const envp[]);
/* The chain-loader exit status for an exec failure errno: 127 or 126. */
int exec_status(int err);

#endif
