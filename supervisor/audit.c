#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
	/* the records kept, each after the time audit_start would write
	 * now (al_start's "{"time":SECONDS.MMM", under 48 bytes): one write */
	static char out[sizeof a->held + AUDIT_HELD * 48];
	size_t n = 0, bl;

	if (a->nheld > 0 && a->fd >= 0) {
		al_start(&a->l);
		for (size_t i = 0; i < a->nheld; i++) {
			bl = a->heldat[i + 1] - a->heldat[i];
			memcpy(out + n, a->l.line, a->l.len);
			memcpy(out + n + a->l.len, a->held + a->heldat[i], bl);
			n += a->l.len + bl;
		}
		(void)fd_write_all(a->fd, out, n);
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
