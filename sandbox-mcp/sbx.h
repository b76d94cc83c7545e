/* sbx: what every part of sandbox-mcp shares: the server's context, the
 * tool calling convention, and the store's layout.
 *
 *   STORE/                 0700
 *     .lock                flock(2), taken by every tool call; a long call on
 *                          one session (session_bash, session_package_install,
 *                          session_extract_text, session_fetch's transfer)
 *                          gives it up once it holds its session's lock
 *     sessions/ID/         0700, one per session (ID: 16 lowercase hex)
 *       lock               flock(2), held by the call working on the session
 *       meta.json          id, label, created, parent (written by the server only)
 *       used               its mtime is the last call's time (idle reaper)
 *       workspace/         the agent's files (what session_bash may write)
 *       tmp/               the session's TMPDIR and HOME (session_bash may write)
 *       stage/             the server's temporary files, renamed into workspace/
 *       history.git/       the checkpoint repository (never reachable by the agent)
 */
#ifndef SBX_H
#define SBX_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "jw.h"

enum {
	SBX_ID_LEN = 16,
	SBX_LABEL_MAX = 64,
	SBX_ERR_MAX = 1024,
};

struct sbx {
	char store[PATH_MAX];
	int storefd, lockfd;
	char cfgpath[PATH_MAX];
	char home[PATH_MAX];		/* the caller's home, "" if none */
	char stepdir[PATH_MAX];		/* env-filter, confine, probe live here */
	char keeper[PATH_MAX + 8];	/* STEPDIR/keeper: runs each command, ends its tree */
	char *const *envp;		/* the server's environment (never passed whole) */
	char git[PATH_MAX];		/* the git that keeps the checkpoints */
	struct config cfg;		/* read fresh for every call */
	int cfg_seen;			/* a file was read: its loss is an error, not the defaults */
	int proven;			/* probe passed in this process */
	const char *cacert;		/* session_fetch's CA file (--cacert), or NULL */
	/* the connection's current session (SBX_ID_LEN + 1 bytes, "" none):
	 * the stdio client's, or the HTTP session's; never shared between
	 * connections, never in the store */
	char *cur;
	int store_locked;		/* this call holds lockfd */
	int store_release;		/* this call's tool gives the store's lock up
					   once its session is locked (sess_pick) */
};

/* A tool call's arguments: token obj (an object) in js, or obj -1. */
struct targs {
	const char *js;
	const jsmntok_t *t;
	int obj;
};

/* A tool writes its result object's members into out (already opened with
 * '{') and returns 0, or returns -1 with a one-line reason in err. */
typedef int tool_fn(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn);

/* sbx_err: printf into err, returns -1. */
int sbx_err(char *err, size_t errn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
