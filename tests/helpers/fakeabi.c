/* fakeabi N PROG [ARG...]: run PROG on a kernel that looks like Landlock
 * ABI N. A seccomp user-notification filter sends landlock_create_ruleset to
 * this process, which answers the version query with N and lets every
 * other call through, except a ruleset attribute larger than ABI N knows
 * (E2BIG, as an older kernel answers). N = 0 makes Landlock look absent
 * (EOPNOTSUPP). Exits with PROG's status (128+N for a signal). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "execenv.h"
#include "landlock.h"
#include "num.h"
#include "fdpass.h"
#include "seccomp_util.h"

static void
serve(int nfd, int abi)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct pollfd pfd = { nfd, POLLIN, 0 };
	size_t maxsize = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;

	for (;;) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			return;
		memset(&req, 0, sizeof req);
		if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			return;
		}
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		if (req.data.args[2] & LANDLOCK_CREATE_RULESET_VERSION) {
			if (abi == 0)
				resp.error = -EOPNOTSUPP;
			else
				resp.val = abi;
		} else if (abi == 0)
			resp.error = -EOPNOTSUPP;
		else if (req.data.args[1] > maxsize)
			resp.error = -E2BIG;
		else
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		/* ENOENT: the caller went away meanwhile. */
		(void)ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

int
main(int argc, char *argv[], char *envp[])
{
	struct sf_prog f;
	int sv[2], abi, nfd, st;
	pid_t pid;

	if (argc < 3 || num_parse_int(argv[1], 0, 99, &abi) != 0) {
		fprintf(stderr, "usage: fakeabi N PROG [ARG...]\n");
		return 2;
	}
	sf_init(&f);
	sf_ld(&f, offsetof(struct seccomp_data, arch));
	sf_jeq(&f, SF_AUDIT_ARCH, 0, 2);
	sf_ld(&f, offsetof(struct seccomp_data, nr));
	sf_jeq(&f, __NR_landlock_create_ruleset, 3, 0);
	sf_label(&f, 2);
	sf_ret(&f, SECCOMP_RET_ALLOW);
	sf_label(&f, 3);
	sf_ret(&f, SECCOMP_RET_USER_NOTIF);
	if (sf_finish(&f) != 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		fprintf(stderr, "fakeabi: setup: %s\n", strerror(errno));
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fakeabi: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		close(sv[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    (nfd = sf_install(&f, SECCOMP_FILTER_FLAG_NEW_LISTENER)) < 0 ||
		    fd_send(sv[1], nfd) != 0) {
			fprintf(stderr, "fakeabi: unable to install the filter: %s\n", strerror(errno));
			_exit(2);
		}
		close(nfd);
		close(sv[1]);
		exec_env(argv + 2, envp);
		fprintf(stderr, "fakeabi: unable to run %s: %s\n", argv[2], strerror(errno));
		_exit(exec_status(errno));
	}
	close(sv[1]);
	nfd = fd_recv(sv[0]);
	close(sv[0]);
	if (nfd >= 0) {
		serve(nfd, abi);
		close(nfd);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
