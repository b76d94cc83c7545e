/* run: the parent's fixtures, and every check's child at once. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>
#include <linux/openat2.h>

#include "clock.h"
#include "compat.h"
#include "judge.h"
#include "path.h"
#include "probe.h"
#include "rnd.h"

long
probe_now_ms(void)
{
	struct timespec ts;

	/* the system call, not the vDSO (clock_once): probe reads the clock
	 * a few times only */
	if (clock_once(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
probe_prefault(void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, e = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;

	(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);	/* best effort */
}

/* A TCP listener on 127.0.0.1, the kernel's choice of port in *port: the
 * descriptor, or -1 with errno. Never accepted from: a connect completes in
 * the backlog. */
static int
tcp_listener(int *port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), e;

	if (s < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 8) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0) {
		e = errno;
		close(s);
		errno = e;
		return -1;
	}
	*port = ntohs(a.sin_port);
	return s;
}

static int
abstract_listener(struct probe_ctx *ctx)
{
	char hex[17];
	int s, n;

	if (rnd_hex(hex, 8) < 0)
		return -1;
	memset(&ctx->abs, 0, sizeof ctx->abs);
	ctx->abs.sun_family = AF_UNIX;
	/* sun_path[0] = NUL: the abstract namespace */
	n = snprintf(ctx->abs.sun_path + 1, sizeof ctx->abs.sun_path - 1,
	    "corral-probe-%ld-%s", (long)ctx->parent, hex);
	ctx->abs_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&ctx->abs, ctx->abs_len) < 0 || listen(s, 8) < 0) {
		int e = errno;
		close(s);
		errno = e;
		return -1;
	}
	return s;
}

static int
join(char *out, size_t n, const char *a, const char *b)
{
	if ((size_t)snprintf(out, n, "%s/%s", a, b) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
probe_setup_first(struct probe_ctx *ctx, const char **what)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->leak_fd = ctx->tcp_allow_fd = ctx->tcp_deny_fd = ctx->abs_fd = -1;
	ctx->parent = getpid();
	*what = "loopback TCP listener";
	ctx->tcp_deny_fd = tcp_listener(&ctx->tcp_deny);
	if (ctx->tcp_deny_fd < 0)
		return -1;
	*what = NULL;
	return 0;
}

/* dir itself when it is a real path already (absolute, no empty, . or
 * .. component, no symbolic link on the way: one openat2), else its
 * realpath(3) (static: rarely needed, and 4 KB of a frame are a page
 * touched); NULL with errno when it cannot be resolved. */
static const char *
real_dir(const char *dir)
{
	static char real[PATH_MAX];
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd;

	if (path_canonical(dir) && (fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof how)) >= 0) {
		close(fd);
		return dir;
	}
	return realpath(dir, real);
}

int
probe_setup_rest(struct probe_ctx *ctx, const char **what)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	int tries;

	/* $TMPDIR when set; else /dev/shm, a tmpfs where creating and
	 * removing the fixtures costs a fraction of a disk filesystem's. */
	if (tmp == NULL || tmp[0] != '/')
		tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
		    access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
	*what = "temporary directory";
	/* The fixtures are named by their real path: a child's path rules
	 * are opened as named, with no link on the way (apply.c, as corral
	 * runs confine: --no-symlinks), where each was resolved in the
	 * child, a readlink(2) per component (realpath(3), lib/sandbox_etc.c) */
	if ((tmp = real_dir(tmp)) == NULL) {
		ctx->dir[0] = '\0';
		return -1;
	}
	/* mkdtemp's, with a name from getrandom: musl's mkdtemp names it
	 * from the clock, and the vDSO's first call costs two page faults
	 * and a symbol lookup, which nothing else of probe's needs */
	for (tries = 0;; tries++) {
		char hex[17];

		if (rnd_hex(hex, 8) < 0) {
			ctx->dir[0] = '\0';
			return -1;
		}
		if ((size_t)snprintf(ctx->dir, sizeof ctx->dir, "%s/corral-probe.%s",
		    strcmp(tmp, "/") == 0 ? "" : tmp, hex) >=
		    sizeof ctx->dir) {
			ctx->dir[0] = '\0';
			errno = ENAMETOOLONG;
			return -1;
		}
		if (mkdir(ctx->dir, 0700) == 0)
			break;
		if (errno != EEXIST || tries == 8) {
			ctx->dir[0] = '\0';
			return -1;
		}
	}
	/* Empty files: a read of one is a read all the same (0 bytes), and
	 * what is checked is whether the open is allowed. B/f's descriptor
	 * comes from its creation, deliberately without O_CLOEXEC: the one
	 * the boundary must close. */
	if (join(ctx->a_dir, sizeof ctx->a_dir, ctx->dir, "A") < 0 ||
	    join(ctx->b_dir, sizeof ctx->b_dir, ctx->dir, "B") < 0 ||
	    join(ctx->a_file, sizeof ctx->a_file, ctx->a_dir, "f") < 0 ||
	    join(ctx->b_file, sizeof ctx->b_file, ctx->b_dir, "f") < 0 ||
	    mkdir(ctx->a_dir, 0755) < 0 || mkdir(ctx->b_dir, 0755) < 0 ||
	    mknod(ctx->a_file, S_IFREG | 0644, 0) < 0)
		return -1;
	*what = "inherited descriptor";
	ctx->leak_fd = open(ctx->b_file, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	if (ctx->leak_fd < 0)
		return -1;
	*what = "loopback TCP listener";
	ctx->tcp_allow_fd = tcp_listener(&ctx->tcp_allow);
	if (ctx->tcp_allow_fd < 0)
		return -1;
	*what = "abstract unix listener";
	ctx->abs_fd = abstract_listener(ctx);
	if (ctx->abs_fd < 0)
		return -1;
	*what = NULL;
	return 0;
}

