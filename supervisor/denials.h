/* denials: the Landlock denials of one attempt, read from the kernel's
 * audit records (AUDIT_LANDLOCK_ACCESS, AUDIT_LANDLOCK_DOMAIN, and the
 * event's SYSCALL record for the process), where this process may read
 * them: CAP_AUDIT_READ (root) and audit enabled. corral never changes the
 * machine's audit settings. */
#ifndef CORRAL_DENIALS_H
#define CORRAL_DENIALS_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { DENIALS_MAX = 256 };

struct denial {
	char domain[24];		/* the Landlock domain that refused */
	uint64_t serial;		/* the audit event */
	int64_t when_ms;		/* the record's time, ms since the epoch */
	pid_t pid;			/* the process refused, 0 if unknown */
	char blockers[96];		/* "fs.read_file", "net.connect_tcp", ... */
	char object[320];		/* the path, or the port; "" if none */
	char exe[160];			/* its executable, "" if unknown */
};

struct denials {
	int fd;				/* the audit multicast socket, -1: none */
	int ask;			/* AUDIT_GET's, answer not read yet, -1: none */
	int ask_sent;			/* AUDIT_GET was sent on it */
	int asking;			/* asker runs, or is to be joined */
	pthread_t asker;		/* sends AUDIT_GET (denials_ask) */
	char domain[24];		/* the domain the chain created, "" until seen */
	long child;			/* the pid confine's broker says restricts */
	struct { long pid; char domain[24]; } cand[8];	/* domains not yet placed */
	size_t ncand;
	struct denial d[DENIALS_MAX];	/* kept in arrival order */
	size_t n, more;			/* kept, and seen beyond them */
};

/* Why denials cannot be recorded on this machine, or NULL when they can. */
const char *denials_unavailable(void);
/* Subscribe before the chain starts. 0, or -1 (nothing is recorded; the
 * run goes on). */
int denials_open(struct denials *ds);
/* Ask whether audit is on, from a thread (the send waits for a kernel
 * thread); the answer is read by denials_collect, which asks itself when
 * this was not called. 0, or -1 (closed: nothing is recorded). */
int denials_ask(struct denials *ds);
/* After every process of the attempt ended: read what the kernel logged
 * (waiting up to settle_ms for records still on their way) and keep only
 * the denials of the domain the chain's pid created. */
void denials_collect(struct denials *ds, pid_t chain, int settle_ms);
void denials_close(struct denials *ds);

/* Pure: one audit record (netlink type, its text) into ds. */
void denials_parse(struct denials *ds, int type, const char *text, size_t len, pid_t chain);
/* Pure: drop every denial not of ds->domain (none kept when it is ""). */
void denials_filter(struct denials *ds);

#endif
