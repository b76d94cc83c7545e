/* gitsafe: (corral, sandbox-mcp) git that cannot run anything. The one
 * list of what every git started outside the boundary carries, whoever
 * starts it: -c settings that turn off each way git could run a program
 * or talk to someone (hooks, fsmonitor, pager, editor, ssh, askpass,
 * credential helpers, external diff, pack and ref hooks, signing, other
 * protocols, auto gc and maintenance), and the environment that keeps out
 * system and global config and prompts. A caller adds its own
 * settings and variables after these, never one with the same key. */
#ifndef CORRAL_GITSAFE_H
#define CORRAL_GITSAFE_H

#include "argv.h"

extern const char *const gitsafe_cfg[];	/* "key=value", NULL-terminated */
extern const char *const gitsafe_env[];	/* "NAME=value", NULL-terminated */

/* Push "-c S" for every S of gitsafe_cfg, then of extra (NULL: none).
 * 0, or -1 with errno EINVAL when an extra setting names a key of
 * gitsafe_cfg (it would undo ours: git takes the last -c), ENOMEM. */
int gitsafe_push_cfg(struct argv *av, const char *const extra[]);
/* Push gitsafe_env, then extra (NULL: none): 0, or -1 with EINVAL when
 * an extra variable names one of ours, ENOMEM. */
int gitsafe_push_env(struct argv *ev, const char *const extra[]);

#endif
