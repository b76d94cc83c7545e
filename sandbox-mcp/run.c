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

#include "clock.h"
#include "proctree.h"
#include "run.h"
#include "../supervisor/cgroup.h"
#include "../supervisor/reslimit.h"
#include "../supervisor/sweep.h"

int
run_init(void)
{
	/* a write over RLIMIT_FSIZE fails with EFBIG instead of killing */
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
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

void
run_sweep(void)
{
	proc_sweep();
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
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | (o->group ? POSIX_SPAWN_SETPGROUP : 0));
	posix_spawnattr_setpgroup(&at, 0);
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

/* fork and exec, joining cg's cgroups before the exec (posix_spawn has
 * no such step); only async-signal-safe calls in the child */
static int
spawn_cg(char *const argv[], char *const envp[], const struct run_opt *o, const struct cg *cg,
    const struct keeper_args *ka, int in, int out, int err, pid_t *pid)
{
	sigset_t none;
	pid_t p = fork();

	if (p < 0)
		return errno;
	if (p == 0) {
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (setpgid(0, 0) < 0 || (cg && cg_enter(cg, 0) < 0) || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(err, 2) < 0 || (o->cwd && chdir(o->cwd) < 0))
			_exit(125);
		for (int i = 0; i < ka->nrl; i++)
			if (setrlimit(ka->rl_res[i], &ka->rl[i]) < 0)
				_exit(125);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	setpgid(p, p);	/* whichever of the two comes first */
	*pid = p;
	return 0;
}

/* the end of the tree: the cgroup whole, the group, then the sweep */
static void
end_tree(const struct run_opt *o, const struct cg *cg, int ncg, pid_t pid)
{
	if (ncg > 0)
		cg_kill(cg);
	if (o->group) {
		kill(-pid, SIGKILL);
		run_sweep();
	}
}

int
run_prog(char *const argv[], char *const envp[], const struct run_opt *o, struct run_res *r)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pi[2] = { -1, -1 }, pfd = -1, e;
	struct rlimit old, lim;
	int64_t deadline = o->timeout_ms ? clock_ms(CLOCK_MONOTONIC) + o->timeout_ms : 0;
	size_t inoff = 0;
	pid_t pid;
	int done = 0, ws = 0, nul, ncg = 0;
	char chunk[65536];
	struct cg cg;
	struct keeper_args ka;

	memset(r, 0, sizeof *r);
	memset(&ka, 0, sizeof ka);
	cg_init(&cg);
	if (o->group && o->cgroup && o->lim) {
		/* corral's own decision: cgroup controllers where they can be
		 * made, else RLIMIT_AS and RLIMIT_NPROC; root with no pids
		 * cgroup is refused (said on stderr) */
		if (limits_apply(o->lim, &cg, &ka) < 0) {
			r->limits_refused = 1;
			return errno = EPERM, -1;
		}
		ncg = ka.cg ? 1 : 0;
	} else if (o->group && o->cgroup && (ncg = cg_create(&cg, 0, 0)) < 0) {
		/* no cgroup to be had here (as an ordinary user, most often):
		 * the process group and the subreaper's sweep alone */
		ncg = 0;
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
	e = ncg > 0 || ka.nrl ? spawn_cg(argv, envp, o, ncg > 0 ? &cg : NULL, &ka, nul, po[1], pe[1], &pid) :
	    spawn(argv, envp, o, nul, po[1], pe[1], &pid);
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
			done = 1;
			/* what it left behind in its group or beyond ends with it */
			end_tree(o, &cg, ncg, pid);
		} else if (!done && deadline && clock_ms(CLOCK_MONOTONIC) >= deadline) {
			r->timed_out = 1;
			if (ncg > 0)
				cg_kill(&cg);
			kill(o->group ? -pid : pid, SIGKILL);
			waitpid(pid, &ws, 0);
			done = 1;
			end_tree(o, &cg, ncg, pid);
		}
	}
	if (!done)
		waitpid(pid, &ws, 0);
	if (pfd >= 0)
		close(pfd);
	if (pi[1] >= 0)
		close(pi[1]);
	r->status = ws;
	r->cgroup = ncg > 0;
	cg_remove(&cg);
	return 0;
fail:
	e = errno;
	if (ncg > 0)
		cg_remove(&cg);
	for (int *f = po; f < po + 2; f++) if (*f >= 0) close(*f);
	for (int *f = pe; f < pe + 2; f++) if (*f >= 0) close(*f);
	for (int *f = pi; f < pi + 2; f++) if (*f >= 0) close(*f);
	run_res_free(r);
	errno = e;
	return -1;
}
