/* refusals: the broker's refusal records of one attempt (corral run) or one command (sandbox-mcp), read back. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "refusals.h"

int
refusals_open(struct refusals *rs)
{
	int p[2];

	rs->rd = rs->wr = -1;
	rs->n = rs->more = rs->bad = 0;
	rs->dropped = 0;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	/* the write end goes through env-filter to confine (never further:
	 * sb_apply closes it; the broker keeps it) */
	if (fcntl(p[1], F_SETFD, 0) < 0 || p[1] < 3) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	rs->rd = p[0];
	rs->wr = p[1];
	return rs->wr;
}

void
refusals_feed(struct refusals *rs, const char *buf, size_t len)
{
	struct refusal r;

	while (len > 0) {
		const char *nl = memchr(buf, '\n', len);
		size_t l = nl ? (size_t)(nl - buf) : len;
		if (refusal_parse(buf, l, &r) != 0)
			rs->bad++;
		else if (r.dropped) {
			if (r.dropped > rs->dropped)
				rs->dropped = r.dropped;
		} else if (rs->n < REFUSALS_MAX)
			rs->r[rs->n++] = r;
		else
			rs->more++;
		if (!nl)
			break;
		buf += l + 1;
		len -= l + 1;
	}
}

void
refusals_collect(struct refusals *rs)
{
	static char buf[65536 + REFUSAL_LINE_MAX + 1];
	size_t have = 0;
	ssize_t n;

	if (rs->rd < 0)
		return;
	if (rs->wr >= 0)
		close(rs->wr);
	rs->wr = -1;
	for (;;) {
		n = read(rs->rd, buf + have, sizeof buf - have - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		/* whole lines now; the rest waits for the next read */
		char *last = memrchr(buf, '\n', have);
		size_t whole = last ? (size_t)(last - buf) + 1 : 0;
		if (whole == 0 && have > REFUSAL_LINE_MAX)
			whole = have;	/* no record is this long */
		refusals_feed(rs, buf, whole);
		memmove(buf, buf + whole, have - whole);
		have -= whole;
	}
	if (have)
		refusals_feed(rs, buf, have);
}

void
refusals_close(struct refusals *rs)
{
	if (rs->rd >= 0)
		close(rs->rd);
	if (rs->wr >= 0)
		close(rs->wr);
	rs->rd = rs->wr = -1;
}
