/* run: the parent's fixtures, and every check's child at once. */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "probe.h"
#include "rnd.h"

static int
mkfile(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, "x", 1) != 1) {
		int e = errno;
		close(fd);
		errno = e ? e : EIO;
		return -1;
	}
	return close(fd);
}

static int
tcp_listener(int *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sin, sizeof sin) < 0 || listen(s, 8) < 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) < 0) {
		int e = errno;
		close(s);
		errno = e;
		return -1;
	}
	*port = ntohs(sin.sin_port);
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
probe_setup(struct probe_ctx *ctx, const char **what)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	memset(ctx, 0, sizeof *ctx);
	ctx->leak_fd = ctx->tcp_allow_fd = ctx->tcp_deny_fd = ctx->abs_fd = -1;
	ctx->parent = getpid();
	/* $TMPDIR when set; else /dev/shm, a tmpfs where creating and
	 * removing the fixtures costs a fraction of a disk filesystem's. */
	if (tmp == NULL || tmp[0] != '/')
		tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
		    access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
	*what = "temporary directory";
	if ((size_t)snprintf(ctx->dir, sizeof ctx->dir, "%s/corral-probe.XXXXXX", tmp) >= sizeof ctx->dir) {
		ctx->dir[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdtemp(ctx->dir) == NULL) {
		ctx->dir[0] = '\0';
		return -1;
	}
	if (join(ctx->a_dir, sizeof ctx->a_dir, ctx->dir, "A") < 0 ||
	    join(ctx->b_dir, sizeof ctx->b_dir, ctx->dir, "B") < 0 ||
	    join(ctx->a_file, sizeof ctx->a_file, ctx->a_dir, "f") < 0 ||
	    join(ctx->b_file, sizeof ctx->b_file, ctx->b_dir, "f") < 0 ||
	    mkdir(ctx->a_dir, 0755) < 0 || mkdir(ctx->b_dir, 0755) < 0 ||
	    mkfile(ctx->a_file) < 0 || mkfile(ctx->b_file) < 0)
		return -1;
	/* Deliberately without O_CLOEXEC: the descriptor the boundary must close. */
	*what = "inherited descriptor";
	ctx->leak_fd = open(ctx->b_file, O_RDONLY | O_NOFOLLOW);
	if (ctx->leak_fd < 0)
		return -1;
	*what = "loopback TCP listener";
	ctx->tcp_allow_fd = tcp_listener(&ctx->tcp_allow);
	if (ctx->tcp_allow_fd < 0)
		return -1;
	ctx->tcp_deny_fd = tcp_listener(&ctx->tcp_deny);
	if (ctx->tcp_deny_fd < 0)
		return -1;
	*what = "abstract unix listener";
	ctx->abs_fd = abstract_listener(ctx);
	if (ctx->abs_fd < 0)
		return -1;
	ctx->maxfd = ctx->abs_fd;
	if (ctx->tcp_deny_fd > ctx->maxfd)
		ctx->maxfd = ctx->tcp_deny_fd;
	*what = NULL;
	return 0;
}

static void
closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
probe_teardown(struct probe_ctx *ctx)
{
	closefd(&ctx->leak_fd);
	closefd(&ctx->tcp_allow_fd);
	closefd(&ctx->tcp_deny_fd);
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

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

enum { MAXCHECKS = 16 };

/*
 * Speed: fork(2) costs a copy of the address space (over half a
 * millisecond on a paravirtualised VM), clone(CLONE_VM) a tenth of that.
 * A CLONE_VM child has its own credentials, seccomp filters, Landlock
 * domain, descriptor table and rlimits, which is all the sandbox touches, but
 * it shares memory, errno included: so these children run one at a time on
 * one stack, while the parent only sleeps in poll(2).
 *
 * A check marked PROBE_OWN_MM needs a real fork. The copy is made by a
 * CLONE_VM helper on a stack of its own, so it costs the parent nothing and
 * overlaps the other checks: the helper forks with the raw system call (no
 * libc bookkeeping in memory it shares), waits, and exits as its child did.
 * It makes no system call that can fail with an errno a check expects.
 */
enum { CHILD_STACK = 256 * 1024, HELPER_STACK = 256 * 1024 };
static char child_stack[CHILD_STACK] __attribute__((aligned(64)));
static char helper_stack[HELPER_STACK] __attribute__((aligned(64)));

enum { EXIT_FORK_FAILED = 121, EXIT_FORK_LOST = 122 };

struct child_arg {
	probe_child_fn *fn;
	size_t i;
	const struct probe_ctx *ctx;
	int wfd;
};

/* ASan keeps per-thread state that a CLONE_VM child would share and
 * corrupt: the sanitizer build (make san) forks every child. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROBE_FORK_ALL 1
#endif
#endif
#ifndef PROBE_FORK_ALL
#define PROBE_FORK_ALL 0
#endif

static int
child_main(void *a)
{
	const struct child_arg *c = a;

	c->fn(c->i, c->ctx, c->wfd);
	_exit(0);
}

/* The helper: fork the real child, wait, pass on how it ended. */
static int
forker_main(void *a)
{
	const struct child_arg *c = a;
	long helper = syscall(SYS_getpid);
	long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	int st = 0;

	if (pid == 0) {
		/* killed with the helper (on a timeout), never left behind */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != helper)
			_exit(EXIT_FORK_LOST);
		c->fn(c->i, c->ctx, c->wfd);
		_exit(0);
	}
	close(c->wfd);
	if (pid < 0)
		_exit(EXIT_FORK_FAILED);
	while (wait4((pid_t)pid, &st, __WALL, NULL) < 0)
		if (errno != EINTR)
			_exit(EXIT_FORK_LOST);
	if (WIFSIGNALED(st)) {
		syscall(SYS_kill, helper, WTERMSIG(st));
		_exit(128 + WTERMSIG(st));
	}
	_exit(WEXITSTATUS(st));
}

