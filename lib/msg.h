/* msg: one-line diagnostics on stderr, "PROG: KIND: text". Never exits. */
#ifndef CORRAL_MSG_H
#define CORRAL_MSG_H

/* Exit statuses shared by the toolkit (GUIDE.md, Conventions). */
enum {
	EXIT_CHAIN_FAIL = 125,	/* chain-loader's own failure or refusal */
	EXIT_NOEXEC = 126,	/* program found but not executable */
	EXIT_NOTFOUND = 127,	/* program not found */
	EXIT_NO = 1,		/* other commands: no / refused */
	EXIT_USAGE = 2,		/* other commands: usage or system error */
};

void msg_init(const char *argv0);		/* sets PROG from argv[0]'s basename */
const char *msg_prog(void);
void msg_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_fatal_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* appends ": strerror(errno)" */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warn_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
