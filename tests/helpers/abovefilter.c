/* abovefilter all|control|docker PROG [ARG...]: run PROG under a seccomp
 * filter of the kind a container runtime installs above corral:
 *   all      migrate_pages and move_pages refused with EPERM to everyone
 *            (podman's default profile)
 *   control  the same only when the pid is 0 (the caller itself): probe's
 *            controls fail as in a container, its attacks do not
 *   docker   unshare refused with EPERM whatever its flags, clone with
 *            CLONE_NEWUSER too, clone3 ENOSYS (Docker's default profile
 *            without CAP_SYS_ADMIN)
 * all and docker must read as closed from above, control stay unproven.
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

#ifndef __NR_clone3
#define __NR_clone3 435
#endif

#include "execenv.h"
#include "seccomp_util.h"

enum { L_ALLOW = 1, L_PID, L_EPERM, L_CLONE, L_ENOSYS };

int
main(int argc, char *argv[], char *envp[])
{
	struct sf_prog f;
	int all, docker;

	if (argc < 3 || (strcmp(argv[1], "all") != 0 && strcmp(argv[1], "control") != 0 &&
	    strcmp(argv[1], "docker") != 0)) {
		fprintf(stderr, "usage: abovefilter all|control|docker PROG [ARG...]\n");
		return 2;
	}
	all = strcmp(argv[1], "all") == 0;
	docker = strcmp(argv[1], "docker") == 0;
	sf_init(&f);
	sf_ld(&f, offsetof(struct seccomp_data, arch));
	sf_jeq(&f, SF_AUDIT_ARCH, 0, L_ALLOW);
	sf_ld(&f, offsetof(struct seccomp_data, nr));
	if (docker) {
		sf_jeq(&f, __NR_unshare, L_EPERM, 0);
		sf_jeq(&f, __NR_clone3, L_ENOSYS, 0);
		sf_jeq(&f, __NR_clone, L_CLONE, L_ALLOW);
		sf_label(&f, L_CLONE);
		sf_ld(&f, offsetof(struct seccomp_data, args[0]));
		sf_jset(&f, CLONE_NEWUSER, L_EPERM, L_ALLOW);
	} else {
		sf_jeq(&f, __NR_migrate_pages, all ? L_EPERM : L_PID, 0);
		sf_jeq(&f, __NR_move_pages, all ? L_EPERM : L_PID, L_ALLOW);
	}
	/* the pid is the first argument of both; its low word is enough here */
	sf_label(&f, L_PID);
	sf_ld(&f, offsetof(struct seccomp_data, args[0]));
	sf_jeq(&f, 0, L_EPERM, L_ALLOW);
	sf_label(&f, L_ALLOW);
	sf_ret(&f, SECCOMP_RET_ALLOW);
	sf_label(&f, L_EPERM);
	sf_ret(&f, SECCOMP_RET_ERRNO | EPERM);
	sf_label(&f, L_ENOSYS);
	sf_ret(&f, SECCOMP_RET_ERRNO | ENOSYS);
	if (sf_finish(&f) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    sf_install(&f, 0) < 0) {
		fprintf(stderr, "abovefilter: unable to install the filter: %s\n", strerror(errno));
		return 2;
	}
	exec_env(argv + 2, envp);
	fprintf(stderr, "abovefilter: unable to run %s: %s\n", argv[2], strerror(errno));
	return exec_status(errno);
}
