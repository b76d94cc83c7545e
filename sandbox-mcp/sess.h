/* sess: sessions as directories in the store (see sbx.h for the layout).
 * Nothing about a session lives in the server's memory. I/O. */
#ifndef SBX_SESS_H
#define SBX_SESS_H
#include <limits.h>
#include <stdint.h>

#include "sbx.h"

struct sess {
	char id[SBX_ID_LEN + 1];
	char label[SBX_LABEL_MAX + 1];
	char parent[SBX_ID_LEN + 1];
	int64_t created, used;	/* created: ns since the epoch; used: s */
	int dirfd, wsfd;
	int picked;		/* a call's session: its idle time starts again at the release */
	int locked, lockfd;	/* ID/lock held (flock): a call works on it (lockfd valid when locked) */
	char dir[PATH_MAX], ws[PATH_MAX], tmp[PATH_MAX], git[PATH_MAX];
};

int sess_id_ok(const char *s);
int sess_label_ok(const char *s);	/* [A-Za-z0-9._:+-]{1,64} */

/* Open session id; *ss filled. -1 with a reason. */
int sess_open(struct sbx *s, const char *id, struct sess *ss, char *err, size_t errn);
/* Close ss; a session a call picked is touched first (the idle timer
 * counts from the end of the last call, never from its start), then its
 * lock released. */
void sess_release(struct sess *ss);
/* Take ss's lock (ID/lock, flock), held until sess_release: one call at a
 * time works on a session, and the idle reaper passes one in use. wait 0:
 * 1 when another holds it (not taken), else 0. wait 1: wait for it,
 * without the store's lock meanwhile (no call waits for a session while
 * holding the store, so no two wait for each other), and -1 with a reason
 * when the session was closed meanwhile. */
int sess_lock(struct sbx *s, struct sess *ss, int wait, char *err, size_t errn);
/* The session a call names (argument session_id) or the current one,
 * locked (sess_lock, waiting); with s->store_release set, the store's lock
 * is given up once it is held (a long call on one session holds up no
 * other session's calls). */
int sess_pick(struct sbx *s, const struct targs *a, struct sess *ss, char *err, size_t errn);
/* A new session (directories, history, meta); it becomes current. */
int sess_create(struct sbx *s, const char *label, const char *parent, struct sess *ss,
    char *err, size_t errn);
/* Rewrite meta.json from ss (label changes). */
int sess_save(struct sess *ss);
int sess_touch(struct sess *ss);
/* Remove a session's directory (and current when it is the one). */
int sess_remove(struct sbx *s, const char *id, char *err, size_t errn);
/* The connection's current session (s->cur): 0, or -1 when none. */
int sess_current(struct sbx *s, char *id);
int sess_set_current(struct sbx *s, const char *id);
/* The ids in the store, sorted by creation; returns how many (at most max). */
int sess_ids(struct sbx *s, char (*ids)[SBX_ID_LEN + 1], int max);

/* session tools */
tool_fn tool_create_session, tool_session_switch, tool_session_list, tool_session_close,
    tool_get_session_state, tool_session_label, tool_session_fork;

#endif
