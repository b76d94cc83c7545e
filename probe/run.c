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
#include <stdint.h>
#include <sys/socket.h>
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
 * Speed. fork(2) costs a copy of the address space (over half a millisecond
 * on a paravirtualised VM), clone(CLONE_VM) a tenth of that. A CLONE_VM
 * child has its own credentials, seccomp filters, Landlock domain,
 * descriptor table and rlimits, which is all the sandbox touches; but it
 * shares memory, errno included, so such children run one at a time per
 * address space while their parent sleeps.
 *
 * Two lanes: lane 0 is this process, lane 1 one real fork, made before any
 * other child exists (the proc-environ check needs one anyway: a task
 * sharing its parent's memory may always read the parent's environ). Each
 * lane runs its share of the checks that way, the two in parallel. Lane 1
 * forwards each child's wait status over a pipe; every child writes its
 * report straight to this process. Each child dies with its parent
 * (PR_SET_PDEATHSIG), so killing lane 1 on a timeout leaves nothing.
 */
enum { CHILD_STACK = 256 * 1024 };
/* Two stacks, alternating: a child that has sent its report only has
 * _exit left to run, so the next one can start on the other stack before
 * the first is reaped (one wake-up per child instead of two). */
static char child_stack[2][CHILD_STACK] __attribute__((aligned(64)));

/* ASan keeps per-thread state that a CLONE_VM child would share and
 * corrupt: the sanitizer build (make san) forks every child, one lane. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROBE_FORK_ALL 1
#endif
#endif
#ifndef PROBE_FORK_ALL
#define PROBE_FORK_ALL 0
#endif

enum { LANE1_TAIL = 3 };	/* lane 1: proc-environ and the last three */
enum { EXIT_FORK_FAILED = 121, EXIT_FORK_LOST = 122 };

static int
lane_of(size_t i)
{
	if (PROBE_FORK_ALL)
		return 0;
	return (probe_checks[i].flags & PROBE_OWN_MM) || i + LANE1_TAIL >= probe_nchecks;
}

struct child_arg {
	probe_child_fn *fn;
	size_t i;
	const struct probe_ctx *ctx;
	int wfd;
	pid_t parent;		/* > 0: die with it */
};

static int
child_main(void *a)
{
	const struct child_arg *c = a;

	if (c->parent > 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != c->parent))
		_exit(EXIT_FORK_LOST);
	c->fn(c->i, c->ctx, c->wfd);
	_exit(0);
}

struct lane {
	probe_child_fn *fn;
	const struct probe_ctx *ctx;
	int wfd[MAXCHECKS];	/* lane 1's report pipes; -1 for lane 0's checks */
	int status_fd;
	size_t n;
};

struct status_rec {
	int32_t i;
	int32_t status;		/* as from waitpid */
};

/* Lane 1, in its own address space: its checks one at a time. */
static _Noreturn void
lane_main(const struct lane *l)
{
	struct child_arg arg;
	struct status_rec rec;
	pid_t me = getpid(), pid;
	size_t i;
	int st;

	for (i = 0; i < l->n; i++) {
		if (l->wfd[i] < 0)
			continue;
		arg.fn = l->fn;
		arg.i = i;
		arg.ctx = l->ctx;
		arg.wfd = l->wfd[i];
		arg.parent = me;
		pid = clone(child_main, child_stack[0] + CHILD_STACK, CLONE_VM | SIGCHLD, &arg);
		close(l->wfd[i]);
		st = EXIT_FORK_FAILED << 8;
		if (pid > 0)
			while (waitpid(pid, &st, __WALL) < 0)
				if (errno != EINTR) {
					st = EXIT_FORK_LOST << 8;
					break;
				}
		rec.i = (int32_t)i;
		rec.status = st;
		if (write(l->status_fd, &rec, sizeof rec) != (ssize_t)sizeof rec)
			_exit(EXIT_FORK_LOST);
	}
	_exit(0);
}

