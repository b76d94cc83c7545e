/* sb_apply in a forked child, as probe uses it: a granted read succeeds, an
 * ungranted one fails with EACCES, kept descriptors survive, others close,
 * capabilities and no_new_privs are as promised; refusals leave the caller
 * untouched. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "tap.h"

static char dir[64], a[96], af[128], bd[96], bf[128];

static void
put(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) != 0)
		exit(2);
}

/* The child writes one line of results to fd w. */
static void
child(int w, int leak)
{
	struct sb_policy p;
	struct sb_error e;
	char c;
	int fa, fb, eb, s, es, nnp;

	sb_policy_init(&p);
	sb_policy_add_path(&p, a, SB_R, 0);
	p.keep_fd[p.nkeep++] = w;
	if (sb_apply(&p, &e) != 0) {
		dprintf(w, "apply failed: %s\n", e.msg);
		_exit(1);
	}
	fa = open(af, O_RDONLY);
	fb = open(bf, O_RDONLY);
	eb = errno;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	es = errno;
	nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	dprintf(w, "a=%s b=%s unix=%s leak=%s nnp=%d\n",
	    fa >= 0 && read(fa, &c, 1) == 1 ? "ok" : "fail",
	    fb < 0 && eb == EACCES ? "EACCES" : "other",
	    s < 0 && es == EACCES ? "EACCES" : "other",
	    fcntl(leak, F_GETFD) < 0 && errno == EBADF ? "closed" : "open", nnp);
	_exit(0);
}

int
main(void)
{
	struct sb_policy p;
	struct sb_error e;
	char buf[256];
	int pfd[2], leak, st;
	ssize_t n;
	pid_t pid;

	snprintf(dir, sizeof dir, "/tmp/corral-sb.%d", (int)getpid());
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(af, sizeof af, "%s/f", a);
	snprintf(bd, sizeof bd, "%s/b", dir);
	snprintf(bf, sizeof bf, "%s/f", bd);
	if (mkdir(dir, 0755) != 0 || mkdir(a, 0755) != 0 || mkdir(bd, 0755) != 0)
		return 2;
	put(af);
	put(bf);

	if (pipe(pfd) != 0)
		return 2;
	leak = open("/dev/null", O_RDONLY);	/* no O_CLOEXEC: inherited */
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		child(pfd[1], leak);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	waitpid(pid, &st, 0);
	is_int(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0, "child applied the boundary");
	is_str(buf, "a=ok b=EACCES unix=EACCES leak=closed nnp=1\n",
	    "granted read ok, ungranted EACCES, AF_UNIX denied, fd closed, no_new_privs");

	/* A refusal leaves the caller as it was. */
	sb_policy_init(&p);
	sb_policy_add_path(&p, "/nonexistent/corral", SB_R, 0);
	is_int(sb_apply(&p, &e), -1, "a missing path is refused");
	is_int(e.code, SB_E_PATH, "... as SB_E_PATH");
	ok(strstr(e.msg, "/nonexistent/corral") != NULL, "... naming the path: %s", e.msg);
	is_int(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0, "... and nothing was applied");
	sb_policy_init(&p);
	p.net = SB_NET_NONE;
	is_int(sb_policy_add_connect(&p, 80), -1, "connect after no-network refused");
	sb_policy_init(&p);
	sb_policy_add_path(&p, "/usr", SB_R, SB_OPTIONAL);
	is_int(sb_check(&p, &e), 0, "sb_check accepts a plain policy");
	is_int(e.abi, sb_abi(), "... and reports the ABI");

	unlink(af);
	unlink(bf);
	rmdir(a);
	rmdir(bd);
	rmdir(dir);
	return done_testing();
}
