/* cgroup: see cgroup.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "cgroup.h"
#include "procspawn.h"
#include "proctree.h"
#include "fdio.h"

static const char *const kind_ctl[CG_NKIND] = { NULL, "memory", "pids" };

void
cg_init(struct cg *cg)
{
	memset(cg, 0, sizeof *cg);
	for (int k = 0; k < CG_NKIND; k++)
		cg->dir[k] = cg->procs[k] = -1;
	cg->kill = -1;
}

static const char *base_at(enum cg_kind k);

const char *
cg_path(const struct cg *cg, enum cg_kind k, char *buf, size_t n)
{
	const char *base = (cg->made & (1u << k)) ? base_at(k) : NULL;

	if (n == 0)
		return buf;
	if (base == NULL || (size_t)snprintf(buf, n, "%s/%s", base, cg->name) >= n)
		buf[0] = '\0';
	return buf;
}

static int
read_small(int dfd, const char *name, char *buf, size_t n)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, n - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	return (int)r;
}

static int
write_str(int dfd, const char *name, const char *s)
{
	int fd = openat(dfd, name, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = fd_write_all(fd, s, strlen(s));
	if (r < 0) {
		int e = errno;
		close(fd);
		return errno = e, -1;
	}
	return close(fd);
}

/* does the comma list opts hold word? */
static int
has_word(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

/* does the space-separated list hold word? (cgroup.controllers) */
static int
has_word_sp(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; p += strcspn(p, " \n"), p += strspn(p, " \n"))
		if (strncmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return 1;
	return 0;
}

/* does line (controllers of a /proc/self/cgroup line, or a mount's
 * options) belong to kind k? */
static int
is_kind(enum cg_kind k, const char *hier, const char *ctl)
{
	return k == CG_V2 ? hier != NULL && strcmp(hier, "0") == 0 && ctl[0] == '\0' : has_word(ctl, kind_ctl[k]);
}

/* corral's own cgroup path in each hierarchy (v2: "0::", v1: the line whose
 * controllers name kind_ctl), pointing into buf; NULL where none */
static int
own_paths(char *buf, size_t n, const char *own[CG_NKIND])
{
	char *line, *save = NULL;

	for (int k = 0; k < CG_NKIND; k++)
		own[k] = NULL;
	if (read_small(AT_FDCWD, "/proc/self/cgroup", buf, n) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2 == NULL)
			continue;
		*c2 = '\0';
		*c1 = '\0';
		for (int k = 0; k < CG_NKIND; k++)
			if (own[k] == NULL && is_kind(k, line, c1 + 1))
				own[k] = c2 + 1;
	}
	return 0;
}

/* fgets(line, n, f) over a descriptor read through a buffer of the
 * caller's: no FILE (musl's fopen is a mapping made and unmade, two fcntl
 * and 1 KB reads) */
struct lines {
	int fd, end;
	size_t off, len;
	char buf[8192];
};

static char *
next_line(struct lines *r, char *line, size_t n)
{
	size_t o = 0;
	ssize_t got;

	while (o + 1 < n) {
		if (r->off == r->len) {
			if (r->end)
				break;
			while ((got = read(r->fd, r->buf, sizeof r->buf)) < 0 && errno == EINTR)
				;
			if (got <= 0) {
				r->end = 1;
				break;
			}
			r->off = 0;
			r->len = (size_t)got;
		}
		{
			size_t take = r->len - r->off;
			const char *nl;
			if (take > n - 1 - o)
				take = n - 1 - o;
			if ((nl = memchr(r->buf + r->off, '\n', take)) != NULL)
				take = (size_t)(nl - (r->buf + r->off)) + 1;
			memcpy(line + o, r->buf + r->off, take);
			o += take;
			r->off += take;
			if (nl)
				break;
		}
	}
	if (o == 0)
		return NULL;
	line[o] = '\0';
	return line;
}

/* The directory our own cgroup of each kind is at, found once per process
 * (corral looks three times a run: the stale reap, the caps, the attempt),
 * the paths one after another in one pool: a page or two touched, not one
 * per path (each a page fault). */
