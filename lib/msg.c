#include <errno.h>
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

const char *
msg_prog(void)
{
	return prog;
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
