/* contain-try OP [ARG...]: attempt one reach past the boundary and print
 * "ok" or the errno name of the call that failed. Exit 0 when it could try,
 * 2 on usage. PID 0 names the caller itself (the control). Every call on
 * another process writes back the value that process already has, so an
 * attempt that gets through changes nothing.
 *   namespaces:  unshare-user | unshare-mount | unshare-none | clone-user |
 *                clone3 | clone3-user | fork | spawn PROG | thread
 *   processes:   prlimit PID | setprio PID | setprio-pgrp PGID |
 *                setprio-user UID | affinity PID | setscheduler PID |
 *                setparam PID | setattr PID | ioprio PID | migrate PID |
 *                move-pages PID | madvise PID (through a pidfd) | setns-user PID
 *   sockets:     socket FAMILY TYPE PROTO (numbers)
 *   /proc:       read PATH (one byte) | readlink PATH */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#include "compat.h"
#ifndef SYS_sched_setattr
#define SYS_sched_setattr 314
#endif
#ifndef SYS_sched_getattr
#define SYS_sched_getattr 315
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif

static const char *
ename(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "ok";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case ENOSYS: return "ENOSYS";
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EIO: return "EIO";
	}
	snprintf(buf, sizeof buf, "E%d", e);
	return buf;
}

static int
say(long r)
{
	puts(ename(r < 0 ? errno : 0));
	return 0;
}

/* A child that exits at once; the errno of the call that made it. */
static int
reap(long pid)
{
	int st;

	if (pid < 0)
		return say(-1);
	if (pid == 0)
		_exit(0);
	if (waitpid((pid_t)pid, &st, 0) < 0)
		return say(-1);
	return say(WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : (errno = EIO, -1));
}

struct clone_args3 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static void *
nothing(void *a)
{
	return a;
}