static struct {
	int done;
	int ok[CG_NKIND];
	const char *dir[CG_NKIND];
	size_t used;
	char pool[CG_NKIND * PATH_MAX];
} bases;

/* bases.dir[k]: the mount point mnt of kind k's first mount, whose root is
 * root, and our own cgroup own under it */
static void
base_set(enum cg_kind k, const char *own, const char *mnt, const char *root)
{
	size_t rl = strlen(root);
	const char *rel = own;
	char *at = bases.pool + bases.used;
	int n;

	if (own == NULL)
		return;
	if (strcmp(root, "/") != 0) {
		if (strncmp(own, root, rl) != 0 || (own[rl] != '/' && own[rl] != '\0'))
			return;		/* our cgroup is not under that mount */
		rel = own + rl;
	}
	n = snprintf(at, sizeof bases.pool - bases.used, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel);
	if (n < 0 || (size_t)n >= PATH_MAX || (size_t)n >= sizeof bases.pool - bases.used)
		return;
	bases.dir[k] = at;
	bases.used += (size_t)n + 1;
	bases.ok[k] = 1;
}

/* mountinfo's lines, read through a buffer, the line being taken apart */
static struct {
	struct lines f;
	char line[4096];
} mi;

/* the first mount of each hierarchy, from mountinfo, and our own cgroup
 * under it (base_set) */
static int
mounts(const char *own[CG_NKIND])
{
	char *line = mi.line;
	int seen[CG_NKIND] = { 0 };

	memset(&mi.f, 0, offsetof(struct lines, buf));
	mi.f.fd = openat(AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mi.f.fd < 0)
		return -1;
	while (next_line(&mi.f, line, sizeof mi.line)) {
		char *dash = NULL, *fs, *opts;
		char *sp, *tok[6], *save = NULL;
		const char *q;
		int i = 0;
		/* strstr(line, " - "), by strchr's word at a time */
		for (sp = strchr(line, '-'); sp && !dash; sp = strchr(sp + 1, '-'))
			if (sp > line && sp[-1] == ' ' && sp[1] == ' ')
				dash = sp - 1;
		if (dash == NULL)
			continue;
		/* most lines are not a cgroup mount: said before strtok_r */
		for (q = dash + 3; *q == ' '; q++)
			;
		if (strncmp(q, "cgroup", 6) != 0)
			continue;
		*dash = '\0';
		fs = strtok_r(dash + 3, " ", &save);
		if (fs == NULL || strncmp(fs, "cgroup", 6) != 0)
			continue;	/* most lines: not a cgroup mount */
		strtok_r(NULL, " ", &save);
		opts = strtok_r(NULL, " \n", &save);
		save = NULL;
		for (sp = strtok_r(line, " ", &save); sp && i < 6; sp = strtok_r(NULL, " ", &save))
			tok[i++] = sp;
		if (i < 5)
			continue;
		for (int k = 0; k < CG_NKIND; k++)
			if (!seen[k] && (k == CG_V2 ? strcmp(fs, "cgroup2") == 0
			    : strcmp(fs, "cgroup") == 0 && opts && has_word(opts, kind_ctl[k]))) {
				seen[k] = 1;
				base_set(k, own[k], tok[4], tok[3]);
			}
	}
	close(mi.f.fd);
	return 0;
}

static void
load_bases(void)
{
	static char buf[4096];
	const char *own[CG_NKIND];

	bases.done = 1;
	if (own_paths(buf, sizeof buf, own) == 0)
		(void)mounts(own);
}

/* the directory our own cgroup of kind k is at, or NULL */
static const char *
base_at(enum cg_kind k)
{
	if (!bases.done)
		load_bases();
	return bases.ok[k] ? bases.dir[k] : NULL;
}

