/* corral's git runner carries every protection of lib/gitsafe, whatever
 * the call. */
#include "gitrun.h"
#include "argv.h"
#include "gitsafe_check.h"

static int
has(char *const *v, const char *s)
{
	for (; *v; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

int
main(void)
{
	const char *const args[] = { "status", "--porcelain", NULL };
	struct gitcall full = { "/usr/bin/git", "/s/git", "/w", "/s/index", "/s/objects", "/s/alt" };
	struct gitcall bare = { "/usr/bin/git", "/s/git", NULL, NULL, NULL, NULL };
	struct argv av = { 0 }, ev = { 0 };

	is_int(gitrun_argv(&full, args, &av, &ev), 0, "a call with a work tree and an index");
	is_str(av.v[0], "/usr/bin/git", "git by its path");
	gitsafe_check("corral, work tree", av.v, ev.v, "status");
	ok(has(ev.v, "GIT_NO_REPLACE_OBJECTS=1"), "corral: no replace refs (the attempt's could be the agent's)");
	av_free(&av);
	av_free(&ev);
	is_int(gitrun_argv(&bare, args, &av, &ev), 0, "a call on a bare repository");
	gitsafe_check("corral, bare", av.v, ev.v, "status");
	av_free(&av);
	av_free(&ev);
	return done_testing();
}
