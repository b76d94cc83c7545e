#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"

int
audit_open(struct audit *a, const char *store, const char *id)
{
	int dfd, sfd;
	char name[128];

	a->fd = -1;
	sfd = open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	if (mkdirat(sfd, "audit", 0700) < 0 && errno != EEXIST) {
		close(sfd);
		return -1;
	}
	dfd = openat(sfd, "audit", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
audit_close(struct audit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