int
probe_setup(struct probe_ctx *ctx, const char **what)
{
	if (probe_setup_first(ctx, what) < 0)
		return -1;
	return probe_setup_rest(ctx, what);
}

static void
closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* What probe_setup_rest made: the files, the directories, the inherited
 * descriptor, the granted port's and the abstract listener. */
static void
drop_rest(struct probe_ctx *ctx)
{
	closefd(&ctx->leak_fd);
	closefd(&ctx->tcp_allow_fd);
	closefd(&ctx->abs_fd);
	if (ctx->dir[0] == '\0')
		return;
	if (ctx->a_file[0])
		unlink(ctx->a_file);
	if (ctx->b_file[0])
		unlink(ctx->b_file);
	if (ctx->a_dir[0])
		rmdir(ctx->a_dir);
	if (ctx->b_dir[0])
		rmdir(ctx->b_dir);
	rmdir(ctx->dir);
	ctx->dir[0] = '\0';
}

void
probe_teardown(struct probe_ctx *ctx)
{
	drop_rest(ctx);
	closefd(&ctx->tcp_deny_fd);
}

/*
 * Speed. On two CPUs the proof is bound by its CPU time, and each child is
 * a process made and ended (a fork of probe costs some 40-50 us here, and
 * every page it then writes a fault of 1-2 us), so there are as few as the
 * policies allow: two today (checks.c). A child holding a check that needs
 * an address space of its own (PROBE_OWN_MM: the /proc checks) is a fork;
 * a child without one shares this process's memory (clone(CLONE_VM),
 * cheaper still: no copy of this process to make, fault in and tear down)
 * and runs while this process only forks the others, waits for the
 * reports and removes the fixtures: its credentials, seccomp filter,
 * Landlock domain, descriptor table, signal handlers and limits are its
 * own, which is all the sandbox touches, but errno and memory are shared,
 * hence one such child at a time. The egress child is the one: its
 * sandbox forks the broker's child with libc's fork, a copy of this memory
 * whose libc state (its thread id) is its own, and the broker (the
 * sharing child itself, which makes no thread and calls no raise()) keeps
 * the sandbox's static state (lib/sandbox_broker.c), which nothing else
 * here reads. They all run at once, on as many CPUs as there are. Each
 * dies with this process (PR_SET_PDEATHSIG); one still silent at the
 * deadline is killed.
 */
/* STACK_USED: what the sharing child's stack is populated with before it
 * starts; the egress child and its broker used 6,548 bytes (measured: the
 * deepest byte written in the stack), and a page beyond is faulted in as
 * any other. */
enum { MAXCHILDREN = 4, EXIT_ORPHAN = 122, STACK = 256 * 1024, STACK_USED = 8 * 1024 };
/* The sharing child's stack, which this process never touches: a fork's
 * copy of a used page costs a copy-on-write fault, a fresh one less. */
static char stack[STACK] __attribute__((aligned(4096)));

/* ASan keeps per-thread state that a CLONE_VM child would share and
 * corrupt: the sanitizer build (make san) forks every child. */
#define PROBE_FORK_ALL CORRAL_ASAN

struct kid {
	pid_t pid;
	int fd;			/* report pipe, -1 once read to the end */
	struct probe_obs *obs;	/* its checks' slots in the report table */
	size_t got, want;	/* report bytes */
	int status;		/* as from waitpid; errno when not started */
	int timed_out;
	/* for the child */
	probe_child_fn *fn;
	int child, wfd;
	const struct probe_ctx *ctx;
	pid_t parent;
};