static int
ns_op(const char *op, const char *a, char *envp[])
{
	struct clone_args3 ca;
	pthread_t t;
	pid_t pid;
	int r;

	memset(&ca, 0, sizeof ca);
	ca.exit_signal = SIGCHLD;
	if (strcmp(op, "unshare-user") == 0)
		return say(unshare(CLONE_NEWUSER));
	if (strcmp(op, "unshare-mount") == 0)
		return say(unshare(CLONE_NEWNS));
	if (strcmp(op, "unshare-none") == 0)
		return say(unshare(0));
	if (strcmp(op, "clone-user") == 0)
		return reap(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
	if (strcmp(op, "clone3") == 0)
		return reap(syscall(SYS_clone3, &ca, sizeof ca));
	if (strcmp(op, "clone3-user") == 0) {
		ca.flags = CLONE_NEWUSER;
		return reap(syscall(SYS_clone3, &ca, sizeof ca));
	}
	if (strcmp(op, "fork") == 0)
		return reap(fork());
	if (strcmp(op, "spawn") == 0 && a) {
		char *av[] = { (char *)a, NULL };

		r = posix_spawn(&pid, a, NULL, NULL, av, envp);
		if (r != 0) {
			errno = r;
			return say(-1);
		}
		return reap(pid);
	}
	if (strcmp(op, "thread") == 0) {
		r = pthread_create(&t, NULL, nothing, NULL);
		if (r != 0) {
			errno = r;
			return say(-1);
		}
		pthread_join(t, NULL);
		return say(0);
	}
	return -1;
}

static int
prio_op(const char *op, long id)
{
	int v;

	errno = 0;
	if (strcmp(op, "setprio") == 0) {
		v = getpriority(PRIO_PROCESS, (id_t)id);
		if (v == -1 && errno)
			return say(-1);
		return say(setpriority(PRIO_PROCESS, (id_t)id, v));
	}
	/* groups and users: an id with nobody in it (the kernel says ESRCH), so
	 * nothing changes whatever answers */
	if (strcmp(op, "setprio-pgrp") == 0)
		return say(setpriority(PRIO_PGRP, (id_t)id, 0));
	if (strcmp(op, "setprio-user") == 0)
		return say(setpriority(PRIO_USER, (id_t)id, 0));
	return -1;
}

static int
sched_op(const char *op, pid_t pid)
{
	uint32_t attr[14];	/* struct sched_attr, version 0 (48 bytes) */
	struct sched_param sp;
	cpu_set_t set;
	int pol;

	if (strcmp(op, "affinity") == 0) {
		if (sched_getaffinity(pid, sizeof set, &set) != 0)
			return say(-1);
		return say(sched_setaffinity(pid, sizeof set, &set));
	}
	if (strcmp(op, "setscheduler") == 0 || strcmp(op, "setparam") == 0) {
		/* raw calls: musl's wrappers answer ENOSYS without asking */
		pol = (int)syscall(SYS_sched_getscheduler, pid);
		if (pol < 0 || syscall(SYS_sched_getparam, pid, &sp) != 0)
			return say(-1);
		if (op[3] == 's')
			return say(syscall(SYS_sched_setscheduler, pid, pol, &sp));
		return say(syscall(SYS_sched_setparam, pid, &sp));
	}
	if (strcmp(op, "setattr") == 0) {
		memset(attr, 0, sizeof attr);
		if (syscall(SYS_sched_getattr, pid, attr, 48, 0) != 0)
			return say(-1);
		attr[0] = 48;
		return say(syscall(SYS_sched_setattr, pid, attr, 0));
	}
	return -1;
}

static int
mem_op(const char *op, pid_t pid)
{
	unsigned long mask = 1;	/* node 0 to node 0: nothing moves */
	struct iovec iov;
	int fd;

	if (strcmp(op, "prlimit") == 0) {
		struct rlimit rl;

		if (prlimit(pid, RLIMIT_NOFILE, NULL, &rl) != 0)
			return say(-1);
		return say(prlimit(pid, RLIMIT_NOFILE, &rl, NULL));
	}
	if (strcmp(op, "ioprio") == 0) {
		long v = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);

		if (v < 0)
			return say(-1);
		return say(syscall(SYS_ioprio_set, 1, pid, v));
	}
	if (strcmp(op, "migrate") == 0)
		return say(syscall(SYS_migrate_pages, pid, 8 * sizeof mask, &mask, &mask));
	if (strcmp(op, "move-pages") == 0)	/* no pages: asks, moves nothing */
		return say(syscall(SYS_move_pages, pid, 0, NULL, NULL, NULL, 0));
	if (strcmp(op, "madvise") == 0) {
		static char page[4096] __attribute__((aligned(4096)));

		page[0] = 1;
		iov.iov_base = page;
		iov.iov_len = sizeof page;
		if ((fd = (int)syscall(SYS_pidfd_open, pid ? pid : getpid(), 0)) < 0)
			return say(-1);
		/* MADV_COLD is a hint: the page stays as it is */
		return say(syscall(SYS_process_madvise, fd, &iov, 1, MADV_COLD, 0) < 0 ? -1 : 0);
	}
	if (strcmp(op, "setns-user") == 0) {
		if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
			return say(-1);
		return say(setns(fd, CLONE_NEWUSER));
	}
	return -1;
}

int
main(int argc, char *argv[], char *envp[])
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : NULL;
	long id = a ? strtol(a, NULL, 10) : 0;
	int s;

	if (ns_op(op, a, envp) == 0)
		return 0;
	if (a && (prio_op(op, id) == 0 || sched_op(op, (pid_t)id) == 0 ||
	    mem_op(op, (pid_t)id) == 0))
		return 0;
	if (strcmp(op, "read") == 0 && a) {
		char c;
		int fd = open(a, O_RDONLY | O_CLOEXEC);

		return say(fd < 0 || read(fd, &c, 1) < 0 ? -1 : 0);
	}
	if (strcmp(op, "readlink") == 0 && a) {
		char buf[256];

		return say(readlink(a, buf, sizeof buf) < 0 ? -1 : 0);
	}
	if (strcmp(op, "socket") == 0 && argc == 5) {
		s = socket(atoi(argv[2]), atoi(argv[3]) | SOCK_CLOEXEC, atoi(argv[4]));
		if (s >= 0)
			close(s);
		return say(s);
	}
	fprintf(stderr, "usage: contain-try OP [ARG...]\n");
	return 2;
}
