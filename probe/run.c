/* run: the parent's fixtures, and every check's child at once. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

	memset(ctx, 0, sizeof *ctx);
	ctx->leak_fd = ctx->tcp_allow_fd = ctx->tcp_deny_fd = ctx->abs_fd = -1;
	ctx->parent = getpid();
	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
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

int
probe_run(const struct probe_ctx *ctx, struct probe_outcome *out, int timeout_ms,
    probe_child_fn *child)
{
	struct pollfd pfd[MAXCHECKS];
	pid_t pid[MAXCHECKS];
	size_t got[MAXCHECKS];
	size_t i, n = probe_nchecks, left = 0;
	long deadline;
	int p[2], st;

	if (n > MAXCHECKS) {
		errno = E2BIG;
		return -1;
	}
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		pid[i] = -1;
		got[i] = 0;
		pfd[i].fd = -1;
		pfd[i].events = POLLIN;
		if (pipe2(p, O_CLOEXEC) < 0) {
			out[i].end = END_NOSTART;
			out[i].detail = errno;
			continue;
		}
		pid[i] = fork();
		if (pid[i] == 0) {
			close(p[0]);
			child(i, ctx, p[1]);
			_exit(0);
		}
		close(p[1]);
		if (pid[i] < 0) {
			out[i].end = END_NOSTART;
			out[i].detail = errno;
			close(p[0]);
			continue;
		}
		pfd[i].fd = p[0];
		left++;
	}
	deadline = now_ms() + timeout_ms;
	while (left > 0) {
		long wait = deadline - now_ms();
		int r;

		if (wait <= 0)
			break;
		r = poll(pfd, n, (int)wait);
		if (r < 0 && errno != EINTR)
			break;
		for (i = 0; r > 0 && i < n; i++) {
			ssize_t m;

			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			m = read(pfd[i].fd, (char *)&out[i].obs + got[i], sizeof out[i].obs - got[i]);
			if (m < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (m > 0)
				got[i] += (size_t)m;
			if (m <= 0 || got[i] == sizeof out[i].obs) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				left--;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (pid[i] < 0)
			continue;
		if (pfd[i].fd >= 0) {	/* still silent at the deadline */
			kill(pid[i], SIGKILL);
			close(pfd[i].fd);
			out[i].end = END_TIMEOUT;
		}
		while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (out[i].end == END_TIMEOUT)
			continue;
		if (WIFSIGNALED(st)) {
			out[i].end = END_SIGNALED;
			out[i].detail = WTERMSIG(st);
		} else if (WEXITSTATUS(st) != 0) {
			out[i].end = END_EXITED;
			out[i].detail = WEXITSTATUS(st);
		} else if (got[i] != sizeof out[i].obs) {
			out[i].end = END_SHORT;
			out[i].detail = (int)got[i];
		} else {
			out[i].end = END_REPORTED;
		}
	}
	return 0;
}
