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
spawn_wait(char *const argv[], char *const envp[], char *out, size_t outn)
{
	int p[2] = { -1, -1 }, ws, e;
	size_t got = 0;
	ssize_t n;
	char junk[512];
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		e = errno;
		if (out)
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
		if (out && dup2(p[1], 1) < 0)
			_exit(125);
		fd_close_from(3, NULL, 0);
		execve(argv[0], argv, envp);
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (out) {
		close(p[1]);
		for (;;) {
			if (got + 1 < outn)
				n = read(p[0], out + got, outn - 1 - got);
			else
				n = read(p[0], junk, sizeof junk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (got + 1 < outn)
				got += (size_t)n;
		}
		out[got] = '\0';
		close(p[0]);
	}
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	return ws;
}