struct run {
	struct pollfd pfd[MAXCHECKS + 1];	/* [n]: lane 1's status pipe */
	pid_t pid[MAXCHECKS];			/* lane 0's children */
	size_t got[MAXCHECKS];
	int status[MAXCHECKS];			/* lane 1's, forwarded */
	int have_status[MAXCHECKS];
	char sbuf[sizeof(struct status_rec)];
	size_t sgot;
	struct probe_outcome *out;
	size_t n;
	long deadline;
	struct child_arg arg[2];		/* lane 0's, one per stack */
	pid_t self;
};

/* How a child ended, from its wait status and its report. */
static void
judge_end(struct run *r, size_t i, int st)
{
	struct probe_outcome *o = &r->out[i];

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

static void
read_status(struct run *r)
{
	struct status_rec rec;
	ssize_t m;

	m = read(r->pfd[r->n].fd, r->sbuf + r->sgot, sizeof r->sbuf - r->sgot);
	if (m < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (m <= 0) {
		close(r->pfd[r->n].fd);
		r->pfd[r->n].fd = -1;
		return;
	}
	r->sgot += (size_t)m;
	if (r->sgot < sizeof rec)
		return;
	memcpy(&rec, r->sbuf, sizeof rec);
	r->sgot = 0;
	if (rec.i >= 0 && (size_t)rec.i < r->n && lane_of((size_t)rec.i) == 1) {
		r->status[rec.i] = rec.status;
		r->have_status[rec.i] = 1;
	}
}

/* Read what is ready; return once child `until` has reported (or at EOF),
 * or at the deadline. until = n: until every child and lane 1 are done. */
static void
collect(struct run *r, size_t until)
{
	size_t i;

	for (;;) {
		long wait = r->deadline - now_ms();
		int k;

		if (until < r->n) {
			if (r->pfd[until].fd < 0)
				return;
		} else {
			for (i = 0; i <= r->n && r->pfd[i].fd < 0; i++)
				;
			if (i > r->n)
				return;
		}
		if (wait <= 0)
			return;
		k = poll(r->pfd, r->n + 1, (int)wait);
		if (k < 0 && errno != EINTR)
			return;
		for (i = 0; k > 0 && i <= r->n; i++) {
			struct probe_outcome *o;
			ssize_t m;

			if (r->pfd[i].fd < 0 || r->pfd[i].revents == 0)
				continue;
			if (i == r->n) {
				read_status(r);
				continue;
			}
			o = &r->out[i];
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

/* Reap lane 0's child i: kill it first when it is still silent; with
 * block = 0, leave it for later if it has not exited yet. */
static void
reap(struct run *r, size_t i, int block)
{
	pid_t w;
	int st;

	if (r->pid[i] < 0)
		return;
	if (r->pfd[i].fd >= 0) {
		kill(r->pid[i], SIGKILL);
		block = 1;
	}
	while ((w = waitpid(r->pid[i], &st, __WALL | (block ? 0 : WNOHANG))) < 0 && errno == EINTR)
		;
	if (w == 0)
		return;
	r->pid[i] = -1;
	if (r->pfd[i].fd >= 0) {
		close(r->pfd[i].fd);
		r->pfd[i].fd = -1;
		r->out[i].end = END_TIMEOUT;
		return;
	}
	judge_end(r, i, st);
}

static void
nostart(struct run *r, size_t i, int err)
{
	r->out[i].end = END_NOSTART;
	r->out[i].detail = err;
}

/* Lane 0's check i: start it and wait for its report. */
static void
run_one(struct run *r, size_t i, int stack, const struct probe_ctx *ctx, probe_child_fn *fn)
{
	struct child_arg *arg = &r->arg[stack];
	int p[2], e;

	if (pipe2(p, O_CLOEXEC) < 0) {
		nostart(r, i, errno);
		return;
	}
	arg->fn = fn;
	arg->i = i;
	arg->ctx = ctx;
	arg->wfd = p[1];
	arg->parent = r->self;
	if (PROBE_FORK_ALL) {
		r->pid[i] = fork();
		if (r->pid[i] == 0) {
			close(p[0]);
			fn(i, ctx, p[1]);
			_exit(0);
		}
	} else {
		r->pid[i] = clone(child_main, child_stack[stack] + CHILD_STACK, CLONE_VM | SIGCHLD, arg);
	}
	e = errno;
	close(p[1]);
	if (r->pid[i] < 0) {
		close(p[0]);
		r->pid[i] = -1;
		nostart(r, i, e);
		return;
	}
	r->pfd[i].fd = p[0];
	collect(r, i);
	reap(r, i, 0);
}

int
probe_run(const struct probe_ctx *ctx, struct probe_outcome *out, int timeout_ms,
    probe_child_fn *child)
{
	static struct lane lane;
	struct run r;
	pid_t lane1 = -1;
	size_t i, last[2] = { (size_t)-1, (size_t)-1 };
	int p[2], st, n1 = 0, k = 0;

	if (probe_nchecks > MAXCHECKS) {
		errno = E2BIG;
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.out = out;
	r.n = probe_nchecks;
	r.self = getpid();
	for (i = 0; i <= r.n; i++) {
		r.pfd[i].fd = -1;
		r.pfd[i].events = POLLIN;
	}
	memset(&lane, 0, sizeof lane);
	lane.fn = child;
	lane.ctx = ctx;
	lane.n = r.n;
	lane.status_fd = -1;
	for (i = 0; i < r.n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		r.pid[i] = -1;
		lane.wfd[i] = -1;
		if (lane_of(i) != 1)
			continue;
		if (pipe2(p, O_CLOEXEC) < 0) {
			nostart(&r, i, errno);
			continue;
		}
		r.pfd[i].fd = p[0];
		lane.wfd[i] = p[1];
		n1++;
	}
	r.deadline = now_ms() + timeout_ms;
	/* orphans of lane 1 (after a timeout) are reaped here, not left to init */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (n1 > 0 && pipe2(p, O_CLOEXEC) == 0) {
		lane.status_fd = p[1];
		r.pfd[r.n].fd = p[0];
		lane1 = fork();
		if (lane1 == 0) {
			close(p[0]);
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != r.self)
				_exit(EXIT_FORK_LOST);
			lane_main(&lane);
		}
		close(p[1]);
		if (lane1 < 0) {
			close(p[0]);
			r.pfd[r.n].fd = -1;
		}
	}
	for (i = 0; i < r.n; i++)
		if (lane.wfd[i] >= 0)
			close(lane.wfd[i]);

	for (i = 0; i < r.n; i++) {
		if (lane_of(i) != 0)
			continue;
		if (last[k] != (size_t)-1)	/* the stack's last user must be gone */
			reap(&r, last[k], 1);
		run_one(&r, i, k, ctx, child);
		last[k] = i;
		k ^= 1;
	}
	for (i = 0; i < r.n; i++)
		if (lane_of(i) == 0)
			reap(&r, i, 1);

	collect(&r, r.n);
	if (lane1 > 0) {
		int killed = r.pfd[r.n].fd >= 0;	/* lane 1 busy at the deadline */


		if (killed)
			kill(lane1, SIGKILL);
		while (waitpid(lane1, &st, __WALL) < 0 && errno == EINTR)
			;
		/* Lane 1's child dies with it and, this process being its
		 * subreaper, comes back here to be reaped. */
		for (i = 0; killed && i < 500; i++) {
			struct timespec ms = { 0, 1000000 };
			pid_t w = waitpid(-1, &st, __WALL | WNOHANG);

			if (w < 0)
				break;
			if (w == 0)
				nanosleep(&ms, NULL);
		}
	}
	if (r.pfd[r.n].fd >= 0)
		close(r.pfd[r.n].fd);
	for (i = 0; i < r.n; i++) {
		if (lane_of(i) != 1 || out[i].end == END_NOSTART)
			continue;
		if (lane1 < 0)
			nostart(&r, i, ECHILD);
		else if (r.pfd[i].fd >= 0 || !r.have_status[i])
			out[i].end = END_TIMEOUT;
		else
			judge_end(&r, i, r.status[i]);
		if (r.pfd[i].fd >= 0) {
			close(r.pfd[i].fd);
			r.pfd[i].fd = -1;
		}
	}
	return 0;
}
