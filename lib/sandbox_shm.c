/* sandbox_shm: POSIX shared memory and semaphores the program creates are
 * its own (SB_OWN_SHM).
 *
 * shm_open and sem_open name files of /dev/shm, a directory shared with
 * every program of the user; Landlock cannot grant "the files this program
 * will create" there, and granting the directory hands over the user's
 * other objects. So Landlock grants /dev/shm only the making of regular
 * files (so link(2) within it works: glibc's sem_open links its new object
 * to its name); no read, no write, no removal. The broker does the rest,
 * deciding on a copy of the path (lib/sandbox_own.c routes "/dev/shm/NAME"
 * here, NAME one component):
 *   - open with O_CREAT: the broker creates NAME itself (O_EXCL,
 *     O_NOFOLLOW, the mode less the caller's umask), notes its inode, and
 *     installs the descriptor in the caller (SECCOMP_IOCTL_NOTIF_ADDFD);
 *     when NAME exists and O_EXCL was not asked, as below;
 *   - open of an existing NAME: opened only when it is a regular file whose
 *     inode the broker noted (a name the program linked to its own object
 *     counts too), else EACCES;
 *   - unlink of NAME: the same test, then the broker removes it; the inode
 *     is forgotten with its last name.
 * The user's other objects stay unreadable, unwritable and in place. What
 * the program creates is visible to the user's programs by name, as any
 * object in /dev/shm is: one that opens a name without O_EXCL gets the
 * program's object. Between the broker's test and its unlinkat the name
 * could be replaced by a program outside (never by one inside). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "sandbox_int.h"

#define SHM_MAX 4096

static pthread_mutex_t shm_lock = PTHREAD_MUTEX_INITIALIZER;
static ino_t shm_ino[SHM_MAX];	/* the objects it created */
static size_t shm_n;

static int
shm_own(ino_t ino)
{
	size_t i;
	int r = 0;

	pthread_mutex_lock(&shm_lock);
	for (i = 0; i < shm_n && !r; i++)
		r = shm_ino[i] == ino;
	pthread_mutex_unlock(&shm_lock);
	return r;
}

static int
shm_note(ino_t ino)
{
	int r = 0;

	pthread_mutex_lock(&shm_lock);
	if (shm_n < SHM_MAX)
		shm_ino[shm_n++] = ino;
	else
		r = -ENOSPC;
	pthread_mutex_unlock(&shm_lock);
	return r;
}

static void
shm_forget(ino_t ino)
{
	size_t i;

	pthread_mutex_lock(&shm_lock);
	for (i = 0; i < shm_n; i++)
		if (shm_ino[i] == ino) {
			shm_ino[i] = shm_ino[--shm_n];
			break;
		}
	pthread_mutex_unlock(&shm_lock);
}

/* "/dev/shm/NAME" with NAME one component: NAME, else NULL. */
const char *
sb_shm_name(const char *path)
{
	const char *n = path + 9;

	if (strncmp(path, "/dev/shm/", 9) != 0 || *n == '\0' || strchr(n, '/') != NULL ||
	    strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
		return NULL;
	return n;
}

/* The caller's umask (/proc/PID/status, its second line), 022 when
 * unreadable. */
static mode_t
caller_umask(int pid)
{
	char path[64], buf[256], *t;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/status", pid);
	if ((fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC)) < 0)
		return 022;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 022;
	buf[n] = '\0';
	if ((t = strstr(buf, "\nUmask:")) == NULL)
		return 022;
	return (mode_t)strtoul(t + 7, NULL, 8) & 0777;
}

/* An existing object of its own, opened acc: the fd or -errno. */
static int
open_own(int dfd, const char *name, int acc)
{
	char via[64];
	struct stat st;
	int p, fd;

	p = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0)
		return -errno;
	if (fstat(p, &st) != 0 || !S_ISREG(st.st_mode) || !shm_own(st.st_ino)) {
		close(p);
		return -EACCES;
	}
	snprintf(via, sizeof via, "/proc/self/fd/%d", p);
	fd = openat(AT_FDCWD, via, acc | O_CLOEXEC);
	close(p);
	return fd < 0 ? -errno : fd;
}

int
sb_shm_open(int nfd, const struct seccomp_notif *req, const char *name, int flags,
    unsigned mode, struct seccomp_notif_resp *resp)
{
	struct stat st;
	int dfd, fd = -EEXIST, acc = flags & O_ACCMODE, r;

	dfd = openat(AT_FDCWD, "/dev/shm", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return resp->error = -EACCES, 0;
	if (flags & O_CREAT) {
		fd = openat(dfd, name, acc | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    (mode_t)mode & 0777 & ~caller_umask((int)req->pid));
		if (fd >= 0) {
			if (fstat(fd, &st) != 0 || (r = shm_note(st.st_ino)) != 0) {
				unlinkat(dfd, name, 0);
				close(fd);
				close(dfd);
				return resp->error = -ENOSPC, 0;
			}
		} else
			fd = -errno;
	}
	if (fd == -EEXIST && !(flags & O_EXCL))
		fd = open_own(dfd, name, acc);
	close(dfd);
	if (fd == -EACCES)
		return resp->error = sb_refused_path(-EACCES, "shm-other", "/dev/shm/", name), 0;
	if (fd < 0)
		return resp->error = fd, 0;
	if ((flags & O_TRUNC) && acc != O_RDONLY && ftruncate(fd, 0) != 0) {
		resp->error = -errno;
		close(fd);
		return 0;
	}
	if (sb_addfd_send(nfd, req, fd, flags & O_CLOEXEC) != 0) {
		resp->error = errno == EMFILE ? -EMFILE : -EACCES;
		close(fd);
		return 0;
	}
	close(fd);
	return 2;
}

int
sb_shm_unlink(const char *name, struct seccomp_notif_resp *resp)
{
	struct stat st;
	int dfd, r;

	dfd = openat(AT_FDCWD, "/dev/shm", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return resp->error = -EACCES, 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		r = -errno;
		close(dfd);
		return resp->error = r, 0;
	}
	if (!S_ISREG(st.st_mode) || !shm_own(st.st_ino)) {
		close(dfd);
		return resp->error = sb_refused_path(-EACCES, "shm-other", "/dev/shm/", name), 0;
	}
	r = unlinkat(dfd, name, 0) == 0 ? 0 : -errno;
	close(dfd);
	if (r == 0 && st.st_nlink <= 1)
		shm_forget(st.st_ino);
	return resp->error = r, 0;
}
