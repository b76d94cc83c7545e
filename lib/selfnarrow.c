/* selfnarrow: see selfnarrow.h. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>

#include "seccomp_util.h"
#include "selfnarrow.h"

/* Keep every descriptor this process holds now. */
static int
keep_open(struct sb_policy *pol)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int self = d ? dirfd(d) : -1;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		int fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd < 3 || fd == self)
			continue;
		if (pol->nkeep == SB_MAX_KEEPFD) {
			closedir(d);
			return errno = EMFILE, -1;
		}
		pol->keep_fd[pol->nkeep++] = fd;
	}
	closedir(d);
	return 0;
}

static int
no_exec(void)
{
	struct sf_prog f;

	sf_init(&f);
	sf_ld(&f, offsetof(struct seccomp_data, arch));
	sf_jeq(&f, SF_AUDIT_ARCH, 0, 2);
	sf_ld(&f, offsetof(struct seccomp_data, nr));
	sf_jeq(&f, __NR_execve, 1, 0);
	sf_jeq(&f, __NR_execveat, 1, 0);
	sf_ret(&f, SECCOMP_RET_ALLOW);
	sf_label(&f, 1);
	sf_ret(&f, SECCOMP_RET_ERRNO | EPERM);
	sf_label(&f, 2);
	sf_ret(&f, SECCOMP_RET_KILL_PROCESS);
	if (sf_finish(&f) < 0)
		return errno = EINVAL, -1;
	return sf_install(&f, 0) < 0 ? -1 : 0;
}

static int
narrow(struct sb_policy *pol, int exec_ok, char *why, size_t cap)
{
	struct sb_error e;

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
	/* the sanitizer build reads /proc/self/maps when it reports leaks */
	sb_policy_add_path(pol, "/proc", SB_R, 0);
#endif
#endif
	if (keep_open(pol) < 0) {
		snprintf(why, cap, "unable to list its descriptors: %s", strerror(errno));
		return -1;
	}
	if (sb_apply(pol, &e) != 0) {
		snprintf(why, cap, "%s", e.msg);
		return -1;
	}
	if (!exec_ok && no_exec() < 0) {
		snprintf(why, cap, "unable to install its seccomp filter: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int
selfnarrow(struct sb_policy *pol, char *why, size_t cap)
{
	return narrow(pol, 0, why, cap);
}

int
selfnarrow_exec(struct sb_policy *pol, char *why, size_t cap)
{
	return narrow(pol, 1, why, cap);
}
