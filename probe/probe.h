/* probe.h: the parent's side (setup, run the children) and the child's side. */
#ifndef PROBE_PROBE_H
#define PROBE_PROBE_H
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "check.h"

/* Everything a child needs, prepared by the parent before any child starts. */
struct probe_ctx {
	pid_t parent;
	char dir[256];			/* fresh temp dir: A/ and B/ inside */
	char a_dir[300], a_file[300];	/* granted */
	char b_dir[300], b_file[300];	/* never granted */
	int leak_fd;			/* B/f opened without O_CLOEXEC */
	int tcp_allow_fd, tcp_deny_fd;	/* loopback listeners */
	int tcp_allow, tcp_deny;	/* their ports */
	int abs_fd;			/* abstract unix listener */
	struct sockaddr_un abs;
	socklen_t abs_len;
};

/* Build the fixtures. On failure -1 with errno and *what naming the step. */
int probe_setup(struct probe_ctx *ctx, const char **what);
/* Remove the fixtures; safe on a partly built ctx. */
void probe_teardown(struct probe_ctx *ctx);
typedef void probe_child_fn(size_t i, const struct probe_ctx *ctx, int wfd);
/* Run child(i, ...) for every check, each in a child process of its own
 * (see run.c for how they are made), waiting at most timeout_ms in all.
 * out has probe_nchecks entries. Returns 0; -1 with errno E2BIG when the
 * table outgrows the run. */
int probe_run(const struct probe_ctx *ctx, struct probe_outcome *out,
    int timeout_ms, probe_child_fn *child);
/* The child: apply check i's policy through the sandbox, attempt, report
 * to wfd, _exit. What probe runs. */
_Noreturn void probe_child(size_t i, const struct probe_ctx *ctx, int wfd);

/* The child's parts, for tests that run the attempts without the boundary
 * to show that every check fails there. */
struct probe_policy;
int probe_prepare(size_t i, const struct probe_ctx *ctx, int wfd,
    struct probe_policy *pol, struct probe_obs *ob, int *pre);
void probe_attempts(size_t i, const struct probe_ctx *ctx, int wfd, int pre,
    struct probe_obs *ob);

#endif
