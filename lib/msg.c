#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"

static const char *prog = "corral";

void
msg_init(const char *argv0)
{
	const char *s;

	if (argv0 == NULL || *argv0 == '\0')
		return;
	s = strrchr(argv0, '/');
	prog = s ? s + 1 : argv0;
}

/* One write(2) per line, so lines from concurrent processes never interleave. */
static void __attribute__((format(printf, 3, 0)))
vmsg(const char *kind, int err, const char *fmt, va_list ap)
{
	char buf[1024];
	int n, m;

	n = snprintf(buf, sizeof buf, "%s: %s%s", prog, kind, *kind ? ": " : "");
	if (n < 0 || (size_t)n >= sizeof buf)
		return;
	m = vsnprintf(buf + n, sizeof buf - n, fmt, ap);
	if (m < 0)
		return;
	n = (size_t)(n + m) >= sizeof buf - 1 ? (int)sizeof buf - 2 : n + m;
	if (err) {
		m = snprintf(buf + n, sizeof buf - n, ": %s", strerror(err));
		if (m > 0)
			n = (size_t)(n + m) >= sizeof buf - 1 ? (int)sizeof buf - 2 : n + m;
	}
	buf[n++] = '\n';
	(void)!write(2, buf, n);
}

#define DEF(name, kind, witherr)			\
void							\
name(const char *fmt, ...)				\
{							\
	int e = errno;					\
	va_list ap;					\
	va_start(ap, fmt);				\
	vmsg(kind, witherr ? e : 0, fmt, ap);		\
	va_end(ap);					\
	errno = e;					\
}

DEF(msg_fatal, "fatal", 0)
DEF(msg_fatal_sys, "fatal", 1)
DEF(msg_warn, "warning", 0)
DEF(msg_warn_sys, "warning", 1)
DEF(msg_hint, "hint", 0)
DEF(msg_usage, "usage", 0)
DEF(msg_info, "", 0)

void
msg_badopt(int c, int argc, char *const argv[], const char *cmd)
{
	const char *a = optind - 1 < argc && optind > 0 ? argv[optind - 1] : NULL;
	char opt[80];

	/* a long option as written (up to '='), else the short one */
	if (a != NULL && strncmp(a, "--", 2) == 0 && a[2] != '\0')
		snprintf(opt, sizeof opt, "%.*s", (int)strcspn(a, "="), a);
	else if (optopt > ' ' && optopt < 127)
		snprintf(opt, sizeof opt, "-%c", optopt);
	else
		snprintf(opt, sizeof opt, "%.64s", a ? a : "?");
	if (c == ':')
		msg_usage("option %s needs an argument", opt);
	else if (a != NULL && strncmp(a, "--", 2) == 0 && strchr(a, '=') && optopt != 0)
		msg_usage("option %s takes no argument", opt);
	else
		msg_usage("unknown option %s", opt);
	msg_hint("%s --help", cmd ? cmd : prog);
}

int
msg_stdout_done(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_fatal_sys("unable to write to standard output");
		return -1;
	}
	return 0;
}

int
msg_say(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return -1;
}
