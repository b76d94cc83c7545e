/* audit: the per-attempt log, one JSON line per step, names never values.
 * Kept in the store: STORE/audit/ID.jsonl, 0600. Lines are lib/auditline
 * records (egress-proxy writes its own into the same file). */
#ifndef CORRAL_AUDIT_H
#define CORRAL_AUDIT_H

#include "auditline.h"

struct audit {
	int fd;			/* -1: not open (lines are dropped) */
	struct auditline l;
};

int audit_open(struct audit *a, const char *store, const char *id);
/* Build a line: start, fields, end (end writes it with one write(2)). */
void audit_start(struct audit *a, const char *step);
void audit_str(struct audit *a, const char *key, const char *val);
void audit_int(struct audit *a, const char *key, long long v);
void audit_strs(struct audit *a, const char *key, char *const *v, unsigned long n);
void audit_end(struct audit *a);
void audit_close(struct audit *a);

#endif
