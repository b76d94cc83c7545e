/* bench/git-attempt.c: one worktree attempt of a repository, set up and
 * imported, with the supervisor's own code (gitws_setup, gitws_import,
 * gitws_release),
 * the agent's part reduced to one changed file. Usage: git-attempt REPO
 * STORE ID (ID: 32 hex digits, new each time). Exit 0 when both worked. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gitrun.h"
#include "gitws.h"

int
main(int argc, char **argv)
{
	static struct gitws g;
	struct gitws_result r;
	char why[8192], p[8192];
	int fd;

	if (argc != 4)
		return fprintf(stderr, "usage: git-attempt REPO STORE ID\n"), 2;
	g.git = gitrun_find();
	g.mode = GIT_WORKTREE;
	if (g.git == NULL || gitws_locate(&g, argv[1], why, sizeof why) < 0 ||
	    gitws_setup(&g, argv[2], argv[3], why, sizeof why) < 0)
		return fprintf(stderr, "git-attempt: %s\n", why), 1;
	snprintf(p, sizeof p, "%s/agent-was-here", g.work);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 || write(fd, "x\n", 2) != 2 || close(fd) < 0)
		return perror(p), 1;
	if (gitws_import(&g, argv[3], &r, why, sizeof why) < 0)
		return fprintf(stderr, "git-attempt: %s\n", why), 1;
	gitws_release(&g, 0);	/* as corral run: the checkout removed after it returns */
	return r.branch[0] ? 0 : 1;
}