/* the directory our own cgroup of kind k is at */
static int
base_of(enum cg_kind k, char *out, size_t n)
{
	const char *b = base_at(k);

	if (b == NULL)
		return errno = ENOENT, -1;
	if ((size_t)snprintf(out, n, "%s", b) >= n)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/* pid's start time (field 22 of /proc/PID/stat; 0: our own), for the
 * cgroup name */
static unsigned long long
start_time(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	int i;

	if (pid == 0)
		snprintf(path, sizeof path, "/proc/self/stat");
	else
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (read_small(AT_FDCWD, path, buf, sizeof buf) < 0 || (p = strrchr(buf, ')')) == NULL)
		return 0;
	for (i = 2; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

/* the caller's pid namespace (its inode), in which the cgroup name's pid
 * and start time mean something; 0 when /proc does not say */
static unsigned long long
pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* v2: the controllers a child cgroup of base may have */
static void
v2_controllers(const char *base, int *mem, int *pids)
{
	char buf[512], path[PATH_MAX + 32];

	*mem = *pids = 0;
	if ((size_t)snprintf(path, sizeof path, "%s/cgroup.subtree_control", base) >= sizeof path)
		return;
	if (read_small(AT_FDCWD, path, buf, sizeof buf) >= 0) {
		*mem = strstr(buf, "memory") != NULL;
		*pids = strstr(buf, "pids") != NULL;
	}
}

void
cg_caps_probe(struct cg_caps *c)
{
	char name[80], path[PATH_MAX + 96];

	memset(c, 0, sizeof *c);
	snprintf(name, sizeof name, "corral-probe-%ld", (long)getpid());
	for (int k = 0; k < CG_NKIND; k++) {
		if (base_of(k, c->base[k], sizeof c->base[k]) < 0) {
			c->base[k][0] = '\0';
			continue;
		}
		snprintf(path, sizeof path, "%s/%s", c->base[k], name);
		if (mkdir(path, 0755) == 0) {
			c->ok[k] = 1;
			rmdir(path);
		}
	}
	if (c->ok[CG_V2])
		v2_controllers(c->base[CG_V2], &c->v2mem, &c->v2pids);
}

/* a cgroup's path being made or removed: not on the stack, which in keeper
 * is a few pages */
static char cg_pathbuf[PATH_MAX];

/* kind k's cgroup; its controllers (v2) read only when a limit wants one */
static int
make_one(struct cg *cg, enum cg_kind k, int want_ctl)
{
	char *path = cg_pathbuf;
	const char *base = base_at(k);
	int e;

	if (base == NULL)
		return 0;
	if ((size_t)snprintf(path, sizeof cg_pathbuf, "%s/%s", base, cg->name) >= sizeof cg_pathbuf)
		return errno = ENAMETOOLONG, -1;
	for (int tries = 0;; tries++) {
		if (mkdir(path, 0755) < 0) {
			e = errno;
			/* not ours to make here: another mechanism applies */
			if (e == EACCES || e == EPERM || e == EROFS || e == ENOENT)
				return 0;
			return errno = e, -1;
		}
		/* held for the cgroup's life (the descriptor stays open): the
		 * mark that its maker runs, which cg_reap_stale reads whatever
		 * pid namespace either runs in */
		cg->dir[k] = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cg->dir[k] >= 0 && flock(cg->dir[k], LOCK_EX) == 0)
			cg->procs[k] = openat(cg->dir[k], "cgroup.procs", O_WRONLY | O_CLOEXEC);
		if (cg->dir[k] >= 0 && cg->procs[k] >= 0)
			break;
		e = errno;
		if (cg->dir[k] >= 0)
			close(cg->dir[k]);
		cg->dir[k] = -1;
		/* ENOENT: a reaper in another pid namespace, to which our name
		 * means nothing, removed it before the lock: make it again */
		if (e == ENOENT && tries < 3)
			continue;
		rmdir(path);
		return errno = e, -1;
	}
	cg->made |= 1u << k;
	/* cgroup.kill opened now, while the attempt is set up beside the
	 * proof, not at its end, where its open (kernfs: some 9 us) was on
	 * the way from the agent's exit to corral's. None (before 5.14):
	 * cg_kill's rounds */
	if (k == CG_V2)
		cg->kill = openat(cg->dir[k], "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (k == CG_V2 && want_ctl)
		v2_controllers(base, &cg->v2mem, &cg->v2pids);
	return 1;
}

int
cg_create(struct cg *cg, int want_mem, int want_pids)
{
	int n = 0, r;

	cg_init(cg);
	snprintf(cg->name, sizeof cg->name, "corral-%ld-%llu-%llu", (long)getpid(), start_time(0), pidns());
	if ((r = make_one(cg, CG_V2, want_mem || want_pids)) < 0)
		goto fail;
	n += r;
	if (want_mem && !cg->v2mem) {
		if ((r = make_one(cg, CG_MEM1, 0)) < 0)
			goto fail;
		n += r;
	}
	if ((want_pids && !cg->v2pids) || cg->dir[CG_V2] < 0) {
		if ((r = make_one(cg, CG_PIDS1, 0)) < 0)
			goto fail;
		n += r;
	}
	return n;
fail:
	r = errno;
	cg_remove(cg);
	return errno = r, -1;
}

int
cg_take(struct cg *cg, const char *dir)
{
	char buf[512];
	int e;

	cg_init(cg);
	snprintf(cg->name, sizeof cg->name, "given");
	cg->dir[CG_V2] = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cg->dir[CG_V2] < 0)
		return -1;
	cg->procs[CG_V2] = openat(cg->dir[CG_V2], "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (cg->procs[CG_V2] < 0 || read_small(cg->dir[CG_V2], "cgroup.controllers", buf, sizeof buf) < 0) {
		e = errno;
		cg_remove(cg);		/* none made: closed, never removed */
		return errno = e, -1;
	}
	cg->v2mem = has_word_sp(buf, "memory");
	cg->v2pids = has_word_sp(buf, "pids");
	cg->kill = openat(cg->dir[CG_V2], "cgroup.kill", O_WRONLY | O_CLOEXEC);
	return 0;
}

static int
set_num(int dfd, const char *file, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof s, "%llu", (unsigned long long)v);
	return dfd < 0 ? (errno = ENOENT, -1) : write_str(dfd, file, s);
}

int
cg_set_memory(struct cg *cg, uint64_t bytes)
{
	if (cg->v2mem && cg->dir[CG_V2] >= 0)
		return set_num(cg->dir[CG_V2], "memory.max", bytes) < 0 ? -1 :
		    (set_num(cg->dir[CG_V2], "memory.swap.max", 0), 0);
	if (cg->dir[CG_MEM1] < 0)
		return errno = ENOENT, -1;
	if (set_num(cg->dir[CG_MEM1], "memory.limit_in_bytes", bytes) < 0)
		return -1;
	/* swap counts too where the kernel accounts it (else the file is absent) */
	(void)set_num(cg->dir[CG_MEM1], "memory.memsw.limit_in_bytes", bytes);
	return 0;
}

int
cg_set_pids(struct cg *cg, uint64_t n)
{
	if (cg->v2pids && cg->dir[CG_V2] >= 0)
		return set_num(cg->dir[CG_V2], "pids.max", n);
	return set_num(cg->dir[CG_PIDS1], "pids.max", n);
}

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#define CG_CLONE_INTO_CGROUP 0x200000000ULL

/* struct clone_args up to cgroup (CLONE_ARGS_SIZE_VER2, Linux 5.7) */
struct cg_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

/* ASan keeps per-thread state a CLONE_VM child would corrupt: the
 * sanitizer build forks (as lib/procspawn.c does). */
#define CG_SPAWN_FORK CORRAL_ASAN

#if defined(__x86_64__) && !CG_SPAWN_FORK
/* clone3 with a and, in the child, fn(arg) on the stack a names, then
 * _exit(2) with what it returns (it execs or exits first). musl has no
 * clone3: the child starts at the system call's return with its own stack
 * pointer, so it must leave this function's frame alone (a CLONE_VM child
 * returning through the parent's frames would tear them); it calls fn from
 * here. The kernel keeps every register but rax, rcx and r11 across the
 * call, in the child too: fn and arg are at hand. */
static long
clone3_run(struct cg_clone_args *a, int (*fn)(void *), void *arg)
{
	long r;

	__asm__ volatile(
	    "syscall\n\t"
	    "test %%rax, %%rax\n\t"
	    "jnz 1f\n\t"
	    "mov %[arg], %%rdi\n\t"
	    "call *%[fn]\n\t"
	    "mov %%eax, %%edi\n\t"
	    "mov %[nexit], %%eax\n\t"
	    "syscall\n\t"
	    "hlt\n"
	    "1:"
	    : "=a"(r)
	    : "0"((long)SYS_clone3), "D"(a), "S"(sizeof *a), [fn] "r"(fn), [arg] "r"(arg),
	      [nexit] "i"(SYS_exit)
	    : "rcx", "r11", "memory");
	return r;
}
#endif

pid_t
cg_spawn(const struct cg *cg, int *in_v2, int (*fn)(void *), void *arg)
{
	sigset_t all, saved, held;
	pid_t pid = -1;
	int e;

	/* no handler of this process runs in the child (on memory it
	 * shares): it starts with every signal blocked and unblocks once its
	 * dispositions are the program's */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &saved);
	*in_v2 = 0;
	if (cg && cg->dir[CG_V2] >= 0) {
		struct cg_clone_args a;
		long r;

		memset(&a, 0, sizeof a);
		a.flags = CG_CLONE_INTO_CGROUP;
		a.exit_signal = SIGCHLD;
		a.cgroup = (uint64_t)cg->dir[CG_V2];
		/* born in the cgroup: no cgroup.procs write, whose migration
		 * waits for an RCU grace period (~13 ms here) */
		*in_v2 = 1;
#if defined(__x86_64__) && !CG_SPAWN_FORK
		/* the child's stack while it shares keeper's memory (64 KB, as
		 * lib/procspawn's: its frames, exec_env's path, a message) */
		static char stack[64 * 1024] __attribute__((aligned(16)));

		/* sharing keeper's memory until it execs, keeper suspended
		 * meanwhile (what posix_spawn does): no copy of keeper's
		 * page tables, no copy-on-write fault in either afterwards */
		a.flags |= CLONE_VM | CLONE_VFORK;
		a.stack = (uint64_t)(uintptr_t)stack;
		a.stack_size = sizeof stack;
		r = clone3_run(&a, fn, arg);
		if (r < 0)
			errno = (int)-r;
#else
		r = syscall(SYS_clone3, &a, sizeof a);
		if (r == 0)
			_exit(fn(arg));
#endif
		if (r >= 0) {
			pid = (pid_t)r;
			goto out;
		}
		/* ENOSYS (before 5.3, or a seccomp filter), E2BIG or EINVAL
		 * (before 5.7), EOPNOTSUPP...: as below, then cgroup.procs,
		 * which reports a real error */
		*in_v2 = 0;
	}
	/* lib/procspawn's: a vfork-like clone (the sanitizer build forks);
	 * every signal is blocked already */
	pid = spawn_clone(fn, arg, &held);
out:
	e = errno;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	errno = e;
	return pid;
}

