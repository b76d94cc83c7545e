#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "audit.h"
#include "fdio.h"

int
audit_open(struct audit *a, const char *store, const char *id)
{
	int dfd, sfd;
	char name[128];

	a->fd = -1;
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC */
	sfd = openat(AT_FDCWD, store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	/* the directory is there but on a store's first run: opened, and
	 * made only when it is missing (a mkdir that fails with EEXIST on
	 * every run still looked it up for a create) */
	dfd = openat(sfd, "audit", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 && errno == ENOENT) {
		if (mkdirat(sfd, "audit", 0700) < 0 && errno != EEXIST) {
			close(sfd);
			return -1;
		}
		dfd = openat(sfd, "audit", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	close(sfd);
	if (dfd < 0)
		return -1;
	snprintf(name, sizeof name, "%s.jsonl", id);
	a->fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	return a->fd < 0 ? -1 : 0;
}

void
audit_start(struct audit *a, const char *step)
{
	al_start(&a->l);
	al_str(&a->l, "step", step);
}

void
audit_str(struct audit *a, const char *key, const char *val)
{
	al_str(&a->l, key, val);
}

void
audit_int(struct audit *a, const char *key, long long v)
{
	al_int(&a->l, key, v);
}

void
audit_strs(struct audit *a, const char *key, char *const *v, unsigned long n)
{
	al_strs(&a->l, key, v, n);
}

void
audit_end(struct audit *a)
{
	if (a->fd >= 0)
		(void)al_write(&a->l, a->fd);
}

void
audit_hold(struct audit *a)
{
	size_t n = al_end(&a->l);
	/* al_start's time ends at the first field's comma */
	const char *body = memchr(a->l.line, ',', n);
	size_t bl = body ? (size_t)(a->l.line + n - body) : 0;

	if (body == NULL || a->nheld == AUDIT_HELD || bl > sizeof a->held - a->heldlen)
		return;		/* cannot be: AUDIT_HELD lines fit */
	memcpy(a->held + a->heldlen, body, bl);
	a->heldat[a->nheld++] = a->heldlen;
	a->heldlen += bl;
	a->heldat[a->nheld] = a->heldlen;
}

void
audit_flush(struct audit *a)
{
	struct iovec iov[2 * AUDIT_HELD];
	size_t total = 0, k = 0;
	ssize_t w;

	if (a->nheld == 0)
		return;
	if (a->fd >= 0) {
		/* the time, as audit_start would write it now, before each */
		al_start(&a->l);
		for (size_t i = 0; i < a->nheld; i++) {
			iov[k].iov_base = a->l.line;
			iov[k++].iov_len = a->l.len;
			iov[k].iov_base = a->held + a->heldat[i];
			iov[k++].iov_len = a->heldat[i + 1] - a->heldat[i];
			total += a->l.len + iov[k - 1].iov_len;
		}
		while ((w = writev(a->fd, iov, (int)k)) < 0 && errno == EINTR)
			;
		/* a short write (a full disk): the rest, as fd_write_all would */
		for (size_t i = 0; w >= 0 && (size_t)w < total && i < k; i++) {
			if ((size_t)w >= iov[i].iov_len) {
				w -= (ssize_t)iov[i].iov_len;
				total -= iov[i].iov_len;
				continue;
			}
			if (fd_write_all(a->fd, (char *)iov[i].iov_base + w, iov[i].iov_len - (size_t)w) < 0)
				break;
			total -= iov[i].iov_len;
			w = 0;
		}
	}
	audit_drop(a);
}

void
audit_drop(struct audit *a)
{
	a->nheld = a->heldlen = 0;
}

void
audit_close(struct audit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
