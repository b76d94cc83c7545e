/* auditline: (corral, egress-proxy, mcp-proxy) the one audit record
 * writer. A record is a JSON object on one line that starts with
 * "time": seconds since the epoch to the millisecond (1733112345.123), the
 * one timestamp format of every audit log; it is built in a fixed buffer
 * and written with one write(2), so the lines of several writers to one
 * O_APPEND log (corral's and egress-proxy's) never interleave. */
#ifndef CORRAL_AUDITLINE_H
#define CORRAL_AUDITLINE_H
#include <stddef.h>

struct auditline {
	char line[16384];
	size_t len;
	int bad;		/* a field did not fit */
};

/* Begin a record: {"time":NOW */
void al_start(struct auditline *a);
/* ,"key":value: a string (quoted, lib/json's quoter), the n bytes at val,
 * a number, a list of strings. */
void al_str(struct auditline *a, const char *key, const char *val);
void al_strn(struct auditline *a, const char *key, const char *val, size_t n);
void al_int(struct auditline *a, const char *key, long long v);
void al_strs(struct auditline *a, const char *key, char *const *v, unsigned long n);
/* End the record in line (its length, the "}\n" included), not written:
 * a record that did not fit as al_write says it. */
size_t al_end(struct auditline *a);
/* End the record and write it to fd in one write: 0, or -1 with errno. A
 * record that did not fit is never torn: {"time":T,"step":"audit",
 * "error":"line too long"} is written in its place. */
int al_write(struct auditline *a, int fd);

#endif
