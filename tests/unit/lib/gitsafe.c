/* lib/gitsafe: a runner's own setting or variable may not undo one of the
 * shared protections (git takes the last -c; the environment the last or
 * first variable, depending on who reads it). */
#include <errno.h>

#include "gitsafe_check.h"

int
main(void)
{
	const char *const own_cfg[] = { "core.quotePath=false", "protocol.file.allow=always", NULL };
	const char *const undo_cfg[] = { "core.quotePath=false", "Core.HooksPath=.git/hooks", NULL };
	const char *const undo_cfg2[] = { "protocol.allow=always", NULL };
	const char *const own_env[] = { "PATH=/usr/bin:/bin", NULL };
	const char *const undo_env[] = { "GIT_CONFIG_GLOBAL=/home/u/.gitconfig", NULL };
	struct argv av = { 0 }, ev = { 0 };

	av_push(&av, "git");
	is_int(gitsafe_push_cfg(&av, own_cfg), 0, "a runner's own settings beside ours");
	is_int(gitsafe_push_env(&ev, own_env), 0, "a runner's own variables beside ours");
	av_push(&av, "status");
	gitsafe_check("lib", av.v, ev.v, "status");
	is_str(av.v[av.n - 2], "protocol.file.allow=always", "its own settings come after ours");
	av_free(&av);
	av_free(&ev);
	errno = 0;
	is_int(gitsafe_push_cfg(&av, undo_cfg), -1, "core.hooksPath again (any case) is refused");
	is_int(errno, EINVAL, "EINVAL");
	is_int(gitsafe_push_cfg(&av, undo_cfg2), -1, "protocol.allow again is refused");
	is_int(gitsafe_push_env(&ev, undo_env), -1, "GIT_CONFIG_GLOBAL again is refused");
	av_free(&av);
	av_free(&ev);
	return done_testing();
}
