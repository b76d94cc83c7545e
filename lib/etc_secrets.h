/*
 * etc_secrets: the files and directories under /etc that hold secrets, with
 * the reason for each, in one table (like env-filter's never-pass table).
 *
 * A grant of /etc, or of any directory holding one of these, is made entry
 * by entry without them (lib/sandbox_etc.c, confine(1)): as root the agent
 * would read them, and agents often run as root in containers and CI.
 * Only a grant naming the secret itself (or a path inside it) reaches it.
 * Used by confine's sandbox, `corral why` and anyone who needs to say why
 * an /etc path is not granted. Pure: no I/O.
 */
#ifndef CORRAL_ETC_SECRETS_H
#define CORRAL_ETC_SECRETS_H

struct etc_secret {
	const char *path;	/* absolute; a '*' may appear in the last
				   component only (fnmatch, no FNM_PERIOD) */
	const char *why;	/* one line: what it holds */
};

/* The table, ending with { NULL, NULL }. */
extern const struct etc_secret etc_secrets[];

/* Why path (absolute, no "." or ".." components, no trailing '/', symbolic
 * links resolved) is a secret or lies inside one: the table's reason, or
 * NULL when it is neither. */
const char *etc_secret_why(const char *path);

/* 1 when a secret of the table lies strictly inside dir (absolute, clean as
 * above; "/" holds them all), else 0. */
int etc_secret_inside(const char *dir);

#endif
