/* sandbox_own: what the program makes itself is its own (sb_policy.own):
 * the broker's requests for it, sorted here (lib/sandbox_broker.c calls
 * sb_own_serve first).
 *   - ioctl (the filter passes TIOCGPTPEER only): lib/sandbox_pty.c;
 *   - open, openat, unlink, unlinkat that the filter matches (by their
 *     flags, see sandbox.h): the path is copied once; /dev/pts/N goes to
 *     lib/sandbox_pty.c, /dev/shm/NAME to lib/sandbox_shm.c; any other
 *     continues unchanged, Landlock deciding on it as always (the
 *     broker grants nothing by continuing, so the path being read again by
 *     the kernel opens no hole). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "sandbox_int.h"

int
sb_peek_str(int pid, uint64_t src, char *dst, size_t size)
{
	size_t got = 0, want;
	struct iovec local, remote;
	ssize_t r;

	/* page by page: a string near the end of a mapping is still read */
	while (got < size) {
		want = 4096 - ((src + got) & 4095);
		if (want > size - got)
			want = size - got;
		local.iov_base = dst + got;
		local.iov_len = want;
		remote.iov_base = (void *)(uintptr_t)(src + got);
		remote.iov_len = want;
		r = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
		if (r <= 0)
			return -1;
		if (memchr(dst + got, '\0', (size_t)r) != NULL)
			return 0;
		got += (size_t)r;
	}
	return errno = ENAMETOOLONG, -1;
}

/* Install fd in the caller and answer its call with the new number. */
int
sb_addfd_send(int nfd, const struct seccomp_notif *req, int fd, int cloexec)
{
	struct seccomp_notif_addfd a;

	memset(&a, 0, sizeof a);
	a.id = req->id;
	a.flags = SECCOMP_ADDFD_FLAG_SEND;
	a.srcfd = (uint32_t)fd;
	a.newfd_flags = cloexec ? O_CLOEXEC : 0;
	return ioctl(nfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 ? -1 : 0;
}

int
sb_own_request(const struct sb_policy *p, const struct seccomp_notif *req)
{
	int nr = req->data.nr;

	if (!p->own)
		return 0;
#ifdef __NR_open
	if (nr == __NR_open || nr == __NR_unlink)
		return 1;
#endif
	return nr == __NR_ioctl || nr == __NR_openat || nr == __NR_unlinkat;
}

int
sb_own_serve(const struct sb_policy *p, int nfd, const struct seccomp_notif *req,
    struct seccomp_notif_resp *resp)
{
	char path[9 + 256];
	const char *name;
	int r, flags, nr = req->data.nr, at = 1;
	unsigned mode;

	if (nr == __NR_ioctl)
		return (p->own & SB_OWN_PTY) ? sb_pty_peer(nfd, req, resp) : 1;
#ifdef __NR_open
	if (nr == __NR_open || nr == __NR_unlink)
		at = 0;
#endif
	/* open(path, flags, mode), openat(dirfd, path, flags, mode),
	 * unlink(path), unlinkat(dirfd, path, flags) */
	r = sb_peek_str((int)req->pid, req->data.args[at], path, sizeof path);
	flags = (int)req->data.args[at + 1];
	mode = (unsigned)req->data.args[at + 2];
	if (r != 0)
		return 1;	/* longer than any name served here: Landlock decides */
	name = (p->own & SB_OWN_SHM) ? sb_shm_name(path) : NULL;
	if (nr == __NR_openat
#ifdef __NR_open
	    || nr == __NR_open
#endif
	    ) {
		if ((p->own & SB_OWN_PTY) && strncmp(path, "/dev/pts/", 9) == 0) {
			r = sb_pty_open(nfd, req, path, flags, resp);
			/* a terminal whose master it does not hold: Landlock
			 * refuses it (but the one granted: --tty, --ctty, the
			 * broker's controlling terminal too), said here */
			char ct[64];
			unsigned dv;
			if (r == 1 && (p->tty == NULL || strcmp(path, p->tty) != 0) &&
			    !(p->ctty && sb_ctty_path(ct, sizeof ct, &dv) == 1 && strcmp(path, ct) == 0))
				(void)sb_refused_path(-EACCES, "pty-other", "", path);
			return r;
		}
		return name ? sb_shm_open(nfd, req, name, flags, mode, resp) : 1;
	}
	return name ? sb_shm_unlink(name, resp) : 1;
}
