#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "fdio.h"
#include "json.h"

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

static void
raw(struct audit *a, const char *s, size_t n)
{
	if (a->len + n + 2 >= sizeof a->line) {
		a->bad = 1;
		return;
	}
	memcpy(a->line + a->len, s, n);
	a->len += n;
}

static void
quoted(struct audit *a, const char *s)
{
	char q[4096 * 6 + 3];
	int n = json_quote(s, strlen(s), q, sizeof q);

	if (n < 0)
		a->bad = 1;
	else
		raw(a, q, (size_t)n);
}

void
audit_start(struct audit *a, const char *step)
{
	struct timespec ts;
	char t[64];

	clock_gettime(CLOCK_REALTIME, &ts);
	a->len = 0;
	a->bad = 0;
	snprintf(t, sizeof t, "{\"time\":%lld.%03ld,\"step\":", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	raw(a, t, strlen(t));
	quoted(a, step);
}

void
audit_str(struct audit *a, const char *key, const char *val)
{
	raw(a, ",", 1);
	quoted(a, key);
	raw(a, ":", 1);
	quoted(a, val);
}

void
audit_int(struct audit *a, const char *key, long long v)
{
	char b[32];

	raw(a, ",", 1);
	quoted(a, key);
	snprintf(b, sizeof b, ":%lld", v);
	raw(a, b, strlen(b));
}

void
audit_strs(struct audit *a, const char *key, char *const *v, unsigned long n)
{
	raw(a, ",", 1);
	quoted(a, key);
	raw(a, ":[", 2);
	for (unsigned long i = 0; i < n; i++) {
		if (i)
			raw(a, ",", 1);
		quoted(a, v[i]);
	}
	raw(a, "]", 1);
}

void
audit_end(struct audit *a)
{
	if (a->fd < 0)
		return;
	if (a->bad) {
		/* never a torn line: say it did not fit */
		a->len = 0;
		a->bad = 0;
		raw(a, "{\"step\":\"audit\",\"error\":\"line too long\"", 40);
	}
	/* raw() keeps two bytes free for the end */
	a->line[a->len++] = '}';
	a->line[a->len++] = '\n';
	(void)fd_write_all(a->fd, a->line, a->len);
}

void
audit_close(struct audit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