static int
kid_main(void *a)
{
	const struct kid *k = a;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != k->parent)
		_exit(EXIT_ORPHAN);
	k->fn(k->child, k->ctx, k->wfd);
	_exit(0);
}

/* The one child that shares memory: the first with no check that needs
 * its own address space; -1 for none. */
static int
sharing_child(void)
{
	size_t i;
	int c;

	if (PROBE_FORK_ALL)
		return -1;
	for (c = 0; c < probe_nchildren; c++) {
		for (i = 0; i < probe_nchecks; i++)
			if (probe_checks[i].child == c && (probe_checks[i].flags & PROBE_OWN_MM))
				break;
		if (i == probe_nchecks)
			return c;
	}
	return -1;
}

/* Start child k: its report pipe, then a fork or (vm) a clone. */
static void
start(struct kid *k, int vm)
{
	int p[2];

	k->fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		k->pid = -1;
		k->status = errno;
		return;
	}
	k->wfd = p[1];
	/* libc's fork, not clone, for a copy: libc's own state (the
	 * thread id raise() and pthreads use) must be the child's, as a
	 * broker's child (sb_apply forks, the child here serves) needs */
	if (!vm) {
		k->pid = fork();
		if (k->pid == 0)
			kid_main(k);
	} else {
		k->pid = clone(kid_main, stack + STACK, CLONE_VM | SIGCHLD, k);
	}
	if (k->pid < 0)
		k->status = errno;
	else
		k->fd = p[0];
	close(p[1]);
	if (k->pid < 0)
		close(p[0]);
}

/* Does every check of child c need only what probe_setup_first made? */
static int
early(int c)
{
	size_t i;

	for (i = 0; i < probe_nchecks; i++)
		if (probe_checks[i].child == c && !(probe_checks[i].flags & PROBE_EARLY))
			return 0;
	return 1;
}

/* Does child c make an attempt with the fixtures of probe_setup_rest? */
static int
uses_rest(int c)
{
	size_t i;

	for (i = 0; i < probe_nchecks; i++)
		if (probe_checks[i].child == c && (probe_checks[i].flags & PROBE_REST))
			return 1;
	return 0;
}

/* Read every report until each pipe is at its end, or the deadline. With
 * ctx->drop_rest, the fixtures of probe_setup_rest go as soon as every
 * child using them has sent all its report, while the others still run: a
 * child writes its report once, after its last attempt, and then only
 * exits (checks.c's probe_child), so it is done with them then, not only
 * once its pipe ends (when its exit has torn its memory down). */
