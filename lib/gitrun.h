/* gitrun: start git outside the boundary with an environment and
 * configuration of corral's choosing. Every call gets lib/gitsafe's fixed
 * environment and -c settings (no system or global config, no prompt, no
 * replace refs, every command-valued setting off, whatever the repository's
 * config says) and corral's PATH and identity. Never pointed at a repository the
 * agent could write: the caller names GIT_DIR (and the rest) explicitly. */
#ifndef CORRAL_GITRUN_H
#define CORRAL_GITRUN_H
#include <stddef.h>

struct gitcall {
	const char *bin;	/* absolute path of git */
	const char *dir;	/* GIT_DIR */
	const char *work;	/* GIT_WORK_TREE (NULL: none), also git's -C */
	const char *index;	/* GIT_INDEX_FILE (NULL: git's own) */
	const char *objdir;	/* GIT_OBJECT_DIRECTORY (NULL: git's own) */
	const char *alt;	/* GIT_ALTERNATE_OBJECT_DIRECTORIES (NULL: none) */
};

struct argv;
/* The argument vector and environment of one call (gitrun_start runs
 * them): 0, or -1 with errno. */
int gitrun_argv(const struct gitcall *g, const char *const args[], struct argv *av, struct argv *ev);

/* Run git ARGS (NULL-terminated): stdin from in (-1: /dev/null), stdout to
 * out (-1: capture into *cap, a malloc'd NUL-terminated buffer of at most
 * capmax bytes, *caplen its length; cap NULL: /dev/null). Returns git's exit
 * code (0..255, 128+N when killed), or -1 with errno when it could not
 * start, or the output was larger than capmax (EFBIG). */
int gitrun(const struct gitcall *g, const char *const args[], int in, int out,
    char **cap, size_t *caplen, size_t capmax);

/* Start git without waiting (stdin in, stdout out, as above but no capture):
 * the pid, or -1. gitrun_wait: its exit code. */
int gitrun_start(const struct gitcall *g, const char *const args[], int in, int out);
int gitrun_wait(int pid);

/* Start git with its stdout on a pipe (*fd, the read end) and return
 * without waiting: the pid, or -1. gitrun_collect: read fd to its end
 * into *cap (as gitrun; cap NULL: thrown away), close it, wait for pid;
 * git's exit code, or -1 (EFBIG: more than capmax). The two let a caller
 * run two git commands at once. */
int gitrun_spawn(const struct gitcall *g, const char *const args[], int in, int *fd);
int gitrun_collect(int pid, int fd, char **cap, size_t *caplen, size_t capmax);

/* Find git: the first of /usr/bin/git, /bin/git, /usr/local/bin/git. */
const char *gitrun_find(void);

#endif
