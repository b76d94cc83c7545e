/*
 * home-stage-bench: time create + finish of one attempt with a 4 KiB
 * sign-in, and, in the same run, the peer: mkdir -p, cp, rm -rf of the
 * same tree. Prints medians (microseconds) of both sides and the ratio, and
 * the floor on this machine: two bare starts of home-stage --version.
 *
 *   home-stage-bench BINDIR STORE SIGNIN N
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *envp[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent", NULL };

/* Run argv; its stdout into out (n bytes) when out. Returns exit status. */
static int
run(char **argv, char *out, size_t n)
{
	posix_spawn_file_actions_t fa;
	int p[2] = { -1, -1 }, st;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	if (out) {
		if (pipe2(p, O_CLOEXEC) < 0)
			return -1;
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	}
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, envp) != 0)
		return -1;
	posix_spawn_file_actions_destroy(&fa);
	if (out) {
		close(p[1]);
		while (got + 1 < n && (r = read(p[0], out + got, n - 1 - got)) > 0)
			got += (size_t)r;
		out[got] = '\0';
		close(p[0]);
		while (got > 0 && out[got - 1] == '\n')
			out[--got] = '\0';
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	char hs[4096], ss[4096], id[64], dir[4096], pid[16], peer[4096], peerc[4200], peerf[4300];
	double *a, *b, *f, t0;
	int n, i;

	if (argc != 5 || (n = atoi(argv[4])) < 1) {
		fprintf(stderr, "usage: home-stage-bench BINDIR STORE SIGNIN N\n");
		return 2;
	}
	snprintf(hs, sizeof hs, "%s/home-stage", argv[1]);
	snprintf(ss, sizeof ss, "%s/session-store", argv[1]);
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	snprintf(peer, sizeof peer, "%s/peer-tree", argv[2]);
	snprintf(peerc, sizeof peerc, "%s/home/.claude", peer);
	snprintf(peerf, sizeof peerf, "%s/.credentials.json", peerc);
	a = calloc((size_t)n, sizeof *a);
	b = calloc((size_t)n, sizeof *b);
	f = calloc((size_t)n, sizeof *f);
	for (i = 0; i < n; i++) {
		char *begin[] = { ss, "--store", argv[2], "begin", "--agent", "claude", "--pid", pid, NULL };
		char *create[] = { hs, "create", "--state", argv[2], "--attempt", id, "--agent", "claude",
		    NULL };
		char *finish[] = { hs, "finish", dir, NULL };
		char *mk[] = { "/bin/mkdir", "-p", peerc, NULL };
		char *cp[] = { "/bin/cp", argv[3], peerf, NULL };
		char *rm[] = { "/bin/rm", "-rf", peer, NULL };
		char *ver[] = { hs, "--version", NULL };
		char vbuf[64];

		if (run(begin, id, sizeof id) != 0)	/* setup, not timed */
			return 1;
		t0 = now_us();
		if (run(create, dir, sizeof dir) != 0 || run(finish, NULL, 0) != 0)
			return 1;
		a[i] = now_us() - t0;
		t0 = now_us();
		if (run(mk, NULL, 0) != 0 || run(cp, NULL, 0) != 0 || run(rm, NULL, 0) != 0)
			return 1;
		b[i] = now_us() - t0;
		t0 = now_us();
		if (run(ver, vbuf, sizeof vbuf) != 0 || run(ver, vbuf, sizeof vbuf) != 0)
			return 1;
		f[i] = now_us() - t0;
	}
	qsort(f, (size_t)n, sizeof *f, cmp);
	qsort(a, (size_t)n, sizeof *a, cmp);
	qsort(b, (size_t)n, sizeof *b, cmp);
	printf("home-stage create+finish (4 KiB sign-in): median %.0f us  (min %.0f, max %.0f, n=%d)\n",
	    a[n / 2], a[0], a[n - 1], n);
	printf("peer mkdir -p + cp + rm -rf:             median %.0f us  (min %.0f, max %.0f, n=%d)\n",
	    b[n / 2], b[0], b[n - 1], n);
	printf("floor: two starts of home-stage --version: median %.0f us\n", f[n / 2]);
	printf("ratio home-stage/peer: %.2f\n", a[n / 2] / b[n / 2]);
	return 0;
}
