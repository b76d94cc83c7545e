/* audit: the per-attempt log, one JSON line per step, names never values.
 * Kept in the store: STORE/audit/ID.jsonl, 0600. Lines are lib/auditline
 * records (egress-proxy writes its own into the same file). */
#ifndef CORRAL_AUDIT_H
#define CORRAL_AUDIT_H

#include "auditline.h"

enum { AUDIT_HELD = 4 };

struct audit {
	int fd;			/* -1: not open (lines are dropped) */
	struct auditline l;
	/* records built ahead (audit_hold), written by audit_flush: each
	 * from its first field on, the time left to the write */
	size_t nheld, heldlen, heldat[AUDIT_HELD + 1];
	char held[AUDIT_HELD * sizeof ((struct auditline *)0)->line];
};

int audit_open(struct audit *a, const char *store, const char *id);
/* Build a line: start, fields, end (end writes it with one write(2)). */
void audit_start(struct audit *a, const char *step);
void audit_str(struct audit *a, const char *key, const char *val);
void audit_int(struct audit *a, const char *key, long long v);
void audit_strs(struct audit *a, const char *key, char *const *v, unsigned long n);
void audit_end(struct audit *a);
/* ... or keep the record built (up to AUDIT_HELD), unwritten; audit_flush
 * writes the records kept, in the order kept, each with the time of the
 * flush (what audit_end would have written then), in one write(2); audit_drop
 * forgets them. */
void audit_hold(struct audit *a);
void audit_flush(struct audit *a);
void audit_drop(struct audit *a);
void audit_close(struct audit *a);

#endif
