#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "argv.h"
#include "cgroup.h"
#include "clock.h"
#include "proctree.h"
#include "reslimit.h"
#include "run.h"

/* can keeper make a cgroup here (any hierarchy)? Probed once */
static int cgroup_here = -1;

int
run_init(void)
{
	/* a write over RLIMIT_FSIZE fails with EFBIG instead of killing */
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static int
cgroup_ok(void)
{
	struct cg_caps c;

	if (cgroup_here < 0) {
		cg_caps_probe(&c);
		cgroup_here = c.ok[CG_V2] || c.ok[CG_MEM1] || c.ok[CG_PIDS1];
	}
	return cgroup_here;
}

int
run_code(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 125;
}

void
run_res_free(struct run_res *r)
{
	buf_free(&r->out);
	buf_free(&r->err);
}

static void
keep(struct buf *b, uint64_t *total, const char *s, size_t n, size_t max)
{
	*total += n;
	if (b->len < max)
		buf_add(b, s, n < max - b->len ? n : max - b->len);
}

static int
spawn(char *const argv[], char *const envp[], const struct run_opt *o, int in, int out, int err,
    pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGXFSZ);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	if (o->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	r = posix_spawn(pid, argv[0], &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return r;
}

/* keeper's command line: the limits, the wall clock, then argv */
static int
keeper_argv(char *const argv[], const struct run_opt *o, struct argv *k)
{
	struct limits l = { { 0 } };

	if (o->lim)
		l = *o->lim;
	av_push(k, o->keeper);
	limits_argv(&l, k);
	if (o->timeout_ms) {
		av_push(k, "--wall-seconds");
		av_pushf(k, "%lld.%03lld", (long long)(o->timeout_ms / 1000), (long long)(o->timeout_ms % 1000));
	}
	av_push(k, "--");
	av_pushv(k, argv);
	return k->err ? (errno = k->err, -1) : 0;
}

int
run_prog(char *const argv[], char *const envp[], const struct run_opt *o, struct run_res *r)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pi[2] = { -1, -1 }, pfd = -1, e;
	struct rlimit old, lim;
	int64_t start = clock_ms(CLOCK_MONOTONIC), deadline = 0;
	size_t inoff = 0;
	pid_t pid;
	int done = 0, ws = 0, nul;
	char chunk[65536];
	struct argv ka = { 0 };
	struct lim_how hw[LIM_N];

	memset(r, 0, sizeof *r);
	if (o->keeper) {
		/* corral's own decision: cgroup controllers where they can be
		 * made, else RLIMIT_AS and RLIMIT_NPROC; root with no pids
		 * cgroup is refused (keeper would refuse it too) */
		if (o->lim && limits_decide(o->lim, hw) > 0) {
			fprintf(stderr, "sandbox-mcp: fatal: max_processes cannot be enforced on this machine: %s\n",
			    hw[LIM_PROCS].what);
			r->limits_refused = 1;
			return errno = EPERM, -1;
		}
		if (keeper_argv(argv, o, &ka) < 0)
			return -1;
		argv = ka.v;
		/* keeper ends it on time; this is the backstop for keeper itself */
		if (o->timeout_ms)
			deadline = start + o->timeout_ms + 10000;
	} else if (o->timeout_ms) {
		deadline = start + o->timeout_ms;
	}
	if ((o->outfd > 0 ? (po[1] = fcntl(o->outfd, F_DUPFD_CLOEXEC, 3)) : pipe2(po, O_CLOEXEC)) < 0 ||
	    pipe2(pe, O_CLOEXEC) < 0 || (o->input && pipe2(pi, O_CLOEXEC) < 0))
		goto fail;
	nul = o->input ? pi[0] : o->infd > 0 ? fcntl(o->infd, F_DUPFD_CLOEXEC, 3) :
	    open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul < 0)
		goto fail;
	if (o->fsize) {
		getrlimit(RLIMIT_FSIZE, &old);
		lim = old;
		lim.rlim_cur = o->fsize < old.rlim_max ? o->fsize : old.rlim_max;
		setrlimit(RLIMIT_FSIZE, &lim);
	}
	e = spawn(argv, envp, o, nul, po[1], pe[1], &pid);
	if (o->fsize)
		setrlimit(RLIMIT_FSIZE, &old);
	close(nul);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = pi[0] = -1;
	if (e) {
		errno = e;
		goto fail;
	}
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (o->input)
		fcntl(pi[1], F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd p[4];
		int np = 0, t = -1;
		if (po[0] >= 0) p[np++] = (struct pollfd){ po[0], POLLIN, 0 };
		if (pe[0] >= 0) p[np++] = (struct pollfd){ pe[0], POLLIN, 0 };
		if (!done && pfd >= 0) p[np++] = (struct pollfd){ pfd, POLLIN, 0 };
		if (pi[1] >= 0) p[np++] = (struct pollfd){ pi[1], POLLOUT, 0 };
		if (np == 0)
			break;
		if (!done && deadline) {
			int64_t left = deadline - clock_ms(CLOCK_MONOTONIC);
			t = left > 0 ? (int)left : 0;
		} else if (!done && pfd < 0) {
			t = 10;		/* no pidfd: poll for the exit */
		}
		if (poll(p, (nfds_t)np, t) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < np; i++) {
			ssize_t n;
			if (!p[i].revents)
				continue;
			if (p[i].fd == pi[1]) {
				n = write(pi[1], o->input + inoff, o->inputn - inoff);
				if (n > 0)
					inoff += (size_t)n;
				if (n < 0 || inoff >= o->inputn) {
					close(pi[1]);
					pi[1] = -1;
				}
				continue;
			}
			if (p[i].fd == pfd)
				continue;
			n = read(p[i].fd, chunk, sizeof chunk);
			if (n > 0) {
				if (p[i].fd == po[0])
					keep(&r->out, &r->out_bytes, chunk, (size_t)n, o->max_out);
				else
					keep(&r->err, &r->err_bytes, chunk, (size_t)n, o->max_out);
			} else if (n == 0 || errno != EINTR) {
				close(p[i].fd);
				if (p[i].fd == po[0]) po[0] = -1; else pe[0] = -1;
			}
		}
		if (!done && waitpid(pid, &ws, WNOHANG) == pid) {
			/* keeper has ended what the program left behind */
			done = 1;
			if (o->keeper && o->timeout_ms && WIFEXITED(ws) && WEXITSTATUS(ws) == 124 &&
			    clock_ms(CLOCK_MONOTONIC) - start >= o->timeout_ms)
				r->timed_out = 1;
		} else if (!done && deadline && clock_ms(CLOCK_MONOTONIC) >= deadline) {
			r->timed_out = 1;
			kill(pid, SIGKILL);
			waitpid(pid, &ws, 0);
			done = 1;
			/* keeper (or the program) killed: what it left comes here */
			if (o->keeper)
				proc_sweep();
		}
	}
	if (!done)
		waitpid(pid, &ws, 0);
	if (pfd >= 0)
		close(pfd);
	if (pi[1] >= 0)
		close(pi[1]);
	r->status = ws;
	r->cgroup = o->keeper && cgroup_ok();
	av_free(&ka);
	return 0;
fail:
	e = errno;
	av_free(&ka);
	for (int *f = po; f < po + 2; f++) if (*f >= 0) close(*f);
	for (int *f = pe; f < pe + 2; f++) if (*f >= 0) close(*f);
	for (int *f = pi; f < pi + 2; f++) if (*f >= 0) close(*f);
	run_res_free(r);
	errno = e;
	return -1;
}