static void
collect(struct probe_ctx *ctx, struct kid *k, int n, long deadline)
{
	struct pollfd pfd[MAXCHILDREN];
	int c, open, rest;

	for (;;) {
		long wait = deadline - probe_now_ms();

		for (c = open = rest = 0; c < n; c++) {
			pfd[c].fd = k[c].fd;
			pfd[c].events = POLLIN;
			open += k[c].fd >= 0;
			rest += k[c].fd >= 0 && k[c].got < k[c].want && uses_rest(c);
		}
		if (rest == 0 && ctx->drop_rest && (ctx->dir[0] != '\0' || ctx->tcp_allow_fd >= 0))
			drop_rest(ctx);
		if (open == 0 || wait <= 0 || (poll(pfd, (nfds_t)n, (int)wait) < 0 && errno != EINTR))
			return;
		for (c = 0; c < n; c++) {
			char over[512];
			ssize_t m;

			if (k[c].fd < 0 || pfd[c].revents == 0)
				continue;
			/* to the end, so an overlong report is seen as one */
			if (k[c].got < k[c].want)
				m = read(k[c].fd, (char *)k[c].obs + k[c].got, k[c].want - k[c].got);
			else
				m = read(k[c].fd, over, sizeof over);
			if (m < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (m > 0)
				k[c].got += (size_t)m;
			if (m <= 0) {
				close(k[c].fd);
				k[c].fd = -1;
			}
		}
	}
}

/* Check i's outcome: its child's end; its own report, at slot of the child's. */
static void
outcome(const struct kid *k, size_t slot, struct probe_outcome *o)
{
	size_t start = slot * sizeof o->obs;

	if (k->pid < 0) {
		o->end = END_NOSTART;
		o->detail = k->status;
	} else if (k->timed_out) {
		o->end = END_TIMEOUT;
	} else if (WIFSIGNALED(k->status)) {
		o->end = END_SIGNALED;
		o->detail = WTERMSIG(k->status);
	} else if (WEXITSTATUS(k->status) != 0) {
		o->end = END_EXITED;
		o->detail = WEXITSTATUS(k->status);
	} else if (k->got != k->want) {
		/* a report is all of the child's or none: each check says how
		 * much of its own part arrived */
		o->end = END_SHORT;
		o->detail = k->got <= start ? 0 : (int)(k->got - start < sizeof o->obs ?
		    k->got - start : sizeof o->obs);
	} else {
		o->end = END_REPORTED;
	}
}

int
probe_run(struct probe_ctx *ctx, struct probe_outcome *out, int timeout_ms,
    probe_child_fn *child)
{
	static struct probe_obs report[PROBE_MAX_CHECKS];	/* by child, then table order */
	struct kid k[MAXCHILDREN];
	size_t i, slot[MAXCHILDREN], used = 0;
	int c, n = probe_nchildren, vm, pass;
	pid_t self;
	long deadline = probe_now_ms() + timeout_ms;

	if (n > MAXCHILDREN || probe_nchecks > PROBE_MAX_CHECKS) {
		errno = E2BIG;
		return -1;
	}
	memset(k, 0, sizeof k);
	for (c = 0; c < n; c++) {
		k[c].obs = &report[used];
		for (i = 0; i < probe_nchecks; i++)
			if (probe_checks[i].child == c)
				k[c].want += sizeof report[0];
		used += k[c].want / sizeof report[0];
	}
	vm = sharing_child();
	self = getpid();	/* once: each child checks it is still its parent's */
	/* A sharing child whose checks are all PROBE_EARLY starts before the
	 * forks: it is the egress child (checks.c), the long pole of the
	 * proof (its sandbox forks its broker's child, which makes one
	 * brokered call after another), and started after them it waited
	 * for a fork of this process (some 40 us). A fork made while it runs
	 * copies this memory as that child has it at that moment: the forked
	 * child sets up afresh every static state it uses (its policy, its
	 * reports: apply.c, checks.c), and a PROBE_EARLY check needs only
	 * the outside listener, so no path rule: the sandbox's descriptors
	 * to close (lib/sandbox.c) are never the sharing child's. Any other
	 * sharing child starts after the forks. Where egress's child is a
	 * fork (the sanitizer build), it is started first, and with
	 * ctx->setup_rest before the rest of the fixtures are made too. */
	for (c = n - 1; c >= 0; c--) {
		k[c].fn = child;
		k[c].child = c;
		k[c].ctx = ctx;
		k[c].parent = self;
		if (c != vm && ctx->setup_rest && early(c))
			start(&k[c], 0);
	}
	if (ctx->setup_rest && probe_setup_rest(ctx, &ctx->what) < 0) {
		int e = errno;

		for (c = 0; c < n; c++)
			if (k[c].pid > 0) {
				kill(k[c].pid, SIGKILL);
				close(k[c].fd);
				while (waitpid(k[c].pid, NULL, 0) < 0 && errno == EINTR)
					;
			}
		errno = e;
		return -1;
	}
	for (pass = 0; pass < 2; pass++) {
		if (vm >= 0 && early(vm) == !pass) {
			/* the pages the sharing child's stack will use, in
			 * one call rather than a fault apiece (the outcomes:
			 * below) */
			probe_prefault(stack + STACK - STACK_USED, STACK_USED);
			start(&k[vm], 1);
		}
		for (c = n - 1; pass == 0 && c >= 0; c--)
			if (c != vm && !(ctx->setup_rest && early(c)))
				start(&k[c], 0);
	}
	collect(ctx, k, n, deadline);
	for (c = 0; c < n; c++) {
		if (k[c].pid < 0)
			continue;
		if (k[c].fd >= 0) {	/* still silent at the deadline */
			kill(k[c].pid, SIGKILL);
			close(k[c].fd);
			k[c].fd = -1;
			k[c].timed_out = 1;
		}
		while (waitpid(k[c].pid, &k[c].status, 0) < 0)
			if (errno != EINTR) {
				k[c].status = EXIT_ORPHAN << 8;
				break;
			}
	}
	/* Once every child is reaped, not before the forks: the egress
	 * child's own fork (its broker's child) comes later, and made the
	 * pages populated then copy-on-write, a fault and a copy apiece at
	 * the first write here; the reports (read(2) into the table above)
	 * fault their pages in as they come, zero-filled, no copy. */
	probe_prefault(out, probe_nchecks * sizeof *out);
	memset(slot, 0, sizeof slot);
	for (i = 0; i < probe_nchecks; i++) {
		c = probe_checks[i].child;
		memset(&out[i], 0, sizeof out[i]);
		outcome(&k[c], slot[c], &out[i]);
		if (out[i].end == END_REPORTED)
			out[i].obs = k[c].obs[slot[c]];
		slot[c]++;
	}
	return 0;
}
