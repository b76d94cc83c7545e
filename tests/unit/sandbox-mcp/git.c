/* sandbox-mcp's checkpoint runner carries every protection of lib/gitsafe
 * beside its own settings, none of which undoes one of them. */
#include <stdio.h>

#include "../../../sandbox-mcp/git.h"
#include "argv.h"
#include "gitsafe_check.h"

int
main(void)
{
	const char *const args[] = { "add", "-A", "--", ".", NULL };
	struct sess ss = { 0 };
	struct argv av = { 0 }, ev = { 0 };

	snprintf(ss.git, sizeof ss.git, "/state/s1/git");
	snprintf(ss.ws, sizeof ss.ws, "/state/s1/ws");
	is_int(git_argv("/usr/bin/git", &ss, args, &av, &ev), 0, "a checkpoint's git add");
	is_str(av.v[1], "--git-dir=/state/s1/git", "the history repository");
	is_str(av.v[2], "--work-tree=/state/s1/ws", "the workspace as its work tree");
	gitsafe_check("sandbox-mcp", av.v, ev.v, "add");
	for (size_t i = 0; ev.v[i]; i++)
		ok(strncmp(ev.v[i], "GIT_NO_REPLACE_OBJECTS=", 23) != 0,
		    "sandbox-mcp: replace refs on (%s; its history is pruned with grafts)", ev.v[i]);
	av_free(&av);
	av_free(&ev);
	return done_testing();
}
