/* refusal: the record of one refusal by confine's seccomp broker, one line
 * on the descriptor confine --refusals names, read by corral run. Pure.
 *
 *   refused t=MS kind=KIND dest=DEST why=WHY pid=PID exe=EXE comm=COMM
 *   dropped n=N t=MS
 *
 * MS: milliseconds since the epoch; KIND: connect, bind, sendto, sendmsg,
 * sendmmsg, open, unlink, ioctl; DEST: 127.0.0.1:80, [::1]:80, unix:/path,
 * unix:@abstract, family:N or path:/dev/pts/N, path:/dev/shm/NAME; WHY: one
 * word (metadata, link-local, loopback, private, remote, no-network, port,
 * unix-path, abstract, unix-dgram, family; pty-other: a terminal whose
 * master the program does not hold; shm-other: a /dev/shm object it did
 * not make); EXE and COMM
 * the caller's /proc/PID/exe and comm, "" when unreadable. DEST, EXE and
 * COMM are what the agent chose: every byte outside 0x21..0x7e, and '%',
 * is written %XX, and each is cut to a bounded length, so a record is one
 * line of printable text no longer than REFUSAL_LINE_MAX. "dropped" says
 * that N refusals in all were not recorded (the reader fell behind). */
#ifndef CORRAL_REFUSAL_H
#define CORRAL_REFUSAL_H
#include <stddef.h>
#include <stdint.h>

enum {
	REFUSAL_LINE_MAX = 1024,
	REFUSAL_RAW_DEST = 108,		/* bytes of a unix path kept (sun_path) */
	REFUSAL_RAW_EXE = 96,		/* bytes of an executable's path kept */
};

struct refusal {
	int64_t when_ms;
	char kind[12];
	char dest[3 * REFUSAL_RAW_DEST + 8];	/* escaped */
	char why[16];
	long pid;
	char exe[3 * REFUSAL_RAW_EXE + 4];	/* escaped; "" if unknown */
	char comm[3 * 16 + 1];			/* escaped; "" if unknown */
	unsigned long long dropped;	/* a "dropped" line: how many; else 0 */
};

/* in[0..n) escaped into out (room for outn, NUL-terminated), never
 * splitting a %XX; the length written. */
size_t refusal_escape(const void *in, size_t n, char *out, size_t outn);
/* The line for r (with '\n') into out[0..n): its length, or -1 when a
 * field is not as refusal_parse accepts it or it does not fit. */
int refusal_format(const struct refusal *r, char *out, size_t n);
/* One line (without '\n'): 0, or -1 when it is not a record. */
int refusal_parse(const char *line, size_t len, struct refusal *r);

#endif
