/* auditline: see auditline.h. */
#include <string.h>
#include <time.h>

#include "auditline.h"
#include "fdio.h"
#include "json.h"

#define TOO_LONG ",\"step\":\"audit\",\"error\":\"line too long\""

static void
raw(struct auditline *a, const char *s, size_t n)
{
	if (a->len + n + 2 >= sizeof a->line) {
		a->bad = 1;
		return;
	}
	memcpy(a->line + a->len, s, n);
	a->len += n;
}

static void
quoted(struct auditline *a, const char *s, size_t n)
{
	int q;

	if (a->bad)
		return;
	/* in place: the quoter says ENOSPC when it does not fit */
	q = json_quote(s, n, a->line + a->len, sizeof a->line - a->len - 2);
	if (q < 0)
		a->bad = 1;
	else
		a->len += (size_t)q;
}

static void
key(struct auditline *a, const char *k)
{
	raw(a, ",", 1);
	quoted(a, k, strlen(k));
	raw(a, ":", 1);
}

/* v in decimal, written backwards ending just before end: its first
 * character (what "%lld" writes, without a format parsed for every
 * record: a tenth of corral's audit log's cost) */
static char *
dec(char *end, long long v)
{
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do
		*--end = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--end = '-';
	return end;
}

void
al_start(struct auditline *a)
{
	struct timespec ts;
	char t[48], *p = t + sizeof t;
	long ms;

	clock_gettime(CLOCK_REALTIME, &ts);
	a->len = 0;
	a->bad = 0;
	/* {"time":SECONDS.MMM, what "%lld.%03ld" wrote */
	ms = ts.tv_nsec / 1000000;
	*--p = (char)('0' + ms % 10);
	*--p = (char)('0' + ms / 10 % 10);
	*--p = (char)('0' + ms / 100 % 10);
	*--p = '.';
	p = dec(p, (long long)ts.tv_sec) - 8;
	memcpy(p, "{\"time\":", 8);
	raw(a, p, (size_t)(t + sizeof t - p));
}

void
al_strn(struct auditline *a, const char *k, const char *val, size_t n)
{
	key(a, k);
	quoted(a, val, n);
}

void
al_str(struct auditline *a, const char *k, const char *val)
{
	key(a, k);
	quoted(a, val, strlen(val));
}

void
al_int(struct auditline *a, const char *k, long long v)
{
	char b[24], *p = dec(b + sizeof b, v);

	key(a, k);
	raw(a, p, (size_t)(b + sizeof b - p));
}

void
al_strs(struct auditline *a, const char *k, char *const *v, unsigned long n)
{
	key(a, k);
	raw(a, "[", 1);
	for (unsigned long i = 0; i < n; i++) {
		if (i)
			raw(a, ",", 1);
		quoted(a, v[i], strlen(v[i]));
	}
	raw(a, "]", 1);
}

size_t
al_end(struct auditline *a)
{
	if (a->bad) {
		/* never a torn line: say it did not fit, at the time it began */
		const char *comma = memchr(a->line, ',', a->len);
		if (comma != NULL)
			a->len = (size_t)(comma - a->line);
		a->bad = 0;
		raw(a, TOO_LONG, strlen(TOO_LONG));
	}
	/* raw() keeps two bytes free for the end */
	a->line[a->len++] = '}';
	a->line[a->len++] = '\n';
	return a->len;
}

int
al_write(struct auditline *a, int fd)
{
	al_end(a);
	return fd_write_all(fd, a->line, a->len);
}
