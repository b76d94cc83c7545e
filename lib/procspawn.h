/* procspawn: (corral, git-stage) run one step program with an explicit environment and collect its
 * standard output (bounded). stdin is /dev/null, stderr is shared. */
#ifndef CORRAL_PROCSPAWN_H
#define CORRAL_PROCSPAWN_H
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "status.h"	/* wait_code */

/* Run argv[0] (an absolute path) with envp; its stdout (at most outn-1
 * bytes, NUL-terminated, the rest discarded) into out, which may be NULL to
 * share corral's stdout. Returns the wait status, or -1 with errno when it
 * could not be started. */
int spawn_wait(char *const argv[], char *const envp[], char *out, size_t outn);

/* The same in two halves, so that independent steps can run side by side:
 * start (capture: a pipe for stdout), then collect (out may be NULL to
 * discard what it printed). */
struct spawned {
	pid_t pid;
	int out;
};
enum {
	SPAWN_CAPTURE = 1 << 0,		/* a pipe for its stdout (sp->out) */
	SPAWN_DEATHSIG = 1 << 1,	/* SIGTERM to it when corral dies */
};
int spawn_start(char *const argv[], char *const envp[], int flags, struct spawned *sp);
int spawn_collect(struct spawned *sp, char *out, size_t outn);
/* Start with stdin from in (-1: /dev/null) and stdout to out (-1: shared);
 * sp->out stays -1. */
int spawn_start_io(char *const argv[], char *const envp[], int in, int out, struct spawned *sp);
/* Start with stdin from in (flags as spawn_start's). */
int spawn_start_in(char *const argv[], char *const envp[], int in, int flags, struct spawned *sp);
/* Start with stdin from in and fd3 as its descriptor 3 (-1: none); stdout shared. */
int spawn_start_fd3(char *const argv[], char *const envp[], int in, int fd3, struct spawned *sp);

/* The way every step starts (corral's keeper too): fn(arg) in a child
 * that shares this process's memory until it execs or exits, as
 * posix_spawn does (clone CLONE_VM|CLONE_VFORK on a stack of its own;
 * fork in the sanitizer build), every signal blocked around it; *mask
 * gets the caller's mask. The pid, or -1 with errno. */
pid_t spawn_clone(int (*fn)(void *), void *arg, sigset_t *mask);
/* In that child, before it unblocks signals: each signal the process
 * catches back to its default (what exec would do), so that the parent's
 * handlers never run in the child's memory; an ignored one stays ignored.
 * It knows what is caught from spawn_sigaction: a program that starts
 * children here installs its handlers only through that (tests/cli/
 * spawn-signals.t checks the objects). Raw system calls only. */
void spawn_child_defaults(void);
/* sigaction(2), noting whether sig is now caught (a handler) or not
 * (SIG_DFL, SIG_IGN) for spawn_child_defaults. */
int spawn_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);


#endif