struct run {
	struct pollfd pfd[MAXCHECKS];
	pid_t pid[MAXCHECKS];
	size_t got[MAXCHECKS];
	struct probe_outcome *out;
	size_t n;
	long deadline;
};

static int
start(struct run *r, size_t i, const struct probe_ctx *ctx, probe_child_fn *fn)
{
	struct child_arg *arg;
	static struct child_arg args[MAXCHECKS];
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		goto fail;
	arg = &args[i];
	arg->fn = fn;
	arg->i = i;
	arg->ctx = ctx;
	arg->wfd = p[1];
	if (PROBE_FORK_ALL) {
		r->pid[i] = fork();
		if (r->pid[i] == 0) {
			close(p[0]);
			fn(i, ctx, p[1]);
			_exit(0);
		}
	} else if (probe_checks[i].flags & PROBE_OWN_MM) {
		r->pid[i] = clone(forker_main, helper_stack + HELPER_STACK, CLONE_VM | SIGCHLD, arg);
	} else {
		r->pid[i] = clone(child_main, child_stack + CHILD_STACK, CLONE_VM | SIGCHLD, arg);
	}
	if (r->pid[i] < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		errno = e;
		goto fail;
	}
	close(p[1]);
	r->pfd[i].fd = p[0];
	return 0;
fail:
	r->pid[i] = -1;
	r->out[i].end = END_NOSTART;
	r->out[i].detail = errno;
	return -1;
}

/* Read what is ready; return once child `until` has reported (or at EOF),
 * or at the deadline. until = n: until every child is done. */
static void
collect(struct run *r, size_t until)
{
	size_t i;

	for (;;) {
		long wait = r->deadline - now_ms();
		int k;

		if (until < r->n ? r->pfd[until].fd < 0 : 1) {
			for (i = 0; i < r->n && r->pfd[i].fd < 0; i++)
				;
			if (until < r->n || i == r->n)
				return;
		}
		if (wait <= 0)
			return;
		k = poll(r->pfd, r->n, (int)wait);
		if (k < 0 && errno != EINTR)
			return;
		for (i = 0; k > 0 && i < r->n; i++) {
			struct probe_outcome *o = &r->out[i];
			ssize_t m;

			if (r->pfd[i].fd < 0 || r->pfd[i].revents == 0)
				continue;
			m = read(r->pfd[i].fd, (char *)&o->obs + r->got[i], sizeof o->obs - r->got[i]);
			if (m < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (m > 0)
				r->got[i] += (size_t)m;
			if (m <= 0 || r->got[i] == sizeof o->obs) {
				close(r->pfd[i].fd);
				r->pfd[i].fd = -1;
			}
		}
	}
}

/* Reap child i; kill it first when it is still silent. */
static void
reap(struct run *r, size_t i)
{
	struct probe_outcome *o = &r->out[i];
	int st;

	if (r->pid[i] < 0)
		return;
	if (r->pfd[i].fd >= 0) {
		kill(r->pid[i], SIGKILL);
		close(r->pfd[i].fd);
		r->pfd[i].fd = -1;
		o->end = END_TIMEOUT;
	}
	while (waitpid(r->pid[i], &st, __WALL) < 0 && errno == EINTR)
		;
	r->pid[i] = -1;
	if (o->end == END_TIMEOUT)
		return;
	if (WIFSIGNALED(st)) {
		o->end = END_SIGNALED;
		o->detail = WTERMSIG(st);
	} else if (WEXITSTATUS(st) != 0) {
		o->end = END_EXITED;
		o->detail = WEXITSTATUS(st);
	} else if (r->got[i] != sizeof o->obs) {
		o->end = END_SHORT;
		o->detail = (int)r->got[i];
	} else {
		o->end = END_REPORTED;
	}
}

int
probe_run(const struct probe_ctx *ctx, struct probe_outcome *out, int timeout_ms,
    probe_child_fn *child)
{
	struct run r;
	size_t i;

	if (probe_nchecks > MAXCHECKS) {
		errno = E2BIG;
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.out = out;
	r.n = probe_nchecks;
	for (i = 0; i < r.n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		r.pfd[i].fd = -1;
		r.pfd[i].events = POLLIN;
		r.pid[i] = -1;
	}
	r.deadline = now_ms() + timeout_ms;
	for (i = 0; i < r.n; i++)
		if (probe_checks[i].flags & PROBE_OWN_MM)
			(void)start(&r, i, ctx, child);
	for (i = 0; i < r.n; i++) {
		if (probe_checks[i].flags & PROBE_OWN_MM)
			continue;
		if (start(&r, i, ctx, child) < 0)
			continue;
		collect(&r, i);
		reap(&r, i);	/* before the next child reuses the stack */
	}
	collect(&r, r.n);
	for (i = 0; i < r.n; i++)
		reap(&r, i);
	return 0;
}
