/* sandbox_tty: the agent's own terminal, and no other.
 *
 * /dev/pts holds every terminal of the user (and of sibling agents): a
 * grant of the directory lets the agent write a fake prompt on another one
 * and read what is typed there. corral gives the agent a fresh pty pair and
 * grants only its pts, plus /dev/tty (which opens the caller's controlling
 * terminal, that same pts). /dev/ptmx stays with --dev: a new master opens
 * no existing terminal; but its slave is a node of /dev/pts, and opening it
 * is refused, by its path and through TIOCGPTPEER (the kernel opens the
 * path under the caller's Landlock domain) alike, since that node cannot be
 * granted ahead without granting the others: with --own-pty the broker
 * opens it for a caller that holds the master (lib/sandbox_pty.c; see
 * confine(1); tests/cli/corral-ptyopen.t). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "landlock.h"
#include "sandbox_int.h"

static int
grant(int rfd, int fd, uint64_t access, const char *path, struct sb_error *e)
{
	struct ll_path_beneath_attr pb;

	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (ll_add_rule(rfd, LL_RULE_PATH_BENEATH, &pb, 0) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL,
		    "unable to add a Landlock rule for %s: %s", path, strerror(errno));
	return 0;
}

int
sb_tty_rules(int rfd, const char *path, int abi, struct sb_error *e)
{
	uint64_t access = (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
	    LANDLOCK_ACCESS_FS_IOCTL_DEV) & sb_fs_handled(abi);
	struct stat st;
	int fd, t, r;

	fd = openat(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return sb_fail(e, SB_E_PATH, errno, "name the agent's own terminal, e.g. $(tty)",
		    "unable to open the terminal %s: %s", path, strerror(errno));
	t = -1;
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) ||
	    (t = openat(AT_FDCWD, path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    !isatty(t)) {
		if (t >= 0)
			close(t);
		close(fd);
		return sb_fail(e, SB_E_PATH, ENOTTY, "name the agent's own terminal, e.g. $(tty)",
		    "--tty %s: not a terminal", path);
	}
	close(t);
	r = grant(rfd, fd, access, path, e);
	sb_close_later(fd);
	if (r != 0)
		return -1;
	fd = openat(AT_FDCWD, "/dev/tty", O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* no /dev/tty here: the terminal is still reachable by its fds */
	r = grant(rfd, fd, access, "/dev/tty", e);
	sb_close_later(fd);
	return r;
}

#ifndef TIOCGDEV
#define TIOCGDEV _IOR('T', 0x32, unsigned int)
#endif

/* The controlling terminal's own node: /dev/tty names it only by that
 * alias, so the pts is found by its device number (TIOCGDEV) and checked
 * to be that node. No controlling terminal: nothing granted. */
int
sb_ctty_path(char *path, size_t n, unsigned *major_minor)
{
	unsigned int dev;
	struct stat st;
	int fd = openat(AT_FDCWD, "/dev/tty", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), r;

	if (fd < 0)
		return 0;	/* ENXIO: no controlling terminal */
	r = ioctl(fd, TIOCGDEV, &dev);
	close(fd);
	if (r < 0)
		return -1;
	*major_minor = dev;
	/* Unix98 pts: majors 136 to 143, 256 minors each */
	if (major(dev) < 136 || major(dev) > 143)
		return errno = ENOTTY, -1;
	snprintf(path, n, "/dev/pts/%u", (major(dev) - 136) * 256 + minor(dev));
	if (stat(path, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(major(dev), minor(dev)))
		return errno = ENOENT, -1;
	return 1;
}

int
sb_ctty_rules(int rfd, int abi, struct sb_error *e)
{
	char path[64];
	unsigned int dev = 0;
	int r = sb_ctty_path(path, sizeof path, &dev);

	if (r == 0)
		return 0;	/* nothing to grant */
	if (r < 0 && errno == ENOTTY)
		return sb_fail(e, SB_E_PATH, ENOTTY, "name the terminal with --tty PATH",
		    "--ctty: the controlling terminal is not a pts (device %u:%u)", major(dev), minor(dev));
	if (r < 0 && errno == ENOENT)
		return sb_fail(e, SB_E_PATH, ENOENT, NULL, "--ctty: %s is not the controlling terminal", path);
	if (r < 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "--ctty: unable to tell the controlling terminal: %s",
		    strerror(errno));
	return sb_tty_rules(rfd, path, abi, e);
}
