/*
 * store-trace: run a program under ptrace (following its children) to
 * test session-store and home-stage from outside, never through a hook in
 * the programs themselves.
 *
 *   store-trace -o OUT count -- PROG ARG...     syscall entries, all tracees
 *   store-trace -o OUT kill N -- PROG ARG...    SIGKILL everything at entry N
 *   store-trace -o OUT watch FILE -- PROG ARG... at every syscall stop, check
 *                                               /proc/PID/cmdline and environ
 *                                               of every tracee for FILE's text
 *   store-trace -o OUT rss -- PROG ARG...       peak RSS (KiB) of PROG
 *   store-trace -o OUT plant dir|symlink TARGET -- PROG ARG...
 *                      at PROG's first mkdirat of an attempt tree's name (aNONCE), create
 *                      that very path first (a directory, or a symlink to
 *                      TARGET): the race a pre-creating attacker would run
 *   store-trace -o OUT plant fill NAME -- PROG ARG...
 *                      at PROG's first rmdir (unlinkat AT_REMOVEDIR) of NAME,
 *                      create NAME/intruder first: a process left running
 *
 * OUT gets one line "key value..."; the exit status is PROG's (128+N when
 * killed by signal N).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdio.h"

#ifndef PTRACE_GET_SYSCALL_INFO
#define PTRACE_GET_SYSCALL_INFO 0x420e
#endif
#define OPT (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

#include "store.h"

static pid_t pids[256];
static int npids;

static void
track(pid_t p)
{
	for (int i = 0; i < npids; i++)
		if (pids[i] == p)
			return;
	if (npids < 256)
		pids[npids++] = p;
}

static void
untrack(pid_t p)
{
	for (int i = 0; i < npids; i++)
		if (pids[i] == p) {
			pids[i] = pids[--npids];
			return;
		}
}

static const char *plant_kind, *plant_target;
static char planted[8200];

/* Read the path argument of a stopped tracee's mkdirat and create it first. */
static void
plant(pid_t p, const unsigned char *info)
{
	uint64_t nr, a0, a1;
	char name[4096], dir[4096], link[64];
	struct iovec l, r;
	ssize_t n;

	uint64_t a2;
	int fill = strcmp(plant_kind, "fill") == 0;

	memcpy(&nr, info + 24, 8);
	if (nr != (fill ? SYS_unlinkat : SYS_mkdirat) || planted[0])
		return;
	memcpy(&a0, info + 32, 8);
	memcpy(&a1, info + 40, 8);
	memcpy(&a2, info + 48, 8);
	if (fill && !(a2 & AT_REMOVEDIR))
		return;
	l.iov_base = name; l.iov_len = sizeof name - 1;
	r.iov_base = (void *)(uintptr_t)a1; r.iov_len = sizeof name - 1;
	n = process_vm_readv(p, &l, 1, &r, 1, 0);
	if (n <= 0)
		return;
	name[n] = '\0';
	if (fill ? strcmp(name, plant_target) != 0 : !store_tree_name_ok(name, strlen(name)))
		return;
	snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)p, (int)a0);
	n = readlink(link, dir, sizeof dir - 1);
	if (n <= 0)
		return;
	dir[n] = '\0';
	snprintf(planted, sizeof planted, "%s/%s", dir, name);
	if (fill) {
		char f[8300];
		snprintf(f, sizeof f, "%s/intruder", planted);
		close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	} else if (strcmp(plant_kind, "dir") == 0)
		mkdir(planted, 0777);
	else
		symlink(plant_target, planted);
}

static char *secret;
static size_t secret_len;
static long leaks, checks;

static void
check_proc(pid_t p)
{
	static const char *const files[] = { "cmdline", "environ" };
	char path[64], buf[65536];
	ssize_t n;
	int fd;

	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "/proc/%d/%s", (int)p, files[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof buf);
		close(fd);
		if (n < 0)
			continue;
		checks++;
		if (memmem(buf, (size_t)n, secret, secret_len) != NULL)
			leaks++;
	}
}

