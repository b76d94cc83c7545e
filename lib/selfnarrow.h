/* selfnarrow: (mcp-proxy, egress-proxy, git-stage) an agent-facing program narrows
 * itself once it is set up (listeners bound, files open), the way doas
 * pledges: lib/sandbox's boundary over the caller's policy (no_new_privs,
 * every capability and core dump gone, Landlock, the seccomp table,
 * scoping), every descriptor it holds kept open, then no execve or
 * execveat at all. What it parses next is the agent's; a bug there finds
 * nothing to open, run or signal. */
#ifndef CORRAL_SELFNARROW_H
#define CORRAL_SELFNARROW_H
#include <stddef.h>

#include "sandbox.h"

/* Apply pol (its keep_fd filled here) to the calling process and refuse
 * exec from then on. 0, or -1 with a one-line reason in why (cap bytes). */
int selfnarrow(struct sb_policy *pol, char *why, size_t cap);
/* The same, exec left to the policy's Landlock grants (git-stage finish
 * runs git): what it executes stays inside the boundary. */
int selfnarrow_exec(struct sb_policy *pol, char *why, size_t cap);

#endif
