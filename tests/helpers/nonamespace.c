/* nonamespace PROG [ARG...]: run PROG where no user or mount namespace can
 * be made, the stand-in for Ubuntu 24.04 (AppArmor refuses unprivileged
 * user namespaces), Docker and Kubernetes (mount namespaces refused even to
 * root) and many CI runners:
 *   unshare(flags), clone(flags, ...) with CLONE_NEWUSER or CLONE_NEWNS -> EPERM
 *   clone3                                                   -> ENOSYS
 * clone3's flags sit in memory a filter cannot read, so it gets ENOSYS and
 * glibc and musl fall back to clone(2), where the flags are an argument.
 * Everything else (fork, posix_spawn, threads, other namespaces) works.
 * The environment is passed on explicitly. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "execenv.h"
#include "seccomp_util.h"

#ifndef __NR_clone3
#define __NR_clone3 435
#endif

enum { L_ALLOW = 1, L_FLAGS, L_EPERM, L_ENOSYS };

int
main(int argc, char *argv[], char *envp[])
{
	struct sf_prog f;

	if (argc < 2) {
		fprintf(stderr, "usage: nonamespace PROG [ARG...]\n");
		return 2;
	}
	sf_init(&f);
	sf_ld(&f, offsetof(struct seccomp_data, arch));
	sf_jeq(&f, SF_AUDIT_ARCH, 0, L_ALLOW);
	sf_ld(&f, offsetof(struct seccomp_data, nr));
	sf_jeq(&f, __NR_clone3, L_ENOSYS, 0);
	sf_jeq(&f, __NR_unshare, L_FLAGS, 0);
	sf_jeq(&f, __NR_clone, L_FLAGS, L_ALLOW);
	/* unshare's and clone's flags are both the first argument (x86_64,
	 * aarch64); the namespace bits are in its low word. */
	sf_label(&f, L_FLAGS);
	sf_ld(&f, offsetof(struct seccomp_data, args[0]));
	sf_jset(&f, CLONE_NEWUSER | CLONE_NEWNS, L_EPERM, L_ALLOW);
	sf_label(&f, L_ALLOW);
	sf_ret(&f, SECCOMP_RET_ALLOW);
	sf_label(&f, L_EPERM);
	sf_ret(&f, SECCOMP_RET_ERRNO | EPERM);
	sf_label(&f, L_ENOSYS);
	sf_ret(&f, SECCOMP_RET_ERRNO | ENOSYS);
	if (sf_finish(&f) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    sf_install(&f, 0) < 0) {
		fprintf(stderr, "nonamespace: unable to install the filter: %s\n", strerror(errno));
		return 2;
	}
	exec_env(argv + 1, envp);
	fprintf(stderr, "nonamespace: unable to run %s: %s\n", argv[1], strerror(errno));
	return exec_status(errno);
}
