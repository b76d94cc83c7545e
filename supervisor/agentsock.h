/* agentsock: a socket an agent binds at a fixed place outside its write
 * grants, by a rule of its own, which confine's broker makes for it
 * (confine --unix-bind). */
#ifndef CORRAL_AGENTSOCK_H
#define CORRAL_AGENTSOCK_H
#include <stddef.h>

#define AGENTSOCK_LOCK ".lock"	/* PATH.lock: the lock it takes beside it */

/* Pure. The one path agent binds when its home is attempt_dir/home: 1 with
 * the path in out (n bytes), 0 when the agent has none, -1 ENAMETOOLONG. */
int agentsock_path(const char *agent, const char *attempt_dir, unsigned uid, char *out, size_t n);
/* Make its directory (0700) when absent, and PATH.lock in it; refuse a
 * directory that is a link, not ours or open to others. 0, or -1 with a
 * reason in why. */
int agentsock_prepare(const char *path, char *why, size_t whyn);
/* Remove the socket and its lock after the run (never another kind of file). */
void agentsock_remove(const char *path);
/* corral explain: the same path, computed by the shell into $AGENT_SOCK
 * (a line for the script), or "" when the agent has none. */
int agentsock_explain(const char *agent, char *out, size_t n);
#endif
