/* proctree: see proctree.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctree.h"

int
proc_kill_listed(int fd)
{
	char buf[8192], *p, *e;
	int n = 0;
	ssize_t r;

	while ((r = read(fd, buf, sizeof buf - 1)) > 0) {
		buf[r] = '\0';
		for (p = buf; *p; p = e) {
			long pid = strtol(p, &e, 10);
			if (e == p)
				break;
			if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
				n++;
		}
	}
	return n;
}

/* Steps the caller started itself that a sweep leaves running (and
 * unreaped): proc_sweep_keep. A pid that is a child and not reaped is
 * never another process's, so none of what the sweep is for can be one. */
static pid_t kept[8];
static size_t nkept;

static int
is_kept(long pid)
{
	for (size_t i = 0; i < nkept; i++)
		if (kept[i] == pid)
			return 1;
	return 0;
}

int
proc_sweep_keep(pid_t pid)
{
	if (pid <= 0 || is_kept(pid))
		return 0;
	if (nkept == sizeof kept / sizeof kept[0])
		return errno = ENOSPC, -1;
	kept[nkept++] = pid;
	return 0;
}

void
proc_sweep_unkeep(pid_t pid)
{
	for (size_t i = 0; i < nkept; i++)
		if (kept[i] == pid) {
			kept[i] = kept[--nkept];
			return;
		}
}

/* fn on every child of this process that is not kept (zombies included):
 * /proc/self/task/TID/children when the kernel has it, else a scan of
 * /proc. How many it was called on. */
static int
children_each(void (*fn)(pid_t, void *), void *arg)
{
	char path[64], buf[8192], *p, *e;
	int fd, n = 0;
	ssize_t len;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)syscall(SYS_gettid));
	/* openat: musl's open adds an fcntl for O_CLOEXEC */
	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC)) >= 0) {
		/* "PID PID ... ": read whole (a pid cut at a read's end would
		 * be two) */
		size_t got = 0;
		while (got < sizeof buf - 1 && (len = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
			got += (size_t)len;
		close(fd);
		buf[got] = '\0';
		if (got == sizeof buf - 1 && (p = strrchr(buf, ' ')) != NULL) {
			p[1] = '\0';	/* the rest in the next round: */
			n++;		/* not none left */
		}
		for (p = buf; *p; p = e) {
			long pid = strtol(p, &e, 10);
			if (e == p)
				break;
			if (pid > 0 && !is_kept(pid)) {
				fn((pid_t)pid, arg);
				n++;
			}
		}
		return n;
	}
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t me = getpid();
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char st[512], *rp;
		long pid = strtol(de->d_name, &rp, 10), pp;
		if (*rp || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, st, sizeof st - 1);
		close(fd);
		if (len <= 0)
			continue;
		st[len] = '\0';
		if ((rp = strrchr(st, ')')) == NULL || sscanf(rp + 1, " %*c %ld", &pp) != 1)
			continue;
		if (pp == me && !is_kept(pid)) {
			fn((pid_t)pid, arg);
			n++;
		}
	}
	closedir(d);
	return n;
}

static void
kill_one(pid_t pid, void *arg)
{
	if (kill(pid, SIGKILL) == 0)
		++*(int *)arg;
}

static void
reap_one(pid_t pid, void *arg)
{
	if (waitpid(pid, NULL, WNOHANG) == pid)
		++*(int *)arg;
}

int
proc_kill_children(void)
{
	int n = 0;

	(void)children_each(kill_one, &n);
	return n;
}

void
proc_sweep(void)
{
	struct timespec ms = { 0, 1000000 };

	/* each round kills this process's children and reaps what died; what
	 * they left (setsid, double fork) is reparented here, perhaps only
	 * after this round's kill, and is killed in the next. Never a blocking
	 * wait: a child reparented after the kill would hold it forever. */
	for (int round = 0; round < 10000; round++) {
		int reaped = 0, left;
		pid_t w;
		/* none at all (keeper's usual end: its program reaped, the
		 * cgroup empty): nothing to list or kill */
		if (nkept == 0) {
			if ((w = waitpid(-1, NULL, WNOHANG)) < 0 && errno == ECHILD)
				return;
			if (w > 0)
				reaped++;
		}
		proc_kill_children();
		if (nkept == 0) {
			while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
				reaped++;
			if (w < 0 && errno == ECHILD)
				return;		/* no child left */
		} else {
			/* not waitpid(-1): a kept step's status is its
			 * starter's; each child but those, by pid. A child
			 * leaves its own children here before it can be
			 * reaped, but perhaps after this round's list was
			 * read: done only at a round that lists none. */
			left = children_each(reap_one, &reaped);
			if (left == 0)
				return;
		}
		if (reaped == 0)
			nanosleep(&ms, NULL);	/* killed, not yet dead */
	}
}
