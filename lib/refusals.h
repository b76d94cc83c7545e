/* refusals: what confine's seccomp broker refused during one attempt or command
 * (unix sockets, IP destinations: lib/sandbox_ip.c), from the pipe whose
 * write end confine --refusals is given (lib/refusal.h records). Unlike
 * the audit denials (denials.h) this needs no privilege: it works as
 * nobody too. The agent never holds the write end (confine closes it
 * before the program; only the broker keeps it). */
#ifndef CORRAL_REFUSALS_H
#define CORRAL_REFUSALS_H
#include <stddef.h>

#include "refusal.h"

enum { REFUSALS_MAX = 256 };

struct refusals {
	int rd, wr;			/* the pipe; -1: none */
	struct refusal r[REFUSALS_MAX];	/* kept in arrival order */
	size_t n, more;			/* kept, and read beyond them */
	unsigned long long dropped;	/* the broker's count of those it could not write */
	size_t bad;			/* lines that were not records */
};

/* Before the chain: the pipe (both ends O_NONBLOCK, the read end
 * O_CLOEXEC). The write end for confine --refusals, or -1 (the run goes on
 * without). */
int refusals_open(struct refusals *rs);
/* After every process of the attempt ended: read every record. */
void refusals_collect(struct refusals *rs);
void refusals_close(struct refusals *rs);
/* Pure: the records in buf[0..len) (whole lines) into rs. */
void refusals_feed(struct refusals *rs, const char *buf, size_t len);

#endif
