/* The run says so when the boundary stopped a program: the attempt's
 * denials into its audit log, and, when CMD failed soon after some, a few
 * lines after the program's own output with the ways forward. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "denials.h"
#include "denyreport.h"
#include "msg.h"
#include "verdict.h"

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

/* "127.0.0.1:80", "[::1]:80" -> host, port; -1 for any other destination */
static int
ip_dest(const char *dest, char *host, size_t n, unsigned *port)
{
	const char *c, *h = dest;
	size_t hl;

	if (dest[0] == '[') {
		c = strstr(dest, "]:");
		h = dest + 1;
		hl = c ? (size_t)(c - h) : 0;
		c = c ? c + 1 : NULL;
	} else {
		c = strrchr(dest, ':');
		hl = c ? (size_t)(c - h) : 0;
	}
	if (c == NULL || hl == 0 || hl >= n || strncmp(dest, "unix:", 5) == 0 ||
	    strncmp(dest, "family:", 7) == 0 || c[1] < '0' || c[1] > '9' || strlen(c + 1) > 5)
		return -1;
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = (unsigned)atoi(c + 1);
	return *port <= 65535 ? 0 : -1;
}

/* "\"network\": {\"allow_loopback\": [1]}" -> "network.allow_loopback" */
static void
grant_key(const char *grant, char *out, size_t n)
{
	const char *k = strstr(grant, "{\"");

	if (k == NULL) {
		snprintf(out, n, "network");
		return;
	}
	k += 2;
	snprintf(out, n, "network.%.*s", (int)strcspn(k, "\""), k);
}

/* What the boundary's rule is and what would allow it, for one refusal. */
static void
refusal_why(const struct refusal *r, const struct plan *pl)
{
	struct verdict v;
	char host[64], key[64];
	unsigned port;

	if (strncmp(r->dest, "path:/dev/pts/", 14) == 0) {
		msg_info("    another terminal of yours (its master is not the agent's): nothing in a policy grants it");
		return;
	}
	if (strncmp(r->dest, "path:/dev/shm/", 14) == 0) {
		msg_info("    shared memory the agent did not make: \"write\": [\"/dev/shm\"] would allow it"
		    " (every program's shared memory; not advised)");
		return;
	}
	if (ip_dest(r->dest, host, sizeof host, &port) != 0) {
		msg_info("    %s: nothing in a policy grants it", strncmp(r->dest, "unix:", 5) == 0 ?
		    "a unix socket corral does not hand to the agent" : "a socket family the boundary never allows");
		return;
	}
	if (strcmp(r->kind, "bind") == 0) {
		msg_info("    \"network\": {\"bind\": [%u]} would allow it (network.bind)", port);
		return;
	}
	verdict_connect(pl, host, port, &v);
	if (v.acc != ACC_NONE || v.grant[0] == '\0') {
		msg_info("    (%s)", v.rule);
		return;
	}
	if (v.never) {
		msg_info("    %s: nothing in a policy grants it but %s", v.rule, v.grant);
		return;
	}
	grant_key(v.grant, key, sizeof key);
	msg_info("    %s: %s would allow it (%s; corral why --connect %s%s%s:%u)", v.rule, v.grant, key,
	    strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", port);
}

/* 1 when a refusal of a file (a pty, shared memory) is among them */
static int
files(const struct refusals *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strncmp(rs->r[i].dest, "path:", 5) == 0)
			return 1;
	return 0;
}

static int
same(const struct refusal *a, const struct refusal *b)
{
	return a->pid == b->pid && strcmp(a->kind, b->kind) == 0 && strcmp(a->dest, b->dest) == 0;
}

void
refusals_report(const struct refusals *rs, const struct plan *pl, int code, int64_t exit_ms,
    struct audit *au, int quiet)
{
	size_t recent = 0, shown = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct refusal *r = &rs->r[i];
		audit_start(au, "refused");
		audit_str(au, "call", r->kind);
		audit_str(au, "dest", r->dest);
		audit_str(au, "why", r->why);
		audit_int(au, "pid", r->pid);
		audit_str(au, "exe", r->exe);
		audit_str(au, "comm", r->comm);
		audit_end(au);
		if (exit_ms - r->when_ms <= RECENT_MS)
			recent++;
	}
	if (rs->more || rs->dropped || rs->bad) {
		audit_start(au, "refused");
		audit_int(au, "more", (long long)rs->more);
		audit_int(au, "dropped", (long long)rs->dropped);
		audit_int(au, "unreadable", (long long)rs->bad);
		audit_end(au);
	}
	if (code == 0 || recent == 0 || quiet)
		return;
	/* what came beyond the records kept came later still: recent too */
	msg_info("the boundary refused %s%zu %scall%s of programs this run started, shortly before it ended (status %d):",
	    rs->dropped ? "at least " : "", recent + rs->more + (size_t)rs->dropped, files(rs) ? "" : "network ",
	    recent + rs->more + rs->dropped == 1 ? "" : "s", code);
	for (size_t i = 0; i < rs->n; i++) {
		const struct refusal *r = &rs->r[i];
		const char *base = strrchr(r->exe, '/');
		size_t times = 0, k;
		char many[32];
		if (exit_ms - r->when_ms > RECENT_MS)
			continue;
		/* each call, destination and process once, with how often */
		for (k = 0; k < i; k++)
			if (same(&rs->r[k], r) && exit_ms - rs->r[k].when_ms <= RECENT_MS)
				break;
		if (k < i)
			continue;
		if (shown++ == SHOWN)
			continue;
		for (k = i; k < rs->n; k++)
			times += same(&rs->r[k], r);
		many[0] = '\0';
		if (times > 1)
			snprintf(many, sizeof many, ", %zu times", times);
		msg_info("  %s %s (%s, pid %ld)%s", r->kind, r->dest,
		    base ? base + 1 : r->comm[0] ? r->comm : "?", r->pid, many);
		refusal_why(r, pl);
	}
	if (shown > SHOWN)
		msg_info("  and %zu other%s, in the attempt's audit log", shown - SHOWN, shown - SHOWN == 1 ? "" : "s");
	if (rs->more || rs->dropped)
		msg_info("  (%llu more not kept%s)", (unsigned long long)rs->more + rs->dropped,
		    rs->dropped ? ": the broker could not write them all" : ", counted in the attempt's audit log");
	msg_hint("allow it with the policy line shown (corral run -p FILE), or run that work where it is allowed");
}
