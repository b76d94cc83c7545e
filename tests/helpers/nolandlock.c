/* nolandlock PROG [ARG...]: run PROG with the Landlock system calls failing
 * with ENOSYS, as on a kernel without Landlock. The environment is passed
 * on explicitly. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "execenv.h"
#include "landlock.h"
#include "seccomp_util.h"

int
main(int argc, char *argv[], char *envp[])
{
	struct sf_prog f;

	if (argc < 2) {
		fprintf(stderr, "usage: nolandlock PROG [ARG...]\n");
		return 2;
	}
	sf_init(&f);
	sf_ld(&f, offsetof(struct seccomp_data, arch));
	sf_jeq(&f, SF_AUDIT_ARCH, 0, 2);
	sf_ld(&f, offsetof(struct seccomp_data, nr));
	sf_jeq(&f, __NR_landlock_create_ruleset, 3, 0);
	sf_jeq(&f, __NR_landlock_add_rule, 3, 0);
	sf_jeq(&f, __NR_landlock_restrict_self, 3, 0);
	sf_label(&f, 2);
	sf_ret(&f, SECCOMP_RET_ALLOW);
	sf_label(&f, 3);
	sf_ret(&f, SECCOMP_RET_ERRNO | ENOSYS);
	if (sf_finish(&f) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    sf_install(&f, 0) < 0) {
		fprintf(stderr, "nolandlock: unable to install the filter: %s\n", strerror(errno));
		return 2;
	}
	exec_env(argv + 1, envp);
	fprintf(stderr, "nolandlock: unable to run %s: %s\n", argv[1], strerror(errno));
	return exec_status(errno);
}
