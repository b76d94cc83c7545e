/* confine-try OP [ARG...]: attempt one escape and print "ok" or the errno
 * name (EACCES, EPERM, ...) of the step that failed, prefixed "socket:"
 * when socket() itself failed. Exit 0 when it could try, 2 on usage.
 *   read PATH | write PATH | exec PATH | truncate PATH | link OLD NEW |
 *   rename OLD NEW | symlink TARGET LINK | readfd N | kill-ppid | environ-ppid | abstract NAME |
 *   unix PATH | unix-read PATH (prints "ok:LINE") | tcp PORT | tfo PORT | bind PORT | udp PORT | raw | mptcp PORT |
 *   tiocsti TEXT | core DIR | socket-unix | socketpair | io-uring | keyctl */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "compat.h"

static const char *
ename(int e)
{
	static char buf[32];
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case ENOSYS: return "ENOSYS";
	case EXDEV: return "EXDEV";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case ENOTTY: return "ENOTTY";
	case ESRCH: return "ESRCH";
	case EEXIST: return "EEXIST";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case EROFS: return "EROFS";
	case EBUSY: return "EBUSY";
	}
	snprintf(buf, sizeof buf, "E%d", e);
	return buf;
}

static int
say(int r)
{
	puts(r == 0 ? "ok" : ename(errno));
	return 0;
}

static int
sock_connect(int dom, int type, int proto, const struct sockaddr *sa, socklen_t len)
{
	int s = socket(dom, type, proto);

	if (s < 0) {
		printf("socket:%s\n", ename(errno));
		return 0;
	}
	return say(connect(s, sa, len));
}

static int
unix_connect(const char *name, int abstract)
{
	struct sockaddr_un su;
	size_t n = strlen(name);

	memset(&su, 0, sizeof su);
	su.sun_family = AF_UNIX;
	if (n >= sizeof su.sun_path - 1)
		return 2;
	memcpy(su.sun_path + (abstract ? 1 : 0), name, n);
	return sock_connect(AF_UNIX, SOCK_STREAM, 0, (struct sockaddr *)&su,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 0)));
}

static struct sockaddr_in
lo_addr(const char *port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)atoi(port));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

