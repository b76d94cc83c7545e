/* The run says so when the boundary stopped a program: the attempt's
 * denials into its audit log, and, when CMD failed soon after some, a few
 * lines after the program's own output with the ways forward. */
#include <stdio.h>
#include <string.h>

#include "denials.h"
#include "denyreport.h"
#include "msg.h"

enum { RECENT_MS = 10000, SHOWN = 5 };

/* "fs.read_file,fs.execute" -> "read, execute" */
static void
accesses(const char *blockers, char *out, size_t n)
{
	static const struct { const char *b, *say; } names[] = {
		{ "fs.read_file", "read" }, { "fs.read_dir", "list" }, { "fs.execute", "execute" },
		{ "fs.write_file", "write" }, { "fs.truncate", "truncate" },
		{ "fs.make_reg", "create" }, { "fs.make_dir", "create a directory" },
		{ "fs.remove_file", "remove" }, { "fs.remove_dir", "remove a directory" },
		{ "fs.refer", "link or rename" }, { "fs.make_sym", "make a symlink" },
		{ "fs.ioctl_dev", "ioctl" }, { "net.connect_tcp", "connect to" },
		{ "net.bind_tcp", "bind" }, { "scope.signal", "signal" },
		{ "scope.abstract_unix_socket", "connect to an abstract socket" },
	};
	size_t len = 0;

	out[0] = '\0';
	for (const char *p = blockers; *p && len + 1 < n; ) {
		size_t l = strcspn(p, ",");
		const char *say = NULL;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (strlen(names[i].b) == l && strncmp(names[i].b, p, l) == 0)
				say = names[i].say;
		int w = say ? snprintf(out + len, n - len, "%s%s", len ? ", " : "", say)
		    : snprintf(out + len, n - len, "%s%.*s", len ? ", " : "", (int)l, p);
		if (w < 0)
			break;
		len += (size_t)w < n - len ? (size_t)w : n - len - 1;
		p += l + (p[l] == ',');
	}
}

void
denials_report(const struct denials *ds, int code, int64_t exit_ms, struct audit *au, int quiet)
{
	size_t recent = 0, shown = 0;
	char acc[128];

	for (size_t i = 0; i < ds->n; i++) {
		const struct denial *d = &ds->d[i];
		audit_start(au, "denied");
		audit_str(au, "blockers", d->blockers);
		audit_str(au, "object", d->object);
		audit_int(au, "pid", d->pid);
		audit_str(au, "exe", d->exe);
		audit_end(au);
		if (exit_ms - d->when_ms <= RECENT_MS)
			recent++;
	}
	if (ds->more) {
		audit_start(au, "denied");
		audit_int(au, "more", (long long)ds->more);
		audit_end(au);
	}
	if (code == 0 || recent == 0 || quiet)
		return;
	msg_info("the boundary refused %zu access%s to programs this run started, shortly before it ended (status %d):",
	    recent, recent == 1 ? "" : "es", code);
	for (size_t i = 0; i < ds->n && shown < SHOWN; i++) {
		const struct denial *d = &ds->d[i];
		const char *base = strrchr(d->exe, '/');
		if (exit_ms - d->when_ms > RECENT_MS)
			continue;
		accesses(d->blockers, acc, sizeof acc);
		msg_info("  %s %s (%s, pid %d)", acc, d->object[0] ? d->object : "(no path)",
		    base ? base + 1 : d->exe[0] ? d->exe : "?", (int)d->pid);
		shown++;
	}
	if (recent > shown)
		msg_info("  and %zu more, in the attempt's audit log", recent - shown);
	msg_hint("grant it with the policy line corral why PATH prints (corral run -p FILE), or run that work where it is allowed");
}
