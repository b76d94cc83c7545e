/* lib/parentdir: a path's parents beneath a directory, never through a
 * symlink, each refusal beside its control. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parentdir.h"
#include "rmtree.h"
#include "tap.h"

int
main(void)
{
	char tmpl[] = "/tmp/corral-unit-XXXXXX", outside[] = "/tmp/corral-unit-XXXXXX", p[600], big[300];
	const char *base = NULL;
	struct stat st;
	int root, fd;

	if (mkdtemp(tmpl) == NULL || mkdtemp(outside) == NULL)
		return 1;
	root = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	fd = parentdir_open(root, "name", 0, &base);
	ok(fd >= 0 && strcmp(base, "name") == 0, "no '/': the directory itself, base the name");
	close(fd);
	errno = 0;
	is_int(parentdir_open(root, "a/b/c", 0, &base), -1, "missing parents, not made");
	is_int(errno, ENOENT, "ENOENT");
	fd = parentdir_open(root, "a/b/c", 0700, &base);
	ok(fd >= 0 && strcmp(base, "c") == 0, "made with a mode, base the last name");
	close(fd);
	snprintf(p, sizeof p, "%s/a/b", tmpl);
	ok(stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700, "a/b made 0700");
	fd = parentdir_open(root, "a/b/c", 0, &base);
	ok(fd >= 0, "control: the same path, made, opens without making");
	close(fd);

	/* a symlink in the way: never followed, nothing made beyond it */
	snprintf(p, sizeof p, "%s/link", tmpl);
	if (symlink(outside, p) != 0)
		return 1;
	errno = 0;
	is_int(parentdir_open(root, "link/x/y", 0755, &base), -1, "a symlink in the way is refused");
	is_int(errno, ELOOP, "ELOOP");
	snprintf(p, sizeof p, "%s/x", outside);
	ok(lstat(p, &st) != 0, "nothing was made through the link");
	is_int(parentdir_open(root, "a/link2/y", 0, &base), -1, "control: a missing directory is not a link");
	snprintf(p, sizeof p, "%s/a/file", tmpl);
	close(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	errno = 0;
	is_int(parentdir_open(root, "a/file/y", 0755, &base), -1, "a file in the way is refused");
	is_int(errno, ENOTDIR, "ENOTDIR");
	fd = parentdir_open(root, "link", 0, &base);
	ok(fd >= 0 && strcmp(base, "link") == 0, "the last component is the caller's (a link there is not opened)");
	close(fd);
	is_int(parentdir_open(root, "a//c", 0755, &base), -1, "an empty component is refused");
	memset(big, 'n', 256);
	big[256] = '\0';
	snprintf(p, sizeof p, "%s/c", big);
	errno = 0;
	is_int(parentdir_open(root, p, 0755, &base), -1, "a component longer than NAME_MAX");
	is_int(errno, ENAMETOOLONG, "ENAMETOOLONG");

	/* PARENTDIR_REPLACE: what is in the way is removed, never followed */
	snprintf(p, sizeof p, "%s/rl", tmpl);
	if (symlink(outside, p) != 0)
		return 1;
	is_int(parentdir_openf(root, "rl/y", 0, PARENTDIR_REPLACE, &base), -1,
	    "control: without a mode, a link in the way stays refused");
	ok(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "and stays a link");
	fd = parentdir_openf(root, "rl/z/y", 0755, PARENTDIR_REPLACE, &base);
	ok(fd >= 0 && strcmp(base, "y") == 0, "replace: a link in the way becomes a directory");
	close(fd);
	ok(lstat(p, &st) == 0 && S_ISDIR(st.st_mode), "rl is a directory now");
	snprintf(p, sizeof p, "%s/z", outside);
	ok(lstat(p, &st) != 0 && lstat(outside, &st) == 0, "the link's target is untouched, nothing made there");
	fd = parentdir_openf(root, "a/file/y", 0755, PARENTDIR_REPLACE, &base);
	ok(fd >= 0, "replace: a file in the way becomes a directory");
	close(fd);
	snprintf(p, sizeof p, "%s/a/file", tmpl);
	ok(lstat(p, &st) == 0 && S_ISDIR(st.st_mode), "a/file is a directory now");
	close(root);
	rmtree_at(AT_FDCWD, tmpl);
	rmtree_at(AT_FDCWD, outside);
	return done_testing();
}