int
cg_enter(const struct cg *cg, int in_v2)
{
	for (int k = 0; k < CG_NKIND; k++)
		if (cg->procs[k] >= 0 && !(k == CG_V2 && in_v2) && write(cg->procs[k], "0", 1) != 1)
			return -1;
	return 0;
}

/* read cgroup.procs and SIGKILL each; returns how many were listed */
static int
kill_listed(int dfd)
{
	int n, fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = proc_kill_listed(fd);
	close(fd);
	return n;
}

static void
kill_dir(int dfd, int v2)
{
	if (dfd < 0)
		return;
	if (v2 && write_str(dfd, "cgroup.kill", "1") == 0)
		return;
	/* no cgroup.kill (v1, or a kernel before 5.14): rounds until the
	 * list is empty; a process forked meanwhile is listed next round */
	for (int round = 0; round < 1000 && kill_listed(dfd) > 0; round++)
		;
}

void
cg_kill(const struct cg *cg)
{
	if (cg->kill < 0 || write(cg->kill, "1", 1) != 1)
		kill_dir(cg->dir[CG_V2], 1);
	kill_dir(cg->dir[CG_PIDS1], 0);
	kill_dir(cg->dir[CG_MEM1], 0);
}

static void
rmdir_wait(const char *path)
{
	struct timespec ts = { 0, 1000000 };

	/* a killed process leaves the cgroup a moment after its death */
	for (int i = 0; i < 2000 && rmdir(path) < 0 && errno == EBUSY; i++)
		nanosleep(&ts, NULL);
}

