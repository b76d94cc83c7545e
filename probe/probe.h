/* probe.h: the parent's side (setup, run the children) and the child's side. */
#ifndef PROBE_PROBE_H
#define PROBE_PROBE_H
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "judge.h"

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
	int drop_rest;			/* probe_run removes what
					   probe_setup_rest made once every
					   child using it (PROBE_REST) ended */
	int setup_rest;			/* probe_run makes the rest of the
					   fixtures (probe_setup_rest) once the
					   PROBE_EARLY children started */
	const char *what;		/* which of them it could not make */
};

/* Build the fixtures. On failure -1 with errno and *what naming the step.
 * probe_setup is probe_setup_first (the outside TCP listener: all that a
 * PROBE_EARLY check needs), then probe_setup_rest (the directory, its
 * files, the inherited descriptor, the granted port's listener, the
 * abstract listener). */
int probe_setup(struct probe_ctx *ctx, const char **what);
int probe_setup_first(struct probe_ctx *ctx, const char **what);
int probe_setup_rest(struct probe_ctx *ctx, const char **what);
/* CLOCK_MONOTONIC in ms, by the system call (0 if it fails). */
long probe_now_ms(void);
/* Make n bytes at p present and writable in one call (best effort): on a
 * virtual machine a page fault apiece costs some 10 us, this a fraction. */
void probe_prefault(void *p, size_t n);
/* Remove the fixtures; safe on a partly built ctx. */
void probe_teardown(struct probe_ctx *ctx);
typedef void probe_child_fn(int child, const struct probe_ctx *ctx, int wfd);
/* Fork child(c, ...) for every child c, all at once, waiting at most
 * timeout_ms in all; each writes the reports of its checks (probe_pack).
 * out has probe_nchecks entries; every check gets the outcome of its
 * child. Returns 0; -1 with errno and ctx->what when ctx->setup_rest and
 * the rest of the fixtures cannot be made (no child is left then). */
int probe_run(struct probe_ctx *ctx, struct probe_outcome *out,
    int timeout_ms, probe_child_fn *child);
/* The child: apply the union of its checks' policies through the sandbox,
 * make every attempt of each, report to wfd, _exit. What probe runs. */
_Noreturn void probe_child(int child, const struct probe_ctx *ctx, int wfd);

/* The child's parts, for tests that run the attempts without the boundary
 * to show that every check fails there. ob has probe_nchecks entries, by
 * check; a check the sandbox refuses on its own gets its apply_err in
 * probe_prepare and no attempts. A child applies its boundary in up to two
 * stages: stage 0 (probe_prepare resets the child's entries of ob, and
 * only those), its attempts, then, when probe_stacked(child), stage 1's
 * boundary on top (the PROBE_STACKED checks) and their attempts. */
struct probe_policy;
int probe_stacked(int child);
void probe_prepare(int child, int stage, const struct probe_ctx *ctx, int wfd,
    struct probe_policy *pol, struct probe_obs *ob, int *pre);
void probe_attempts(int child, int stage, const struct probe_ctx *ctx, int wfd, int pre,
    struct probe_obs *ob);
/* Move the reports of child's checks to the front of ob, in table order;
 * returns their count. */
size_t probe_pack(int child, struct probe_obs *ob);

#endif
