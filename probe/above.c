/* above: see above.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "above.h"
#include "fdio.h"
#include "probe.h"

/* the number after "NAME:" at the start of a line, or -1 */
static int
field(const char *s, size_t len, const char *name)
{
	size_t n = strlen(name), i = 0;
	long v;

	while (i < len) {
		const char *line = s + i, *nl = memchr(line, '\n', len - i);
		size_t l = nl ? (size_t)(nl - line) : len - i;

		if (l > n && memcmp(line, name, n) == 0 && line[n] == ':') {
			size_t j = n + 1;

			while (j < l && (line[j] == ' ' || line[j] == '\t'))
				j++;
			if (j == l || line[j] < '0' || line[j] > '9')
				return -1;
			for (v = 0; j < l && line[j] >= '0' && line[j] <= '9' && v < 100000; j++)
				v = v * 10 + (line[j] - '0');
			return j == l ? (int)v : -1;
		}
		i += l + 1;
	}
	return -1;
}

void
probe_seccomp_parse(const char *status, size_t len, int *mode, int *filters)
{
	*mode = field(status, len, "Seccomp");
	*filters = field(status, len, "Seccomp_filters");
}

/* The child: no boundary; only the checks wanted (apply_err 0) attempt. */
static _Noreturn void
outside(const struct probe_ctx *ctx, const int *need, int wfd, pid_t parent)
{
	static struct probe_obs ob[PROBE_MAX_CHECKS];
	size_t i;
	int c;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(122);
	for (i = 0; i < probe_nchecks; i++) {
		ob[i].magic = PROBE_OBS_MAGIC;
		ob[i].apply_err = need[i] ? 0 : EALREADY;
	}
	for (c = 0; c < probe_nchildren; c++) {
		probe_attempts(c, 0, ctx, wfd, -1, ob);
		probe_attempts(c, 1, ctx, wfd, -1, ob);
	}
	_exit(fd_write_all(wfd, ob, probe_nchecks * sizeof ob[0]) == 0 ? 0 : 1);
}

/* The caller's seccomp mode and filter count, from /proc/self/status. Its
 * own function: the buffer's pages are touched (stack probes) only when a
 * check needs it. */
static __attribute__((noinline)) void
caller_seccomp(int *mode, int *filters)
{
	char status[16384];
	ssize_t n;
	int fd;

	*mode = *filters = -1;
	if ((fd = openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = fd_read_bounded(fd, status, sizeof status);
		if (n > 0)
			probe_seccomp_parse(status, (size_t)n, mode, filters);
		close(fd);
	}
}

void
probe_above(const struct probe_ctx *ctx, struct probe_outcome *oc, int timeout_ms)
{
	static struct probe_obs ob[PROBE_MAX_CHECKS];
	int need[PROBE_MAX_CHECKS], any = 0, mode, filters, p[2], st;
	size_t i, got = 0, want = probe_nchecks * sizeof ob[0];
	long deadline;
	ssize_t n;
	pid_t pid, self;

	for (i = 0; i < probe_nchecks; i++)
		any |= need[i] = probe_control_refused(&probe_checks[i], &oc[i]) != 0;
	if (!any)
		return;
	/* the clock only now: the common case (no control refused) reads
	 * none, one system call fewer after the last child (run.c's
	 * probe_now_ms, the system call) */
	deadline = probe_now_ms() + timeout_ms;
	caller_seccomp(&mode, &filters);
	for (i = 0; i < probe_nchecks; i++) {
		oc[i].above.seccomp = mode;
		oc[i].above.filters = filters;
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	self = getpid();
	pid = fork();
	if (pid == 0)
		outside(ctx, need, p[1], self);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return;
	}
	for (;;) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		long wait = deadline - probe_now_ms();

		if (wait <= 0 || (poll(&pf, 1, (int)wait) < 0 && errno != EINTR))
			break;
		n = read(p[0], (char *)ob + got, want - got);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == want)
			break;
	}
	close(p[0]);
	if (got != want)
		kill(pid, SIGKILL);	/* late or broken */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return;
	if (got != want || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return;
	for (i = 0; i < probe_nchecks; i++)
		if (need[i]) {
			oc[i].above.obs = ob[i];
			oc[i].above.ran = 1;
		}
}