int
main(int argc, char *argv[])
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : NULL, *b = argc > 3 ? argv[3] : NULL;
	char c;
	int fd, st, p[2];
	pid_t pid;

	if (strcmp(op, "read") == 0 && a) {
		fd = open(a, O_RDONLY | O_CLOEXEC);
		return say(fd < 0 || read(fd, &c, 1) < 0 ? -1 : 0);
	}
	if (strcmp(op, "write") == 0 && a) {
		fd = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		return say(fd < 0 || write(fd, "x", 1) != 1 ? -1 : 0);
	}
	if (strcmp(op, "truncate") == 0 && a)
		return say(truncate(a, 0));
	if (strcmp(op, "link") == 0 && a && b)
		return say(link(a, b));
	if (strcmp(op, "rename") == 0 && a && b)
		return say(rename(a, b));
	if (strcmp(op, "symlink") == 0 && a && b)
		return say(symlink(a, b));
	if (strcmp(op, "readfd") == 0 && a)
		return say(read(atoi(a), &c, 1) < 0 ? -1 : 0);
	if (strcmp(op, "kill-ppid") == 0)
		return say(kill(getppid(), SIGKILL));
	if (strcmp(op, "environ-ppid") == 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
		fd = open(path, O_RDONLY | O_CLOEXEC);
		return say(fd < 0 || read(fd, &c, 1) < 0 ? -1 : 0);
	}
	if (strcmp(op, "abstract") == 0 && a)
		return unix_connect(a, 1);
	if (strcmp(op, "unix") == 0 && a)
		return unix_connect(a, 0);
	if (strcmp(op, "unix-read") == 0 && a) {
		struct sockaddr_un su;
		char line[256];
		ssize_t n;
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		if (s < 0) {
			printf("socket:%s\n", ename(errno));
			return 0;
		}
		memset(&su, 0, sizeof su);
		su.sun_family = AF_UNIX;
		snprintf(su.sun_path, sizeof su.sun_path, "%s", a);
		if (connect(s, (struct sockaddr *)&su, sizeof su) != 0)
			return say(-1);
		n = read(s, line, sizeof line - 1);
		if (n < 0)
			return say(-1);
		line[n] = '\0';
		printf("ok:%s", line);
		return 0;
	}
	if ((strcmp(op, "tcp") == 0 || strcmp(op, "mptcp") == 0) && a) {
		struct sockaddr_in sin = lo_addr(a);
		return sock_connect(AF_INET, SOCK_STREAM, op[0] == 'm' ? IPPROTO_MPTCP : 0,
		    (struct sockaddr *)&sin, sizeof sin);
	}
	if (strcmp(op, "bind") == 0 && a) {
		struct sockaddr_in sin = lo_addr(a);
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0) {
			printf("socket:%s\n", ename(errno));
			return 0;
		}
		return say(bind(s, (struct sockaddr *)&sin, sizeof sin));
	}
	if (strcmp(op, "tfo") == 0 && a) {
		struct sockaddr_in sin = lo_addr(a);
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0) {
			printf("socket:%s\n", ename(errno));
			return 0;
		}
		return say(sendto(s, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&sin, sizeof sin) == 1 ? 0 : -1);
	}
	if (strcmp(op, "udp") == 0 && a) {
		struct sockaddr_in sin = lo_addr(a);
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		if (s < 0) {
			printf("socket:%s\n", ename(errno));
			return 0;
		}
		return say(sendto(s, "x", 1, 0, (struct sockaddr *)&sin, sizeof sin) == 1 ? 0 : -1);
	}
	if (strcmp(op, "sctp") == 0) {
		int s = socket(AF_INET, SOCK_STREAM, 132 /* IPPROTO_SCTP */);
		if (s < 0) {
			printf("socket:%s\n", ename(errno));
			return 0;
		}
		return say(0);
	}
	if (strcmp(op, "raw") == 0) {
		int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
		if (s < 0) {
			printf("socket:%s\n", ename(errno));
			return 0;
		}
		return say(0);
	}
	if (strcmp(op, "socket-unix") == 0) {
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		return say(fd < 0 ? -1 : 0);
	}
	if (strcmp(op, "socketpair") == 0)
		return say(socketpair(AF_UNIX, SOCK_STREAM, 0, p));
	if (strcmp(op, "keyctl") == 0)	/* KEYCTL_GET_KEYRING_ID of the user keyring */
		return say(syscall(SYS_keyctl, 0, -4, 0) < 0 ? -1 : 0);
	if (strcmp(op, "io-uring") == 0) {
		char params[120];
		memset(params, 0, sizeof params);
		return say(syscall(425 /* io_uring_setup */, 1, params) < 0 ? -1 : 0);
	}
	if (strcmp(op, "tiocsti") == 0 && a) {
		const char *s;
		for (s = a; *s; s++)
			if (ioctl(0, TIOCSTI, s) != 0)
				return say(-1);
		c = '\n';
		return say(ioctl(0, TIOCSTI, &c));
	}
	if (strcmp(op, "exec") == 0 && a) {
		int err = 0;
		if (pipe2(p, O_CLOEXEC) != 0)
			return 2;
		pid = fork();
		if (pid == 0) {
			char *const av[] = { (char *)a, NULL }, *const ev[] = { NULL };
			execve(a, av, ev);
			err = errno;
			(void)!write(p[1], &err, sizeof err);
			_exit(127);
		}
		close(p[1]);
		if (read(p[0], &err, sizeof err) == (ssize_t)sizeof err) {
			errno = err;
			waitpid(pid, &st, 0);
			return say(-1);
		}
		waitpid(pid, &st, 0);
		return say(0);
	}
	if (strcmp(op, "core") == 0 && a) {
		pid = fork();
		if (pid == 0) {
			struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
			if (chdir(a) != 0)
				_exit(2);
			(void)setrlimit(RLIMIT_CORE, &rl);
			abort();
		}
		if (waitpid(pid, &st, 0) < 0)
			return 2;
		puts(WIFSIGNALED(st) && WCOREDUMP(st) ? "core" : "nocore");
		return 0;
	}
	fprintf(stderr, "usage: confine-try OP [ARG...]\n");
	return 2;
}
