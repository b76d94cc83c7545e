/* gitmode: (corral, git-stage) how the agent gets a git workspace: its own
 * checkout (worktree), the user's tree over a private repository
 * (in-place), or the real repository as it is (off). */
#ifndef CORRAL_GITMODE_H
#define CORRAL_GITMODE_H

enum git_mode { GIT_WORKTREE, GIT_INPLACE, GIT_OFF };

#endif
