/* msg: one-line diagnostics on stderr, "PROG: KIND: text". Never exits. */
#ifndef CORRAL_MSG_H
#define CORRAL_MSG_H
#include <stddef.h>

#include "status.h"

void msg_init(const char *argv0);		/* sets PROG from argv[0]'s basename */
void msg_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_fatal_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* appends ": strerror(errno)" */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warn_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Format a one-line reason into buf (n bytes) for the caller to report;
 * returns -1, so that a failing path can return msg_say(...). */
int msg_say(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A getopt_long failure: c is what it returned, '?' (unknown option) or
 * ':' (a missing argument: give getopt "+:..." and set opterr = 0). Prints
 * "PROG: usage: unknown option --x" or "PROG: usage: option -k needs an
 * argument", then "PROG: hint: CMD --help" (CMD NULL: PROG). */
void msg_badopt(int c, int argc, char *const argv[], const char *cmd);
/* After --help or --version: 0 when stdout took it all, else -1 after a
 * fatal message (a full disk, a closed pipe). */
int msg_stdout_done(void);

#endif
