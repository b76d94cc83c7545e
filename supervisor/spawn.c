#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdio.h"
#include "spawn.h"

int
wait_code(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 125;
}

int
spawn_start(char *const argv[], char *const envp[], int capture, struct spawned *sp)
{
	int p[2] = { -1, -1 }, e;
	pid_t pid;

	sp->pid = -1;
	sp->out = -1;
	if (capture && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		e = errno;
		if (capture)
			close(p[0]), close(p[1]);
		return errno = e, -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (nul < 0 || dup2(nul, 0) < 0)
			_exit(125);
		if (capture && dup2(p[1], 1) < 0)
			_exit(125);
		fd_close_from(3, NULL, 0);
		execve(argv[0], argv, envp);
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (capture) {
		close(p[1]);
		sp->out = p[0];
	}
	sp->pid = pid;
	return 0;
}

int
spawn_collect(struct spawned *sp, char *out, size_t outn)
{
	size_t got = 0;
	ssize_t n;
	char junk[512];
	int ws;

	if (sp->out >= 0) {
		for (;;) {
			if (out && got + 1 < outn)
				n = read(sp->out, out + got, outn - 1 - got);
			else
				n = read(sp->out, junk, sizeof junk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (out && got + 1 < outn)
				got += (size_t)n;
		}
		close(sp->out);
		sp->out = -1;
	}
	if (out && outn)
		out[got] = '\0';
	while (waitpid(sp->pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	return ws;
}

int
spawn_wait(char *const argv[], char *const envp[], char *out, size_t outn)
{
	struct spawned sp;

	if (spawn_start(argv, envp, out != NULL, &sp) < 0)
		return -1;
	return spawn_collect(&sp, out, outn);
}