void
cg_remove(struct cg *cg)
{
	if (cg->kill >= 0)
		close(cg->kill);
	cg->kill = -1;
	for (int k = 0; k < CG_NKIND; k++) {
		if (cg->procs[k] >= 0)
			close(cg->procs[k]);
		if (cg->dir[k] >= 0)
			close(cg->dir[k]);
		cg->procs[k] = cg->dir[k] = -1;
		if (*cg_path(cg, k, cg_pathbuf, sizeof cg_pathbuf))
			rmdir_wait(cg_pathbuf);
	}
	cg->made = 0;
}

/* corral-PID-START-PIDNS of a maker that no longer runs (or corral-PID-START,
 * made before the pid namespace was named)? Only the lock (cg_reap_stale)
 * tells for a maker in another pid namespace: the pid there is no one's, or
 * another process's, here. A maker the caller knows runs (live, its child
 * not yet waited for, so its pid is no one else's) is not looked up in
 * /proc: its cgroups are not stale, and one of an earlier process of the
 * same pid waits for the next call. */
static int
stale(const char *name, pid_t live)
{
	char *e;
	long pid;
	unsigned long long st, ns = 0;

	if (strncmp(name, "corral-", 7) != 0 || strncmp(name, "corral-probe-", 13) == 0)
		return 0;
	pid = strtol(name + 7, &e, 10);
	if (e == name + 7 || *e != '-' || pid <= 0)
		return 0;
	st = strtoull(e + 1, &e, 10);
	if (*e == '-') {
		ns = strtoull(e + 1, &e, 10);
		if (*e != '\0')
			return 0;
		if (ns != pidns())
			return 1;	/* the lock decides */
	} else if (*e != '\0') {
		return 0;
	}
	if (live > 0 && pid == (long)live)
		return 0;
	return start_time(pid) != st;	/* gone, or its pid reused */
}

int
cg_reap_stale(pid_t live)
{
	struct dscan d;
	struct dirent *de;
	const char *base;
	int n = 0;

	for (int k = 0; k < CG_NKIND; k++) {
		/* listed through a buffer of the frame, each stale one opened
		 * and removed by its name under the base's descriptor: no
		 * DIR (a malloc'd mapping, an fcntl) nor path per entry */
		if ((base = base_at(k)) == NULL || dscan_openat(&d, AT_FDCWD, base) < 0)
			continue;
		while ((de = dscan_next(&d)) != NULL) {
			int fd;
			if (de->d_type != DT_DIR || !stale(de->d_name, live))
				continue;
			fd = openat(d.fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				continue;
			/* its maker holds the lock while it runs: the name's pid
			 * is the maker's in its own pid namespace (a keeper under
			 * unshare -p, in a container), which here may be no one */
			if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
				close(fd);
				continue;
			}
			kill_dir(fd, k == CG_V2);
			/* corral runs this beside the agent: no waiting for
			 * the killed to leave; a cgroup still busy with them
			 * goes at the next run */
			if (unlinkat(d.fd, de->d_name, AT_REMOVEDIR) == 0)
				n++;
			close(fd);
		}
		dscan_close(&d);
	}
	return n;
}
