/* contain: see contain.h. Every call on the parent (a process outside the
 * boundary, of the same uid) writes back the value the parent already has,
 * so an attempt that gets through changes nothing; ids of groups and users
 * name nobody (the kernel itself would answer ESRCH). Only raw system
 * calls: the last child shares the parent's memory, and libc's fork would
 * write the parent's thread data. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "contain.h"

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
enum { NL_ROUTE = 0, NL_SOCK_DIAG = 4, NL_UEVENT = 15, NL_GENERIC = 16,
	NOBODY_ID = 2000000000 };

static int64_t
res(long r)
{
	return r < 0 ? (errno ? errno : EIO) : 0;
}

static void
put(struct probe_obs *ob, int64_t v)
{
	if (ob->n < PROBE_MAX_ATT)
		ob->got[ob->n++] = v;
}

static int64_t
prlimit_same(pid_t pid)
{
	struct rlimit rl;

	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0)
		return res(-1);
	return res(syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, &rl, NULL));
}

void
contain_prlimit(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	/* the child's limit is the parent's: inherited, never changed */
	put(ob, prlimit_same(ctx->parent));
	put(ob, prlimit_same(0));
}

static int64_t
prio_same(pid_t pid)
{
	long v;

	errno = 0;
	v = syscall(SYS_getpriority, PRIO_PROCESS, pid);	/* 20 - nice */
	if (v < 0)
		return res(-1);
	return res(syscall(SYS_setpriority, PRIO_PROCESS, pid, 20 - v));
}

void
contain_setpriority(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, prio_same(ctx->parent));
	put(ob, res(syscall(SYS_setpriority, PRIO_PGRP, NOBODY_ID, 0)));
	put(ob, res(syscall(SYS_setpriority, PRIO_USER, NOBODY_ID, 0)));
	put(ob, prio_same(0));
}

static int64_t
affinity_same(pid_t pid)
{
	cpu_set_t set;

	if (syscall(SYS_sched_getaffinity, pid, sizeof set, &set) < 0)
		return res(-1);
	return res(syscall(SYS_sched_setaffinity, pid, sizeof set, &set));
}

void
contain_affinity(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, affinity_same(ctx->parent));
	put(ob, affinity_same(0));
}

static int64_t
sched_same(pid_t pid, int param_only)
{
	struct sched_param sp;
	long pol = syscall(SYS_sched_getscheduler, pid);

	if (pol < 0 || syscall(SYS_sched_getparam, pid, &sp) != 0)
		return res(-1);
	if (param_only)
		return res(syscall(SYS_sched_setparam, pid, &sp));
	return res(syscall(SYS_sched_setscheduler, pid, (int)pol, &sp));
}

void
contain_scheduler(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, sched_same(ctx->parent, 0));
	put(ob, sched_same(0, 0));
}

void
contain_schedparam(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, sched_same(ctx->parent, 1));
	put(ob, sched_same(0, 1));
}

static int64_t
attr_same(pid_t pid)
{
	uint32_t attr[12];	/* struct sched_attr, version 0: 48 bytes */

	memset(attr, 0, sizeof attr);
	if (syscall(SYS_sched_getattr, pid, attr, sizeof attr, 0) != 0)
		return res(-1);
	attr[0] = sizeof attr;
	return res(syscall(SYS_sched_setattr, pid, attr, 0));
}

void
contain_schedattr(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, attr_same(ctx->parent));
	put(ob, attr_same(0));
}

static int64_t
ioprio_same(pid_t pid)
{
	long v = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);

	if (v < 0)
		return res(-1);
	return res(syscall(SYS_ioprio_set, 1, pid, v));
}

void
contain_ioprio(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, ioprio_same(ctx->parent));
	put(ob, ioprio_same(0));
}

/* From node 0 to none: the kernel checks its right to the process
 * (ptrace's, EPERM), then refuses the empty target (EINVAL) and moves
 * nothing. Node 0 to node 0 moved nothing either, but only after
 * lru_cache_disable(), an expedited RCU grace period and a drain on every
 * CPU: 83 us on an idle machine, 2 to 32 ms on a loaded one. */
