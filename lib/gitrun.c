#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "argv.h"
#include "gitsafe.h"
#include "gitrun.h"
#include "procspawn.h"

/* corral's own beside lib/gitsafe's: its PATH, no replace refs (the
 * agent could have written some), no optional locks (a status never writes
 * an index it was not asked to), its identity. */
static const char *const own_env[] = {
	"PATH=/usr/bin:/bin", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0",
	"GIT_AUTHOR_NAME=corral", "GIT_AUTHOR_EMAIL=corral@localhost",
	"GIT_COMMITTER_NAME=corral", "GIT_COMMITTER_EMAIL=corral@localhost", NULL
};

const char *
gitrun_find(void)
{
	static const char *const where[] = { "/usr/bin/git", "/bin/git", "/usr/local/bin/git", NULL };

	for (size_t i = 0; where[i]; i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

int
gitrun_argv(const struct gitcall *g, const char *const args[], struct argv *av, struct argv *ev)
{
	av_push(av, g->bin);
	if (g->work) {
		av_push(av, "-C");
		av_push(av, g->work);
	}
	if (gitsafe_push_cfg(av, NULL) < 0 || gitsafe_push_env(ev, own_env) < 0)
		return -1;
	for (size_t i = 0; args[i]; i++)
		av_push(av, args[i]);
	av_pushf(ev, "GIT_DIR=%s", g->dir);
	if (g->work)
		av_pushf(ev, "GIT_WORK_TREE=%s", g->work);
	if (g->index)
		av_pushf(ev, "GIT_INDEX_FILE=%s", g->index);
	if (g->objdir)
		av_pushf(ev, "GIT_OBJECT_DIRECTORY=%s", g->objdir);
	if (g->alt)
		av_pushf(ev, "GIT_ALTERNATE_OBJECT_DIRECTORIES=%s", g->alt);
	if (av->err || ev->err)
		return errno = ENOMEM, -1;
	return 0;
}

int
gitrun_start(const struct gitcall *g, const char *const args[], int in, int out)
{
	struct argv av = { 0 }, ev = { 0 };
	struct spawned sp = { -1, -1 };
	int nul = -1, r, e;

	if (gitrun_argv(g, args, &av, &ev) < 0) {
		av_free(&av);
		av_free(&ev);
		return -1;
	}
	if (out < 0 && (nul = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		r = -1;
	else
		r = spawn_start_io(av.v, ev.v, in, out >= 0 ? out : nul, &sp);
	e = errno;
	if (nul >= 0)
		close(nul);
	av_free(&av);
	av_free(&ev);
	return r < 0 ? (errno = e, -1) : sp.pid;
}

int
gitrun_wait(int pid)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	return WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 125;
}

int
gitrun_collect(int pid, int fd, char **cap, size_t *caplen, size_t capmax)
{
	int big = 0, code;
	size_t n = 0, sz = 0;
	char *b = NULL, junk[4096];
	ssize_t k;

	while (fd >= 0) {
		if (n + 4096 + 1 > sz && !big) {
			size_t nsz = sz ? sz * 2 : 8192;
			char *nb = nsz <= capmax + 8192 * 2 ? realloc(b, nsz) : NULL;
			if (nb == NULL)
				big = 1;
			else
				b = nb, sz = nsz;
		}
		k = big ? read(fd, junk, sizeof junk) : read(fd, b + n, sz - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (!big) {
			n += (size_t)k;
			if (n > capmax)
				big = 1;
		}
	}
	if (fd >= 0)
		close(fd);
	code = gitrun_wait(pid);
	if (cap == NULL)
		return code;
	if (big || b == NULL) {
		free(b);
		if (big)
			return errno = EFBIG, -1;
		if ((b = malloc(1)) == NULL)
			return -1;
	}
	b[n] = '\0';
	*cap = b;
	if (caplen)
		*caplen = n;
	return code;
}

int
gitrun_spawn(const struct gitcall *g, const char *const args[], int in, int *fd)
{
	int p[2], pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = gitrun_start(g, args, in, p[1]);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*fd = p[0];
	return pid;
}

int
gitrun(const struct gitcall *g, const char *const args[], int in, int out,
    char **cap, size_t *caplen, size_t capmax)
{
	int fd = -1, pid;

	if (out < 0 && cap != NULL)
		pid = gitrun_spawn(g, args, in, &fd);
	else
		pid = gitrun_start(g, args, in, out);
	if (pid < 0)
		return -1;
	return gitrun_collect(pid, fd, cap, caplen, capmax);
}
