/* gitseen: what the agent changed in place, on real directories. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitseen.h"
#include "tap.h"

static int
mk(const char *dir, const char *name)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return -1;
	(void)!write(fd, "x\n", 2);
	return close(fd);
}

static int
changed(const struct gitseen *s, const char *dir, const char *name)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return lstat(p, &st) == 0 ? gitseen_changed(s, "", name, &st) : -1;
}

int
main(void)
{
	char top[] = "/tmp/corral-gitseen.XXXXXX", ws[4200], at[4200];
	struct gitseen s;
	int wfd, afd;

	if (mkdtemp(top) == NULL)
		return 1;
	snprintf(ws, sizeof ws, "%s/ws", top);
	snprintf(at, sizeof at, "%s/at", top);
	if (mkdir(ws, 0700) < 0 || mkdir(at, 0700) < 0)
		return 1;
	wfd = open(ws, O_RDONLY | O_DIRECTORY);
	afd = open(at, O_RDONLY | O_DIRECTORY);

	/* a checkout with no file at all (a repository whose commit is empty) */
	ok(gitseen_take(&s, wfd, afd, NULL) == 0 && s.ok && s.cap == 0, "an empty checkout is taken");
	ok(mk(ws, "new") == 0 && changed(&s, ws, "new") == 0, "... a file made after it is new, not changed (it crashed: an empty set)");
	gitseen_free(&s);

	/* the control: a checkout with a file, changed after the set-up */
	ok(mk(ws, "old") == 0 && gitseen_take(&s, wfd, afd, NULL) == 0 && s.cap > 0, "a checkout with files is taken");
	ok(mk(ws, "old") == 0 && changed(&s, ws, "old") == 1, "control: a file there at the set-up and written since is changed (its ctime is not older than the sentinel's)");
	ok(mk(ws, "later") == 0 && changed(&s, ws, "later") == 0, "a file made since is new");
	gitseen_free(&s);

	close(wfd);
	close(afd);
	{
		char cmd[4300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
		(void)!system(cmd);
	}
	return done_testing();
}
