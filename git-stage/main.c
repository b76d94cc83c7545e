/* git-stage: the git workspace step. create: the agent's own repository
 * and checkout, before the chain; finish: its work imported as data after
 * it, confined; discard: an attempt set up and never run. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "argv.h"
#include "gitrun.h"
#include "gs.h"
#include "msg.h"
#include "rmtree.h"
#include "status.h"
#include "version.h"

struct gsopts {
	const char *state, *attempt, *sub, *ws;
	int inplace, from_head, caller, wait_input;
	struct argv deps;
};

static void
usage(int fd)
{
	fprintf(fd == 1 ? stdout : stderr,
	    "usage: git-stage create --state DIR --attempt ID [--in-place] [--from-head]\n"
	    "                        [--sub PATH] [--dep PATH]... [--caller PID] [--name NAME]\n"
	    "                        WORKSPACE\n"
	    "       git-stage finish --state DIR --attempt ID [--wait-input] [--name NAME]\n"
	    "       git-stage discard --state DIR --attempt ID [--name NAME]\n"
	    "       git-stage -h | --help | --version\n"
	    "create makes the attempt repository and checkout of the repository whose top\n"
	    "is WORKSPACE and prints \"work PATH\" (the checkout), \"cwd PATH\" (where the\n"
	    "agent starts), \"dep PATH\" (each dependency directory linked in) and\n"
	    "\"holder PID\" (the process keeping the checkout's slot); what\n"
	    "finish needs stays in DIR/git/ID. finish narrows itself (Landlock: it writes\n"
	    "only DIR/git/ID, the checkout's slot and the repository's objects, refs and\n"
	    "logs), then imports the agent's work as data onto a corral/ branch; with\n"
	    "--wait-input it first waits, narrowed, for its standard input to end, and\n"
	    "imports only when it held the byte g (the caller's sign that the agent's\n"
	    "processes have ended and runfiles report has read the checkout).\n"
	    "discard removes an attempt set up and never run. The checkout's slot stays\n"
	    "taken until finish or discard, or the end of --caller (default: create's\n"
	    "parent).\n"
	    "\n"
	    "Exit status:\n"
	    "  0  done (and after --help or --version)\n"
	    "  1  refused (not a repository, no git), or the import failed: nothing\n"
	    "     is lost, the agent's checkout and repository stay in DIR/git/ID\n"
	    "  2  a usage error, or a system error\n");
}

/* A path for a line of create's output: no newline in it. */
static int
line(const char *k, const char *v)
{
	if (strchr(v, '\n'))
		return msg_fatal("%s: a path with a newline cannot be printed: %s", k, "refused"), -1;
	printf("%s %s\n", k, v);
	return 0;
}

static int
create(struct gsopts *o)
{
	static struct gitws g;
	char why[PATH_MAX + 256], cwd[PATH_MAX * 2 + 2];
	int holder, caller = o->caller > 0 ? o->caller : (int)getppid();

	if ((g.git = gitrun_find()) == NULL) {
		msg_fatal("git is not in /usr/bin, /bin or /usr/local/bin: the attempt repository of %s cannot be made", o->ws);
		msg_hint("install git");
		return EXIT_NO;
	}
	if (gitws_locate(&g, o->ws, why, sizeof why) < 0) {
		msg_fatal("git: %s", why);
		return EXIT_NO;
	}
	g.mode = o->inplace ? GIT_INPLACE : GIT_WORKTREE;
	g.from_head = o->from_head;
	g.deps = o->deps.v;
	g.ndeps = o->deps.n;
	snprintf(g.sub, sizeof g.sub, "%s", o->sub ? o->sub : "");
	if (gitws_undo_protect(&g, why, sizeof why) < 0)
		msg_warn("%s", why);
	if (gitws_setup(&g, o->state, o->attempt, why, sizeof why) < 0) {
		msg_fatal("git: %s", why);
		return EXIT_NO;
	}
	/* the agent starts where the run started, in its own checkout (made
	 * there when the checkout lacks it: an ignored directory) */
	snprintf(cwd, sizeof cwd, "%s%s%s", g.work, g.sub[0] ? "/" : "", g.sub);
	for (char *c = cwd + strlen(g.work) + 1; g.sub[0] && g.mode == GIT_WORKTREE; c++) {
		char k = *c;
		if (k != '/' && k != '\0')
			continue;
		*c = '\0';
		(void)mkdir(cwd, 0755);
		*c = k;
		if (k == '\0')
			break;
	}
	holder = g.lockfd > 0 ? gs_hold(&g, caller) : 0;
	if (holder < 0 || gs_state_save(&g, o->state, holder) < 0) {
		msg_fatal_sys("unable to keep the attempt's state in %s", g.dir);
		gitws_release(&g, 0);
		(void)rmtree_at(AT_FDCWD, g.dir);
		return EXIT_USAGE;
	}
	if (g.mode == GIT_WORKTREE)
		msg_info("git: worktree: the agent works in %s%s%s, a checkout of its own from %s (%s); your repository stays read-only to it",
		    g.work, g.sub[0] ? ", in " : "", g.sub, g.from_head ? "HEAD" :
		    strcmp(g.base, g.start) ? "your current state (its base: your changes and untracked files, never exported)" :
		    "your current state", g.start[0] ? g.start : "unborn");
	else
		msg_info("git: in-place: the agent works in %s over a private repository; your .git stays read-only to it",
		    cwd);
	for (size_t i = 0; i < g.deplinks.n; i++)
		msg_info("git: %s: your installed dependencies, linked read-only (what the agent installs in their place stays in its checkout, never imported)",
		    g.deplinks.v[i]);
	if (line("work", g.work) < 0 || line("cwd", cwd) < 0)
		return EXIT_USAGE;
	for (size_t i = 0; i < g.deplinks.n; i++)
		if (line("dep", g.deplinks.v[i]) < 0)
			return EXIT_USAGE;
	if (holder > 0)
		printf("holder %d\n", holder);
	return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
}

