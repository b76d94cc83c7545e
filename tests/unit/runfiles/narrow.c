/* runfiles narrows itself before it reads the tree: in a real child under
 * the real ruleset, the tree and the named git config read (controls),
 * nothing written inside or outside the tree, nothing read outside it, a
 * symbolic link planted in the tree that points out not followed out, no
 * exec; the same opens before narrowing succeed (controls). As root and as
 * whoever runs it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rf.h"
#include "tap.h"

static char top[64], root[128], out[128], cfg[160];

/* 1 when open(path, flags) succeeds */
static int
can(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

enum { N = 9 };
static const char *const what[N] = {
	"read a file of the tree", "read the --git-config file", "list the tree",
	"write a file of the tree", "create a file in the tree", "create a file outside",
	"read a file outside", "read through a link the agent planted in the tree to outside",
	"exec a program",
};

/* each check's result, one byte each, from a child narrowed or not */
static void
checks(int narrow, char res[N])
{
	char p[256], q[256], l[256], x[256], why[256];
	int pp[2];
	pid_t pid;

	snprintf(p, sizeof p, "%s/.envrc", root);
	snprintf(q, sizeof q, "%s/new", root);
	snprintf(x, sizeof x, "%s/secret", out);
	snprintf(l, sizeof l, "%s/.vscode/secret", root);
	if (pipe(pp) < 0 || (pid = fork()) < 0)
		exit(2);
	if (pid == 0) {
		char r[N];
		char *ro[] = { cfg };
		char *const av[] = { "/bin/true", NULL };
		close(pp[0]);
		if (narrow && rf_narrow(root, ro, 1, why, sizeof why) < 0) {
			fprintf(stderr, "narrow: %s\n", why);
			_exit(3);
		}
		r[0] = (char)can(p, O_RDONLY);
		r[1] = (char)can(cfg, O_RDONLY);
		r[2] = (char)can(root, O_RDONLY | O_DIRECTORY);
		r[3] = (char)can(p, O_WRONLY);
		r[4] = (char)can(q, O_WRONLY | O_CREAT | O_EXCL);
		unlink(q);
		snprintf(q, sizeof q, "%s/new", out);
		r[5] = (char)can(q, O_WRONLY | O_CREAT | O_EXCL);
		unlink(q);
		r[6] = (char)can(x, O_RDONLY);
		r[7] = (char)can(l, O_RDONLY);
		{
			pid_t k = fork();
			int ws = 0;
			if (k == 0) {
				execve(av[0], av, NULL);
				_exit(99);
			}
			r[8] = (char)(k > 0 && waitpid(k, &ws, 0) == k && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
		}
		(void)!write(pp[1], r, N);
		_exit(0);
	}
	close(pp[1]);
	if (read(pp[0], res, N) != N)
		memset(res, 9, N);
	close(pp[0]);
	waitpid(pid, NULL, 0);
}

int
main(void)
{
	char before[N], after[N], p[256];

	snprintf(top, sizeof top, "/tmp/rf-narrow.XXXXXX");
	if (mkdtemp(top) == NULL)
		return 2;
	snprintf(root, sizeof root, "%s/ws", top);
	snprintf(out, sizeof out, "%s/out", top);
	snprintf(cfg, sizeof cfg, "%s/gitconfig", top);
	mkdir(root, 0755);
	mkdir(out, 0755);
	snprintf(p, sizeof p, "%s/.envrc", root);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	snprintf(p, sizeof p, "%s/secret", out);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	close(open(cfg, O_WRONLY | O_CREAT, 0644));
	snprintf(p, sizeof p, "%s/.vscode", root);
	if (symlink(out, p) < 0)
		return 2;

	checks(0, before);
	checks(1, after);
	for (int i = 0; i < N; i++)
		ok(before[i] == 1, "control: before narrowing it can %s", what[i]);
	for (int i = 0; i < 3; i++)
		ok(after[i] == 1, "narrowed: it can still %s", what[i]);
	for (int i = 3; i < N; i++)
		ok(after[i] == 0, "narrowed: it cannot %s", what[i]);

	snprintf(p, sizeof p, "rm -rf '%s'", top);
	if (system(p) != 0)
		diag("unable to remove %s", top);
	return done_testing();
}
