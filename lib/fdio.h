/* fdio: whole reads and writes, bounded file reads, atomic replacement. */
#ifndef CORRAL_FDIO_H
#define CORRAL_FDIO_H
#include <dirent.h>
#include <stddef.h>
#include <sys/types.h>

/* write(2) until done; -1 with errno on failure. EINTR is retried. */
int fd_write_all(int fd, const void *buf, size_t len);
/* read(2) until EOF or max bytes. Returns bytes read, or -1 with errno.
 * EFBIG when more than max bytes are available (nothing beyond max is kept). */
ssize_t fd_read_bounded(int fd, char *buf, size_t max);
/* write(2) of buf to fd (again on EINTR) with SIGPIPE blocked: a reader
 * that has ended costs an EPIPE, whose signal is taken here, never this
 * process's end (a go byte to a step that ended says nothing; its status
 * does). The write's result. */
ssize_t fd_write_nopipe(int fd, const void *buf, size_t n);
/* Read a whole file (relative to dirfd, O_NOFOLLOW) into a fresh
 * NUL-terminated buffer of at most max bytes. *len gets the size.
 * -1 with errno: ELOOP for a symlink, EFBIG when larger than max,
 * EINVAL when it is not a regular file. Never reads more than max+1 bytes. */
int file_read_bounded(int dirfd, const char *path, size_t max, char **out, size_t *len);
/* The same, into sbuf (ssize bytes) when the file and 512 bytes more fit
 * in it, else into a malloc'd buffer as above: free *out only when it is
 * not sbuf. The same refusals (max, not regular, a symlink). */
int file_read_bounded_in(int dirfd, const char *path, size_t max, char *sbuf, size_t ssize, char **out,
			 size_t *len);
/* Replace dirfd/name atomically with len bytes of buf, mode: write a temp
 * file in the same directory, fsync it, rename over name, fsync the
 * directory. Leaves either the old file or the new one, never a torn one. */
int file_write_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode);
/* The same without either fsync: still atomic against a kill (temp file,
 * rename), but not durable across a power loss. For bookkeeping only. */
int file_replace_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode);
/* A directory stream over a fresh open file description of dirfd's
 * directory (openat(dirfd, ".")), read from its start: a dup(2) would
 * share dirfd's offset, so a second scan of the same directory would see
 * end-of-file. NULL with errno. */
DIR *dir_fresh(int dirfd);
/* dir_fresh without the DIR: a fresh open of dirfd's directory read from
 * its start through the caller's buffer, with no allocation (musl maps
 * and unmaps a DIR's) and no fcntl. dscan_open: 0, or -1 with errno;
 * dscan_next: each entry, "." and ".." too, then NULL (at the end or on
 * an error, as readdir); dscan_close always. */
struct dscan {
	int fd;
	int own;		/* fd is the scan's own (dscan_open) */
	long got, off;
	char buf[2048] __attribute__((aligned(8)));
};
int dscan_open(struct dscan *s, int dirfd);
/* The same of the directory path names (relative to dirfd: AT_FDCWD), as
 * opendir(3) would open it. */
int dscan_openat(struct dscan *s, int dirfd, const char *path);
/* dscan_open on dirfd itself, rewound (an lseek, not an open of "." and a
 * close): dirfd a directory open for reading that nothing else reads
 * meanwhile, left open (at its end) by dscan_close. One that cannot be
 * rewound (O_PATH) is opened afresh, as dscan_open. */
int dscan_at(struct dscan *s, int dirfd);
struct dirent *dscan_next(struct dscan *s);
void dscan_close(struct dscan *s);
/* Close every descriptor >= lowfd except those listed in keep (n of them). */
int fd_close_from(int lowfd, const int *keep, size_t n);

#endif
