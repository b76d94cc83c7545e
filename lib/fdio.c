#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdio.h"
#include "rnd.h"

int
fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t
fd_read_bounded(int fd, char *buf, size_t max)
{
	size_t got = 0;
	ssize_t n;
	char extra;

	while (got < max) {
		n = read(fd, buf + got, max - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return (ssize_t)got;
		got += (size_t)n;
	}
	for (;;) {
		n = read(fd, &extra, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		break;
	}
	if (n > 0)
		return errno = EFBIG, -1;
	return (ssize_t)got;
}

ssize_t
fd_write_nopipe(int fd, const void *buf, size_t n)
{
	sigset_t pipe, old;
	struct timespec zero = { 0, 0 };
	ssize_t w;
	int e;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, &old);
	while ((w = write(fd, buf, n)) < 0 && errno == EINTR)
		;
	e = errno;
	if (w < 0 && e == EPIPE)
		(void)sigtimedwait(&pipe, NULL, &zero);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return w;
}

int
file_read_bounded(int dirfd, const char *path, size_t max, char **out, size_t *len)
{
	return file_read_bounded_in(dirfd, path, max, NULL, 0, out, len);
}

int
file_read_bounded_in(int dirfd, const char *path, size_t max, char *sbuf, size_t ssize, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t cap, got;
	ssize_t n;
	int fd, e;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		errno = EFBIG;
		goto fail;
	}
	/* a buffer the file's size and some (for a file that grows, or one
	 * of /proc's, sized 0), not max: a 1 MiB bound was an mmap and a
	 * munmap of 1 MiB for each file of a few hundred bytes; a file that
	 * outgrows it is read on into max */
	cap = (uint64_t)st.st_size < max && max - (size_t)st.st_size > 512 ? (size_t)st.st_size + 512 : max;
	/* the caller's buffer when the file (and its 512 more) fits in it:
	 * no malloc, which musl maps a page for and unmaps at its free */
	if (sbuf != NULL && cap < ssize)
		buf = sbuf;
	else if ((buf = malloc(cap + 1)) == NULL)
		goto fail;
	for (got = 0;;) {
		if (got == cap && cap < max) {
			char *nb = buf == sbuf ? malloc(max + 1) : realloc(buf, max + 1);
			if (nb == NULL)
				goto fail_buf;
			if (buf == sbuf)
				memcpy(nb, sbuf, got);
			buf = nb;
			cap = max;
		}
		if (got == cap) {	/* max read: one byte more is too large */
			char extra;
			while ((n = read(fd, &extra, 1)) < 0 && errno == EINTR)
				;
			if (n < 0)
				goto fail_buf;
			if (n > 0) {
				errno = EFBIG;
				goto fail_buf;
			}
			break;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_buf;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	n = (ssize_t)got;
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = (size_t)n;
	return 0;
fail_buf:
	e = errno;
	if (buf != sbuf)
		free(buf);
	close(fd);
	return errno = e, -1;
fail:
	e = errno;
	close(fd);
	return errno = e, -1;
}

static int write_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode, int sync);

int
file_write_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	return write_atomic(dirfd, name, buf, len, mode, 1);
}

int
file_replace_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	return write_atomic(dirfd, name, buf, len, mode, 0);
}

static int
write_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode, int sync)
{
	char tmp[256], nonce[17];
	int fd, e;

	if (rnd_hex(nonce, 8) < 0)
		return -1;
	if (snprintf(tmp, sizeof tmp, ".%s.tmp-%s", name, nonce) >= (int)sizeof tmp)
		return errno = ENAMETOOLONG, -1;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -1;
	if (fchmod(fd, mode) < 0 || fd_write_all(fd, buf, len) < 0 || (sync && fsync(fd) < 0))
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, name) < 0)
		goto fail;
	if (sync && fsync(dirfd) < 0)
		return -1;
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
	return errno = e, -1;
}

static int
kept(int fd, const int *keep, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (keep[i] == fd)
			return 1;
	return 0;
}

int
fd_close_from(int lowfd, const int *keep, size_t n)
{
	DIR *d;
	struct dirent *de;
	int fd, dfd, maxfd = lowfd;
	size_t i;

	/* Fast path: close_range(2) around the kept descriptors. */
	if (n == 0) {
		if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
			return 0;
	} else {
		int prev = lowfd, ok = 1;
		int sorted[64];
		size_t m = n < 64 ? n : 64, a, b;

		memcpy(sorted, keep, m * sizeof *keep);
		for (a = 1; a < m; a++)
			for (b = a; b > 0 && sorted[b - 1] > sorted[b]; b--) {
				int t = sorted[b]; sorted[b] = sorted[b - 1]; sorted[b - 1] = t;
			}
		for (i = 0; i < m && ok; i++) {
			if (sorted[i] < prev)
				continue;
			if (sorted[i] > prev &&
			    syscall(SYS_close_range, (unsigned)prev, (unsigned)sorted[i] - 1, 0) != 0)
				ok = 0;
			prev = sorted[i] + 1;
		}
		if (ok && n <= 64 && syscall(SYS_close_range, (unsigned)prev, ~0U, 0) == 0)
			return 0;
	}
	/* Fallback: walk /proc/self/fd. */
	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		fd = atoi(de->d_name);
		if (de->d_name[0] < '0' || de->d_name[0] > '9' || fd == dfd)
			continue;
		if (fd > maxfd)
			maxfd = fd;
	}
	closedir(d);
	for (fd = lowfd; fd <= maxfd; fd++)
		if (!kept(fd, keep, n))
			close(fd);
	return 0;
}

int
dscan_open(struct dscan *s, int dirfd)
{
	return dscan_openat(s, dirfd, ".");
}

int
dscan_openat(struct dscan *s, int dirfd, const char *path)
{
	s->got = s->off = 0;
	s->own = 1;
	s->fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return s->fd < 0 ? -1 : 0;
}

int
dscan_at(struct dscan *s, int dirfd)
{
	if (lseek(dirfd, 0, SEEK_SET) != 0)
		return dscan_open(s, dirfd);
	s->got = s->off = 0;
	s->own = 0;
	s->fd = dirfd;
	return 0;
}

struct dirent *
dscan_next(struct dscan *s)
{
	struct dirent *de;

	if (s->off >= s->got) {
		s->off = 0;
		s->got = syscall(SYS_getdents64, s->fd, s->buf, sizeof s->buf);
		if (s->got <= 0) {
			s->got = 0;
			return NULL;
		}
	}
	de = (struct dirent *)(s->buf + s->off);
	s->off += de->d_reclen;
	return de;
}

void
dscan_close(struct dscan *s)
{
	if (s->fd >= 0 && s->own)
		close(s->fd);
	s->fd = -1;
}

DIR *
dir_fresh(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	if ((d = fdopendir(fd)) == NULL) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}
