/* confine-parent [-a NAME] [-u PATH] [-U PATH] [-t] [-l FD=PATH] -- CMD...
 * The runner outside the boundary: listens on an abstract unix socket
 * (-a), a pathname unix socket (-u, mode 0666; -U also accepts and
 * answers each connection with "PATH\n") and two TCP ports on
 * 127.0.0.1 (-t; "@P1@" and "@P2@" in CMD become their numbers), leaks
 * PATH open at FD without close-on-exec (-l), then runs CMD with its own
 * environment minus every CORRAL_SECRET* variable (so its /proc/PID/environ
 * holds a secret the child never got), and exits with CMD's status
 * (128+N for a signal). */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "execenv.h"

static int
unix_listen(const char *name, int abstract)
{
	struct sockaddr_un su;
	size_t n = strlen(name);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&su, 0, sizeof su);
	su.sun_family = AF_UNIX;
	if (s < 0 || n >= sizeof su.sun_path - 1)
		return -1;
	memcpy(su.sun_path + (abstract ? 1 : 0), name, n);
	if (bind(s, (struct sockaddr *)&su,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 0))) != 0 ||
	    listen(s, 16) != 0)
		return -1;
	if (!abstract)
		chmod(name, 0666);
	return s;
}

static int
tcp_listen(int *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(s, 16) != 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) != 0)
		return -1;
	*port = ntohs(sin.sin_port);
	return s;
}

static pid_t servers[8];
static int nservers;

static int
serve(const char *path)
{
	int s = unix_listen(path, 0), c;
	pid_t pid;

	if (s < 0 || nservers >= 8)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (;;) {
			c = accept(s, NULL, NULL);
			if (c < 0)
				continue;
			(void)!write(c, path, strlen(path));
			(void)!write(c, "\n", 1);
			close(c);
		}
	}
	close(s);
	servers[nservers++] = pid;
	return 0;
}

int
main(int argc, char *argv[], char *envp[])
{
	char *env[256], p1[16] = "", p2[16] = "";
	int i, n = 0, st, c, port;
	pid_t pid;

	while ((c = getopt(argc, argv, "+a:u:U:tl:")) != -1) {
		switch (c) {
		case 'U':
			if (serve(optarg) != 0) {
				perror("confine-parent: serve");
				return 2;
			}
			break;
		case 'a':
		case 'u':
			if (unix_listen(optarg, c == 'a') < 0) {
				perror("confine-parent: listen");
				return 2;
			}
			break;
		case 't':
			if (tcp_listen(&port) < 0) {
				perror("confine-parent: tcp");
				return 2;
			}
			snprintf(p1, sizeof p1, "%d", port);
			if (tcp_listen(&port) < 0) {
				perror("confine-parent: tcp");
				return 2;
			}
			snprintf(p2, sizeof p2, "%d", port);
			break;
		case 'l': {
			char *eq = strchr(optarg, '=');
			int fd, want;
			if (eq == NULL)
				return 2;
			want = atoi(optarg);
			fd = open(eq + 1, O_RDONLY);
			if (fd < 0 || dup2(fd, want) != want) {
				perror("confine-parent: leak");
				return 2;
			}
			if (fd != want)
				close(fd);
			break;
		}
		default:
			return 2;
		}
	}
	if (optind >= argc)
		return 2;
	for (i = 0; envp[i] && n < 255; i++)
		if (strncmp(envp[i], "CORRAL_SECRET", 13) != 0)
			env[n++] = envp[i];
	env[n] = NULL;
	for (i = optind; i < argc; i++) {
		if (strcmp(argv[i], "@P1@") == 0)
			argv[i] = p1;
		else if (strcmp(argv[i], "@P2@") == 0)
			argv[i] = p2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		exec_env(argv + optind, env);
		perror("confine-parent: exec");
		_exit(exec_status(errno));
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	for (i = 0; i < nservers; i++) {
		kill(servers[i], SIGKILL);
		waitpid(servers[i], NULL, 0);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
