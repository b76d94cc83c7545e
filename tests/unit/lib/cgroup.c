/* lib/cgroup: cg_reap_stale ends what a maker that no longer runs left, and
 * leaves a cgroup whose maker still holds it though the name's pid and
 * start time mean no one here: a keeper in a pid namespace of its own
 * (unshare -p, a container) names its cgroup with its pid there, and a
 * corral run outside killed its live program by it (sandbox-mcp-concurrent.t
 * under others' `corral run`, exit_code 137). The maker here is this test,
 * holding the lock as cg_create does, under a name whose pid was reaped.
 * The test runs in a cgroup of its own (unit-cgroup-PID, a name no reaper
 * judges), so that a corral run elsewhere on the machine, whose reaper sees
 * only its own cgroup's children, never meets the test's. Root (a cgroup
 * beneath the caller's own is made); else skipped. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "tap.h"

int
main(int argc, char **argv)
{
	struct cg_caps c;
	struct cg cg;
	char path[PATH_MAX + 64], procs[PATH_MAX + 80], own[PATH_MAX + 64], back[PATH_MAX + 80];
	struct stat st;
	pid_t dead, in;
	int fd, p[2], q[2], ws = 0;
	char b;

	signal(SIGPIPE, SIG_IGN);	/* a question to a killed process: EPIPE */
	cg_caps_probe(&c);
	if (!c.ok[CG_V2]) {
		printf("1..0 # SKIP no cgroup v2 can be made here\n");
		return 0;
	}
	snprintf(back, sizeof back, "%s/cgroup.procs", c.base[CG_V2]);
	if (argc < 2) {
		/* into a cgroup of the test's own, then again from the start
		 * (lib/cgroup finds its base once a process) */
		snprintf(own, sizeof own, "%s/unit-cgroup-%d", c.base[CG_V2], (int)getpid());
		snprintf(procs, sizeof procs, "%s/cgroup.procs", own);
		if (mkdir(own, 0755) < 0 || (fd = open(procs, O_WRONLY | O_CLOEXEC)) < 0 || write(fd, "0", 1) != 1) {
			printf("1..0 # SKIP unable to enter a cgroup of the test's own: %s\n", strerror(errno));
			rmdir(own);
			return 0;
		}
		execl("/proc/self/exe", argv[0], "in-own", (char *)NULL);
		printf("1..0 # SKIP unable to run again: %s\n", strerror(errno));
		return 0;
	}
	/* c.base is the test's own cgroup now; back: its parent's procs */
	snprintf(own, sizeof own, "%s", c.base[CG_V2]);
	snprintf(back, sizeof back, "%.*s/cgroup.procs", (int)(strrchr(own, '/') - own), own);
	/* the control of the mark: cg_create's cgroup is locked by its maker */
	is_int(cg_create(&cg, 0, 0) >= 1, 1, "cg_create makes a v2 cgroup");
	fd = open(cg_path(&cg, CG_V2, path, sizeof path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK,
	    "... locked by its maker while it is held");
	if (fd >= 0)
		close(fd);
	cg_remove(&cg);

	/* a pid that runs no more (here): the maker's pid in its namespace */
	if ((dead = fork()) == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	/* corral-PID-START-PIDNS: pid namespace 1 is no one's (inode 1 is
	 * procfs's root), as another one's is to a reaper outside it */
	snprintf(path, sizeof path, "%s/corral-%d-1-1", c.base[CG_V2], (int)dead);
	snprintf(procs, sizeof procs, "%s/cgroup.procs", path);
	ok(mkdir(path, 0755) == 0, "a cgroup named for a pid that runs no more here");
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(fd >= 0 && flock(fd, LOCK_EX) == 0, "... held by its maker (the lock cg_create takes)");
	/* the process answers each byte on q with one on p: an answer is
	 * proof it runs (a SIGKILL sent before the question, pending, never
	 * lets it answer: the pipe ends instead) */
	if (pipe(p) < 0 || pipe(q) < 0)
		return 1;
	if ((in = fork()) == 0) {
		int pf = open(procs, O_WRONLY);
		close(fd);	/* the lock is the maker's (this test's), not inherited */
		close(p[0]);
		close(q[1]);
		if (pf < 0 || write(pf, "0", 1) != 1)
			_exit(1);
		(void)write(p[1], "x", 1);
		while (read(q[0], &b, 1) == 1)
			(void)write(p[1], "y", 1);
		_exit(0);
	}
	close(p[1]);
	close(q[0]);
	ok(read(p[0], &b, 1) == 1 && b == 'x', "a process in it");

	(void)cg_reap_stale(0);
	ok(write(q[1], "?", 1) == 1 && read(p[0], &b, 1) == 1 && b == 'y',
	    "cg_reap_stale leaves a held cgroup's process running");
	ok(stat(path, &st) == 0, "... and the cgroup");

	/* control: the maker gone (its lock with it), the same cgroup is stale */
	close(fd);
	(void)cg_reap_stale(0);
	(void)write(q[1], "?", 1);	/* EPIPE when it is dead */
	ok(read(p[0], &b, 1) == 0,
	    "control: once its maker is gone, cg_reap_stale kills what is in it");
	kill(in, SIGKILL);	/* (when it did not) */
	ok(waitpid(in, &ws, 0) == in && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "... by SIGKILL");
	(void)cg_reap_stale(0);	/* it went when its process had left */
	ok(stat(path, &st) < 0 && errno == ENOENT, "... and removes it");
	rmdir(path);

	/* a maker the caller names as running (corral's keeper, its child
	 * not yet waited for) is not judged by /proc: its cgroup stays,
	 * though the start time in the name is not its own and no lock is
	 * held (what a dead maker's would be) */
	if (pipe(q) < 0)
		return 1;
	if ((in = fork()) == 0) {
		close(q[1]);
		(void)read(q[0], &b, 1);
		_exit(0);
	}
	close(q[0]);
	if (stat("/proc/self/ns/pid", &st) < 0)
		return 1;
	snprintf(path, sizeof path, "%s/corral-%d-1-%llu", c.base[CG_V2], (int)in, (unsigned long long)st.st_ino);
	ok(mkdir(path, 0755) == 0, "a cgroup named for a running child, a start time not its own, no lock held");
	(void)cg_reap_stale(in);
	ok(stat(path, &st) == 0, "cg_reap_stale(child) leaves it");
	(void)cg_reap_stale(0);
	ok(stat(path, &st) < 0 && errno == ENOENT, "control: cg_reap_stale(0) removes it (stale by its start time)");
	rmdir(path);
	close(q[1]);
	waitpid(in, NULL, 0);
	/* back where the test started, its own cgroup removed */
	if ((fd = open(back, O_WRONLY | O_CLOEXEC)) < 0 || write(fd, "0", 1) != 1 || rmdir(own) < 0)
		diag("unable to remove %s: %s", own, strerror(errno));
	if (fd >= 0)
		close(fd);
	return done_testing();
}
