/* sandbox_etc: a grant that holds a secret of lib/etc_secrets.c (a grant of
 * /etc, /etc/ssh, or of / itself) is made entry by entry without it.
 *
 * Landlock is allow-only, so "all of /etc but /etc/shadow" is: /etc itself
 * may be listed (READ_DIR, which reaches the names beneath, never the
 * contents), and each entry gets the grant's rights, except
 *   - the secrets, which get nothing;
 *   - directories holding a secret, which are split the same way;
 *   - symbolic links, which get nothing: what a link resolves to is
 *     checked where it lands, exactly as under the whole grant.
 * Directories on the way to a secret get READ_DIR only, whatever the grant:
 * the right to remove or rename an entry there would let /etc/shadow be
 * moved into a granted directory. A grant that is a secret itself, or lies
 * inside one, names it and is made as asked. Entries created after sb_apply
 * are not granted. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "etc_secrets.h"
#include "landlock.h"
#include "sandbox.h"
#include "sandbox_int.h"

enum { MAX_DEPTH = 8 };

static int
split(int rfd, const char *dir, uint64_t access, int depth, struct sb_error *e)
{
	/* the listing read straight (getdents64) into a buffer that holds
	 * a whole /etc (about 5 KB here): readdir's 2 KB took 10 calls per
	 * confine, fdopendir three more per directory (fstat, F_GETFL,
	 * F_SETFD) */
	char child[PATH_MAX], buf[8192] __attribute__((aligned(8)));
	struct dirent *d = NULL;
	struct stat st;
	long n, off = 0;
	int dfd, fd, r = 0;
	size_t dn = strcmp(dir, "/") ? strlen(dir) : 0, nn;

	if (depth > MAX_DEPTH)
		return sb_fail(e, SB_E_POLICY, ELOOP, NULL, "%s: secrets nested too deep", dir);
	dfd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return sb_fail(e, SB_E_PATH, errno, NULL, "unable to open %s: %s", dir, strerror(errno));
	if (access & LANDLOCK_ACCESS_FS_READ_DIR) {
		r = sb_add_rule_fd(rfd, dfd, LANDLOCK_ACCESS_FS_READ_DIR, dir, e);
		if (r != 0) {
			close(dfd);
			return r;
		}
	}
	for (n = 0; r == 0; off += d->d_reclen) {
		if (off >= n) {
			n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
			if (n < 0)
				r = sb_fail(e, SB_E_SYS, errno, NULL, "unable to list %s: %s", dir, strerror(errno));
			if (n <= 0)
				break;
			off = 0;
		}
		/* the kernel's struct linux_dirent64 is musl's struct dirent */
		d = (struct dirent *)(buf + off);
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		nn = strlen(d->d_name);
		if (dn + 1 + nn >= sizeof child)
			continue;	/* no rule: unreachable, never wrongly granted */
		memcpy(child, dir, dn);
		child[dn] = '/';
		memcpy(child + dn + 1, d->d_name, nn + 1);
		if (etc_secret_why(child) != NULL)
			continue;
		if (d->d_type == DT_LNK)
			continue;
		if (d->d_type == DT_DIR && etc_secret_inside(child)) {
			r = split(rfd, child, access, depth + 1, e);
			continue;
		}
		fd = openat(dfd, d->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;	/* gone since readdir: nothing to grant */
		/* the type readdir gave saves a stat per entry (confine does this
		 * for every entry of /etc); an entry replaced since gets no more:
		 * a link opened O_NOFOLLOW is only itself, a directory given file
		 * rights reaches what they reach, and directory rights on a file
		 * are refused (EINVAL: confine fails closed) */
		if (d->d_type == DT_REG || d->d_type == DT_DIR)
			st.st_mode = d->d_type == DT_DIR ? S_IFDIR : S_IFREG;
		else if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
			close(fd);
			continue;
		}
		if (S_ISDIR(st.st_mode) && etc_secret_inside(child)) {
			close(fd);
			r = split(rfd, child, access, depth + 1, e);
			continue;
		}
		r = sb_add_rule_fd(rfd, fd, S_ISDIR(st.st_mode) ? access : access & SB_FS_FILE,
		    child, e);
		sb_close_later(fd);
	}
	sb_close_later(dfd);
	return r;
}

int
sb_etc_split(int rfd, const char *real, uint64_t access, struct sb_error *e)
{
	if (etc_secret_why(real) != NULL || !etc_secret_inside(real))
		return 1;	/* as asked */
	return split(rfd, real, access, 0, e);
}

int
sb_etc_grant(int rfd, const char *path, uint64_t access, struct sb_error *e)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(path, real) == NULL || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
		return 1;	/* as asked */
	return sb_etc_split(rfd, real, access, e);
}
