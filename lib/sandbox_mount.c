/* sandbox_mount: binds in a private mount namespace, laid before the
 * Landlock ruleset is built. corral's in-place git mode uses it to lay the
 * attempt repository over WORKSPACE/.git, so the agent edits the user's
 * checkout while the real .git stays out of its sight (its rights are
 * hierarchical: no rule could keep it out of a granted workspace's .git).
 * Where no mount namespace can be had (Ubuntu 24.04's AppArmor rule,
 * containers), a refusal: nothing is shared instead. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "sandbox.h"
#include "sandbox_int.h"

static int
write_str(const char *path, const char *s)
{
	int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(s);

	if (fd < 0)
		return -1;
	if (write(fd, s, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int
enter_ns(struct sb_error *e)
{
	char map[64];
	uid_t u = geteuid();
	gid_t g = getegid();

	if (unshare(CLONE_NEWNS) != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			return sb_fail(e, SB_E_UNSUPPORTED, errno,
			    "corral: use git worktree mode (the default), which needs no namespace",
			    "--mount needs a private mount namespace, and this machine refuses one: %s",
			    strerror(errno));
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)u, (unsigned)u);
		if (write_str("/proc/self/setgroups", "deny") != 0 ||
		    write_str("/proc/self/uid_map", map) != 0)
			goto fail;
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)g, (unsigned)g);
		if (write_str("/proc/self/gid_map", map) != 0)
			goto fail;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		goto fail;
	return 0;
fail:
	return sb_fail(e, SB_E_SYS, errno, NULL, "--mount: mount namespace setup: %s", strerror(errno));
}

/* The flags a remount in a user namespace must keep (the kernel locks them). */
static unsigned long
locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) != 0)
		return 0;
	if (sv.f_flag & ST_NOSUID) f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV) f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
	return f;
}

int
sb_mount_apply(const struct sb_policy *p, struct sb_error *e)
{
	char src[PATH_MAX], dst[PATH_MAX];

	if (p->nmount == 0)
		return 0;
	if (enter_ns(e) != 0)
		return -1;
	for (size_t i = 0; i < p->nmount; i++) {
		const char *c = strchr(p->mount[i], ':');
		size_t n = c ? (size_t)(c - p->mount[i]) : 0;
		if (c == NULL || n >= sizeof src || strlen(c + 1) >= sizeof dst)
			return sb_fail(e, SB_E_POLICY, EINVAL, NULL, "--mount %s: want SRC:DST", p->mount[i]);
		memcpy(src, p->mount[i], n);
		src[n] = '\0';
		snprintf(dst, sizeof dst, "%s", c + 1);
		if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    (p->mount_ro[i] && mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY |
		    locked_flags(dst), NULL) != 0))
			return sb_fail(e, SB_E_SYS, errno, NULL, "--mount %s over %s: %s", src, dst,
			    strerror(errno));
	}
	return 0;
}
