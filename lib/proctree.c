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

int
proc_kill_children(void)
{
	char path[64];
	int fd, n = 0;
	ssize_t len;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)syscall(SYS_gettid));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = proc_kill_listed(fd);
		close(fd);
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
		if (pp == me && kill((pid_t)pid, SIGKILL) == 0)
			n++;
	}
	closedir(d);
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
		int reaped = 0;
		pid_t w;
		proc_kill_children();
		while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
			reaped++;
		if (w < 0 && errno == ECHILD)
			return;		/* no child left */
		if (reaped == 0)
			nanosleep(&ms, NULL);	/* killed, not yet dead */
	}
}