int
main(int argc, char **argv, char **envp)
{
	const char *out = NULL, *mode;
	long target = -1, count = 0;
	int status = 0, st, i, killed = 0;
	struct rusage ru;
	pid_t root, p;
	FILE *f;
	size_t len;

	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || out == NULL) {
		fprintf(stderr, "usage: store-trace -o OUT count|kill N|watch FILE|rss -- PROG ARG...\n");
		return 2;
	}
	mode = argv[1];
	argv += 2;
	argc -= 2;
	if (strcmp(mode, "kill") == 0) {
		target = atol(argv[0]);
		argv++;
	} else if (strcmp(mode, "plant") == 0) {
		plant_kind = argv[0];
		plant_target = argv[1];
		argv += 2;
	} else if (strcmp(mode, "watch") == 0) {
		if (file_read_bounded(AT_FDCWD, argv[0], 4096, &secret, &len) < 0 || len == 0) {
			perror("store-trace: secret");
			return 2;
		}
		secret_len = len;
		while (secret_len > 0 && secret[secret_len - 1] == '\n')
			secret_len--;
		argv++;
	}
	if (strcmp(argv[0], "--") != 0) {
		fprintf(stderr, "store-trace: -- expected\n");
		return 2;
	}
	argv++;
	root = fork();
	if (root < 0)
		return 2;
	if (root == 0) {
		if (strcmp(mode, "rss") != 0) {
			ptrace(PTRACE_TRACEME, 0, 0, 0);
			raise(SIGSTOP);
		}
		execve(argv[0], argv, envp);
		_exit(127);
	}
	if (strcmp(mode, "rss") == 0) {
		if (wait4(root, &st, 0, &ru) < 0)
			return 2;
		f = fopen(out, "w");
		fprintf(f, "maxrss %ld\n", ru.ru_maxrss);
		fclose(f);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	if (waitpid(root, &st, 0) < 0 || !WIFSTOPPED(st))
		return 2;
	ptrace(PTRACE_SETOPTIONS, root, 0, OPT);
	track(root);
	ptrace(PTRACE_SYSCALL, root, 0, 0);
	while (npids > 0) {
		p = waitpid(-1, &st, __WALL);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (p == root)
				status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			untrack(p);
			continue;
		}
		track(p);	/* a new child may report before its parent's event */
		if (!WIFSTOPPED(st))
			continue;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			unsigned char info[128];
			long r = ptrace(PTRACE_GET_SYSCALL_INFO, p, sizeof info, info);
			if (r > 0 && info[0] == 1) {	/* entry */
				count++;
				if (secret)
					check_proc(p);
				if (plant_kind)
					plant(p, info);
				if (count == target && !killed) {
					for (i = 0; i < npids; i++)
						kill(pids[i], SIGKILL);
					killed = 1;
					continue;
				}
			}
			ptrace(PTRACE_SYSCALL, p, 0, 0);
		} else if (st >> 16) {			/* fork, clone, exec events */
			unsigned long msg;
			if (ptrace(PTRACE_GETEVENTMSG, p, 0, &msg) == 0 && (st >> 16) != PTRACE_EVENT_EXEC)
				track((pid_t)msg);
			ptrace(PTRACE_SYSCALL, p, 0, 0);
		} else if (WSTOPSIG(st) == SIGSTOP) {	/* a new tracee's first stop */
			ptrace(PTRACE_SYSCALL, p, 0, 0);
		} else {
			ptrace(PTRACE_SYSCALL, p, 0, WSTOPSIG(st));
		}
	}
	f = fopen(out, "w");
	if (f == NULL)
		return 2;
	if (plant_kind)
		fprintf(f, "planted %s\n", planted);
	else if (secret)
		fprintf(f, "leaks %ld checks %ld\n", leaks, checks);
	else
		fprintf(f, "syscalls %ld killed %d\n", count, killed);
	fclose(f);
	return status;
}
