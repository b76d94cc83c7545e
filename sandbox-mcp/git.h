/* git: the checkpoint engine's runner. git runs with lib/gitsafe's
 * settings and environment (no system or global config, nothing that runs
 * a program) and the server's own, an explicit environment, the history
 * repository as --git-dir and the workspace as --work-tree: it reads the
 * workspace as data and never runs anything the agent wrote. I/O. */
#ifndef SBX_GIT_H
#define SBX_GIT_H
#include <stddef.h>

#include "run.h"
#include "sess.h"

enum { GIT_OUT_MAX = 4 << 20 };

/* Find git (once): /usr/local/bin, /usr/bin, /bin. -1 when absent. */
int git_find(char *out, size_t n);
struct argv;
/* The argument vector and environment of one git call with args for
 * session ss (git: its path): 0, or -1 with errno. */
int git_argv(const char *git, const struct sess *ss, const char *const *args, struct argv *av,
    struct argv *ev);
/* Run git with args (NULL-terminated) for session ss; stdout into r->out
 * (at most max bytes, 0: GIT_OUT_MAX). input: stdin bytes or NULL.
 * Returns 0 when git exited 0; -1 with a reason (git's first stderr line)
 * in err otherwise. r is always to be freed. */
int git_run(struct sbx *s, const struct sess *ss, const char *const *args, const char *input,
    size_t inputn, size_t max, struct run_res *r, char *err, size_t errn);
/* The same with stdin from infd and stdout into outfd where > 0. */
int git_run_io(struct sbx *s, const struct sess *ss, const char *const *args, const char *input,
    size_t inputn, int infd, int outfd, size_t max, struct run_res *r, char *err, size_t errn);
/* The same, keeping only stdout's first line (trimmed) in out. */
int git_line(struct sbx *s, const struct sess *ss, const char *const *args, char *out, size_t n,
    char *err, size_t errn);

#endif
