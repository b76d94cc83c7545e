/* suite-reap TEST [ARG...]: run one test of the suite and catch what it
 * leaves behind.
 *
 * mk/suite gives this to prove as --exec. It becomes a child subreaper, so
 * every process the test started and did not end is re-parented here when
 * its parent goes (a server in the background, a daemon that setsid and
 * forked twice, a namespace's processes). After the test exits it reaps, waits
 * a short grace for processes already on their way out, and then names each
 * process still alive, with its command line, on stderr and in the file
 * $CORRAL_SUITE_LEAKS ("TEST<TAB>pid PID<TAB>CMDLINE"), and ends it by pid
 * (never by name: it knows exactly which processes are the test's). Named
 * network namespaces that appeared under /run/netns while the test ran are
 * named and removed the same way.
 *
 * Exit: the test's own status; 1 when the test passed but left something. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXNS 256
#define MAXKIDS 1024

static const char *test_name;
static FILE *leaks;

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Our children (orphans re-parented to us included): scan /proc, since
 * /proc/PID/task/TID/children is not built into every kernel. */
static int children(pid_t self, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max) {
		char path[300], buf[512], *p;
		long ppid;
		int fd;
		ssize_t r;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = 0;
		/* pid (comm) state ppid: comm may hold spaces and parentheses */
		if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %*c %ld", &ppid) != 1)
			continue;
		if (ppid == self && p[2] != 'Z')
			out[n++] = (pid_t)atol(e->d_name);
	}
	closedir(d);
	return n;
}

static void cmdline(pid_t pid, char *out, size_t outn)
{
	char path[64];
	ssize_t r;
	int fd;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	out[0] = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	r = read(fd, out, outn - 1);
	close(fd);
	if (r < 0)
		r = 0;
	out[r] = 0;
	for (ssize_t i = 0; i < r; i++)
		if (out[i] == 0 || out[i] == '\t' || out[i] == '\n')
			out[i] = ' ';
	while (r > 0 && out[r - 1] == ' ')
		out[--r] = 0;
}

static void report(const char *what)
{
	fprintf(stderr, "suite-reap: %s left %s\n", test_name, what);
	if (leaks) {
		fprintf(leaks, "%s\t%s\n", test_name, what);
		fflush(leaks);
	}
}

static int netns_list(char (*names)[256], int max)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.' && strlen(e->d_name) < 256)
			strcpy(names[n++], e->d_name);
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	static char before[MAXNS][256], after[MAXNS][256];
	pid_t self = getpid(), kid, kids[MAXKIDS];
	int nbefore, nafter, status, left = 0;
	const char *lf;

	if (argc < 2) {
		fprintf(stderr, "suite-reap: usage: suite-reap TEST [ARG...]\n");
		return 2;
	}
	test_name = argv[1];
	if ((lf = getenv("CORRAL_SUITE_LEAKS")) && *lf)
		leaks = fopen(lf, "ae");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		perror("suite-reap: PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	nbefore = netns_list(before, MAXNS);
	if ((kid = fork()) < 0) {
		perror("suite-reap: fork");
		return 2;
	}
	if (kid == 0) {
		execv(argv[1], argv + 1);
		fprintf(stderr, "suite-reap: unable to run %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	while (waitpid(kid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("suite-reap: waitpid");
			return 2;
		}

	/* a grace of 3 s for what the test already asked to end */
	for (int round = 0; round < 60; round++) {
		reap();
		if (children(self, kids, MAXKIDS) <= 0)
			break;
		nap_ms(50);
	}
	/* name and end what is left; its children come to us in turn */
	for (int round = 0; round < 20; round++) {
		int n;
		reap();
		if ((n = children(self, kids, MAXKIDS)) <= 0)
			break;
		for (int i = 0; i < n; i++) {
			char cl[400], what[480];
			cmdline(kids[i], cl, sizeof cl);
			snprintf(what, sizeof what, "pid %d\t%s", (int)kids[i], cl);
			report(what);
			kill(kids[i], SIGKILL);
			left++;
		}
		nap_ms(100);
	}
	reap();

	nafter = netns_list(after, MAXNS);
	for (int i = 0; i < nafter; i++) {
		int old = 0;
		char what[300], path[300];
		/* the names were bounded to 255 bytes when listed */
		for (int j = 0; j < nbefore && !old; j++)
			old = !strcmp(after[i], before[j]);
		if (old)
			continue;
		snprintf(what, sizeof what, "netns\t%.255s", after[i]);
		report(what);
		snprintf(path, sizeof path, "/run/netns/%.255s", after[i]);
		umount2(path, MNT_DETACH);
		unlink(path);
		left++;
	}

	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WEXITSTATUS(status) == 0 && left)
		return 1;
	return WEXITSTATUS(status);
}
