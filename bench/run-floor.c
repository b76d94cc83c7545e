/* bench/run-floor: the process structure of `corral run -- /bin/true` with
 * none of its work, for bench/run to set beside (BENCH_FLOOR=1): the same
 * static programs exec'd (this one, under each step's role), the same
 * forks, pipes and waits, and /bin/true at the end of the chain. What
 * corral's side takes beyond it is the steps' work; what it takes itself
 * is the least that this many processes cost on the machine.
 *
 *   corral:     spawns probe, the chain (keeper), home-stage create
 *               --finish and runfiles watch; writes the chain's go byte
 *               once create has said it is done (its empty line) and
 *               probe has ended; after keeper, the go bytes of create's
 *               finish and runfiles, and waits for both
 *   probe:      two forked children, the first with a child of its own
 *   keeper:     forks env-filter and waits
 *   env-filter: execs confine
 *   confine:    forks a child that reads its gate, then execs /bin/true
 *   create:     writes a byte (its empty line), then reads its go byte
 *   wait:       runfiles watch: reads its go byte */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *self, **env;

static pid_t
step_io(const char *role, int in, int out)
{
	posix_spawn_file_actions_t fa;
	char *av[] = { self, (char *)role, NULL };
	pid_t p;

	posix_spawn_file_actions_init(&fa);
	if (in >= 0)
		posix_spawn_file_actions_adddup2(&fa, in, 0);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	if (posix_spawn(&p, self, &fa, NULL, av, env) != 0)
		_exit(111);
	posix_spawn_file_actions_destroy(&fa);
	return p;
}

static pid_t
step(const char *role, int in)
{
	return step_io(role, in, -1);
}

static void
reap(pid_t p)
{
	int ws;

	if (waitpid(p, &ws, 0) != p || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		_exit(112);
}

static void
go(int fd)
{
	if (write(fd, "g", 1) != 1)
		_exit(113);
	close(fd);
}

int
main(int argc, char **argv, char **envp)
{
	const char *role = argc > 1 ? argv[1] : "corral";
	char c;

	self = argv[0];
	env = envp;
	if (strcmp(role, "corral") == 0) {
		int gate[2], rf[2], fin[2], out[2];
		pid_t pr, ke, cr, wa;
		if (pipe(gate) < 0 || pipe(rf) < 0 || pipe(fin) < 0 || pipe(out) < 0)
			return 110;
		pr = step("probe", -1);
		ke = step("keeper", gate[0]);
		cr = step_io("create", fin[0], out[1]);
		wa = step("wait", rf[0]);
		close(gate[0]);
		close(rf[0]);
		close(fin[0]);
		close(out[1]);
		if (read(out[0], &c, 1) != 1)
			return 119;
		reap(pr);
		go(gate[1]);
		reap(ke);
		go(fin[1]);
		go(rf[1]);
		reap(wa);
		reap(cr);
		return 0;
	}
	if (strcmp(role, "probe") == 0) {
		pid_t a, b, g;
		if ((a = fork()) == 0) {
			if ((g = fork()) == 0)
				_exit(0);
			reap(g);
			_exit(0);
		}
		if ((b = fork()) == 0)
			_exit(0);
		reap(a);
		reap(b);
		return 0;
	}
	if (strcmp(role, "keeper") == 0) {
		reap(step("env-filter", -1));
		return 0;
	}
	if (strcmp(role, "env-filter") == 0) {
		char *av[] = { self, "confine", NULL };
		execve(self, av, env);
		return 114;
	}
	if (strcmp(role, "confine") == 0) {
		pid_t p;
		if ((p = fork()) == 0) {
			char *av[] = { "/bin/true", NULL };
			if (read(0, &c, 1) != 1)
				_exit(115);
			execve(av[0], av, env);
			_exit(116);
		}
		close(0);
		reap(p);
		return 0;
	}
	if (strcmp(role, "wait") == 0)
		return read(0, &c, 1) == 1 ? 0 : 117;
	if (strcmp(role, "create") == 0)
		return write(1, "\n", 1) == 1 && read(0, &c, 1) == 1 ? 0 : 117;
	return 118;
}