/* tests: a write the boundary must refuse, or allow (GIT_STAGE_TEST_WRITE) */
static void
test_write(void)
{
	const char *t = getenv("GIT_STAGE_TEST_WRITE");
	FILE *f;

	if (t == NULL || *t == '\0')
		return;
	if ((f = fopen(t, "wx")) != NULL) {
		fclose(f);
		msg_info("test: %s: written", t);
	} else {
		msg_info("test: %s: %s", t, strerror(errno));
	}
}

/* --wait-input: standard input read to its end; 1 when it held the go
 * byte 'g' (the caller's sign that the agent's processes have all ended
 * and the report has read the checkout), 0 when it ended without one: a
 * caller that died meanwhile (corral starts finish while the agent still
 * runs) closes it too, and then nothing may be read. By hand: printf g. */
static int
wait_input(void)
{
	char buf[512];
	ssize_t n;
	int go = 0;

	while ((n = read(0, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && memchr(buf, 'g', (size_t)n) != NULL)
			go = 1;
	return go;
}

/* finish (import 1) or discard (import 0) */
static int
finish(const struct gsopts *o, int import)
{
	static struct gitws g;
	char store[PATH_MAX], dir[PATH_MAX], why[PATH_MAX + 256];
	int holder, pidfd, r = 0;

	if ((size_t)snprintf(dir, sizeof dir, "%s/git/%s", o->state, o->attempt) >= sizeof dir)
		return msg_fatal("%s/git/%s: %s", o->state, o->attempt, strerror(ENAMETOOLONG)), EXIT_USAGE;
	if (!import && access(dir, F_OK) < 0 && errno == ENOENT)
		return 0;	/* nothing was set up */
	if (gs_state_load(&g, store, dir, &holder, why, sizeof why) < 0) {
		msg_fatal("git: %s", why);
		return EXIT_USAGE;
	}
	if ((g.git = gitrun_find()) == NULL) {
		msg_warn("git: the import failed: git is not in /usr/bin, /bin or /usr/local/bin");
		msg_hint("nothing is lost: the agent's checkout and repository stay in %s", g.dir);
		return EXIT_NO;
	}
	/* the holder, waited for at the end (its pid is ours to watch only) */
	pidfd = gs_pidfd(holder);
	/* --wait-input: its caller ends it by closing its input, so a signal
	 * meant for the caller's terminal or group (it is started while the
	 * agent runs) leaves it waiting, and then importing, as home-stage
	 * finish and runfiles watch do */
	if (o->wait_input) {
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
	}
	if (import) {
		/* the import in a child that narrows itself first; this process
		 * reads nothing the agent wrote, and removes the attempt's
		 * directory after (its parent is no grant of the child's) */
		pid_t pid = fork();
		int ws;
		if (pid < 0) {
			msg_warn_sys("git: the import failed: unable to fork");
			return EXIT_NO;
		}
		if (pid == 0) {
			if (pidfd >= 0)
				close(pidfd);
			if (gs_narrow(&g, store, why, sizeof why) < 0) {
				msg_warn("git: the import failed: unable to narrow itself before reading the agent's work: %s", why);
				msg_hint("nothing is lost: the agent's checkout and repository stay in %s", g.dir);
				_exit(EXIT_NO);
			}
			test_write();
			if (o->wait_input && !wait_input())
				_exit(4);
			r = gs_finish(&g, o->attempt);
			(void)fflush(NULL);
			_exit(r > 0 ? EXIT_NO : r < 0 ? 3 : 0);
		}
		while (waitpid(pid, &ws, 0) < 0)
			if (errno != EINTR) {
				ws = -1;
				break;
			}
		if (ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 4) {
			/* no go: nothing read, nothing moved or released (the
			 * holder ends with its caller) */
			msg_warn("git: the import was not started: its input ended without the go byte (its caller gone)");
			msg_hint("nothing is lost: the agent's checkout and repository stay in %s", g.dir);
			if (pidfd >= 0)
				close(pidfd);
			gitws_free(&g);
			return EXIT_NO;
		}
		r = ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 :
		    ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 3 ? -1 : 1;
		if (ws == -1 || !WIFEXITED(ws))
			msg_warn("git: the import ended by signal %d: nothing is lost: the agent's checkout and repository stay in %s",
			    WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, g.dir);
	} else {
		gitws_release(&g, 0);
	}
	/* released (again: the import may have ended before its release),
	 * the attempt's directory removed, then the holder waited for: it
	 * ends meanwhile */
	gs_released(&g);
	if (r == 0 && gitws_drop_attempt(o->state, o->attempt) < 0)
		msg_warn("git: unable to remove %s: %s", g.dir, strerror(errno));
	/* the checkout and the attempt's directory, removed by one detached
	 * child at nice 19 (the import's child moved the checkout there) */
	gitws_trash_reap(o->state, 1);
	gs_unhold(pidfd);
	gitws_free(&g);
	return r > 0 ? EXIT_NO : 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, 's' },
		{ "attempt", required_argument, NULL, 'a' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "from-head", no_argument, NULL, 'H' },
		{ "sub", required_argument, NULL, 'b' },
		{ "dep", required_argument, NULL, 'd' },
		{ "name", required_argument, NULL, 'n' },
		{ "caller", required_argument, NULL, 'c' },
		{ "wait-input", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct gsopts o;
	const char *cmd = NULL;
	int c;

	msg_init(argv[0]);
	memset(&o, 0, sizeof o);
	cmd = av_verb(&argc, &argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': o.state = optarg; break;
		case 'a': o.attempt = optarg; break;
		case 'i': o.inplace = 1; break;
		case 'H': o.from_head = 1; break;
		case 'b': o.sub = optarg; break;
		case 'd': av_push(&o.deps, optarg); break;
		case 'n': msg_init(optarg); break;
		case 'w': o.wait_input = 1; break;
		case 'c':
			if ((o.caller = atoi(optarg)) <= 0 || strspn(optarg, "0123456789") != strlen(optarg)) {
				msg_usage("--caller needs a process id: %s", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(1); return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		case 'V': printf("git-stage %s\n", CORRAL_VERSION); return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, NULL);
			return EXIT_USAGE;
		}
	}
	if (cmd == NULL || (strcmp(cmd, "create") && strcmp(cmd, "finish") && strcmp(cmd, "discard"))) {
		msg_usage("a command is needed: create, finish or discard");
		usage(2);
		return EXIT_USAGE;
	}
	if (!o.state || !o.attempt || o.state[0] != '/' || !o.attempt[0] || strchr(o.attempt, '/') ||
	    o.attempt[0] == '.') {
		msg_usage("%s needs --state (an absolute directory) and --attempt (an id)", cmd);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "create") == 0) {
		if (optind != argc - 1 || argv[optind][0] != '/') {
			msg_usage("create needs one operand: the repository's top, an absolute path");
			return EXIT_USAGE;
		}
		o.ws = argv[optind];
		return create(&o);
	}
	if (optind != argc) {
		msg_usage("%s takes no operand: %s", cmd, argv[optind]);
		return EXIT_USAGE;
	}
	return finish(&o, strcmp(cmd, "finish") == 0);
}