static int64_t
migrate(pid_t pid)
{
	unsigned long from = 1, to = 0;

	return res(syscall(SYS_migrate_pages, pid, 8 * sizeof from, &from, &to));
}

void
contain_migrate(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, migrate(ctx->parent));
	put(ob, migrate(0));
}

void
contain_movepages(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	/* no pages: the kernel checks its right to the process, moves nothing */
	put(ob, res(syscall(SYS_move_pages, ctx->parent, 0, NULL, NULL, NULL, 0)));
	put(ob, res(syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0)));
}

static int64_t
madvise_via(pid_t pid)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct iovec iov = { page, sizeof page };
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	int64_t r;

	if (fd < 0)
		return res(-1);
	/* MADV_COLD is a hint about the probe's own page: nothing changes */
	r = res(syscall(SYS_process_madvise, fd, &iov, 1, MADV_COLD, 0));
	close(fd);
	return r;
}

void
contain_madvise(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, madvise_via(ctx->parent));
	put(ob, madvise_via(getpid()));
}

static int64_t
sock(int family, int type, int proto)
{
	int s = socket(family, type | SOCK_CLOEXEC, proto);

	if (s < 0)
		return res(-1);
	close(s);
	return 0;
}

void
contain_families(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	put(ob, sock(AF_VSOCK, SOCK_STREAM, 0));
	put(ob, sock(AF_NETLINK, SOCK_RAW, NL_SOCK_DIAG));
	put(ob, sock(AF_NETLINK, SOCK_RAW, NL_UEVENT));
	put(ob, sock(AF_NETLINK, SOCK_RAW, NL_GENERIC));
	put(ob, sock(AF_NETLINK, SOCK_RAW, NL_ROUTE));
}

static int64_t
proc_open(const struct probe_ctx *ctx, const char *what, int flags, int readit)
{
	char path[64], c;
	int fd;
	int64_t r = 0;

	(void)snprintf(path, sizeof path, "/proc/%ld/%s", (long)ctx->parent, what);
	fd = openat(AT_FDCWD, path, flags | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return res(-1);
	if (readit && read(fd, &c, 1) < 0)
		r = res(-1);
	close(fd);
	return r;
}

static int64_t
proc_link(const struct probe_ctx *ctx, const char *what)
{
	char path[64], buf[256];

	(void)snprintf(path, sizeof path, "/proc/%ld/%s", (long)ctx->parent, what);
	return res(readlink(path, buf, sizeof buf));
}

void
contain_proc(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	char fd[32];

	put(ob, proc_open(ctx, "mem", O_RDONLY, 0));
	put(ob, proc_open(ctx, "maps", O_RDONLY, 1));
	/* fd/ itself lists for the same uid (numbers only); what each is
	 * needs ptrace-mode access: the parent's descriptor on B/f */
	(void)snprintf(fd, sizeof fd, "fd/%d", ctx->leak_fd);
	put(ob, proc_link(ctx, fd));
	put(ob, proc_open(ctx, "cmdline", O_RDONLY, 1));
	put(ob, proc_open(ctx, "status", O_RDONLY, 1));
}

/* A process made by clone or clone3: its own copy of memory, gone at once. */
static int64_t
reap(long pid)
{
	int st;

	if (pid < 0)
		return res(-1);
	if (pid == 0)
		syscall(SYS_exit_group, 0);
	while (syscall(SYS_wait4, pid, &st, __WALL, NULL) < 0)
		if (errno != EINTR)
			return res(-1);
	return 0;
}

void
contain_userns(const struct probe_ctx *ctx, struct probe_obs *ob)
{
	uint64_t ca[8] = { 0, 0, 0, 0, SIGCHLD, 0, 0, 0 };	/* struct clone_args */

	put(ob, reap(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)));
	put(ob, reap(syscall(SYS_clone3, ca, sizeof ca)));
	put(ob, res(syscall(SYS_unshare, 0)));
	put(ob, res(syscall(SYS_unshare, CLONE_NEWUSER)));
}
