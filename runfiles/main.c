/* runfiles: the files that run code on the user's machine, before and after
 * a run, read by a walker that can read only the tree (rf.h). */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "argv.h"
#include "clock.h"
#include "fdio.h"
#include "msg.h"
#include "rf.h"
#include "status.h"
#include "version.h"

static const char usage_text[] =
"usage: runfiles snapshot [--git-config FILE]... DIR > STATE\n"
"       runfiles report DIR < STATE\n"
"       runfiles watch [--git-config FILE]... DIR\n"
"       runfiles -h | --help | --version\n"
"\n"
"Looks in DIR (a workspace an agent writes) for the files that run code on\n"
"this machine by being there: editor tasks, .envrc, agents' hooks and MCP\n"
"servers, git hooks and drivers. snapshot writes what it saw to standard\n"
"output; report, given that on standard input, prints one line for each such\n"
"file created or changed since (\"created REL: WHAT\", \"changed REL: WHAT\"),\n"
"then \"partial\" when a bound was reached. watch does both in one process:\n"
"it takes the snapshot, keeps it in memory and prints \"taken\", then reads\n"
"its standard input to its end and, only when it began with the byte g (the\n"
"caller's sign that the run has ended), reports as report does; without it\n"
"it reads nothing more of DIR. Before reading DIR it narrows\n"
"itself: read-only of DIR and of the --git-config files (which may name\n"
"core.hooksPath), nothing to write, no exec, no network.\n"
"\n"
"Exit status:\n"
"  0  snapshot: taken; report, watch: no such file was created or changed\n"
"  1  report, watch: some were (one line each on standard output)\n"
"  2  a usage error, or a system error: DIR or the state unreadable, a\n"
"     malformed state, or it could not narrow itself; watch: its input\n"
"     ended without the go byte\n";

static int
narrow_or_die(const char *dir, char *const *ro, size_t n)
{
	char why[PATH_MAX + 256];

	if (rf_narrow(dir, ro, n, why, sizeof why) < 0) {
		msg_fatal("unable to narrow itself to reading %s: %s", dir, why);
		return -1;
	}
	return 0;
}

/* narrowed, the snapshot of dir into st: 0, or the exit status said */
static int
take(const char *dir, struct argv *cfg, struct rf_state *st)
{
	struct timespec t0;

	clock_once(CLOCK_REALTIME, &t0);	/* the one time asked: no vDSO */
	memset(st, 0, sizeof *st);
	if (narrow_or_die(dir, cfg->v, cfg->n) < 0)
		return EXIT_USAGE;
	rf_hooks(dir, cfg->v, cfg->n, st->hooks, sizeof st->hooks);
	if (rf_walk(dir, NULL, (int64_t)t0.tv_sec, t0.tv_nsec, st) < 0) {
		msg_fatal_sys("unable to look for files that run code in %s", dir);
		return rf_state_free(st), EXIT_USAGE;
	}
	return 0;
}

static int
snapshot(const char *dir, struct argv *cfg)
{
	struct rf_state st;
	char *out;
	size_t len;
	int r;

	if ((r = take(dir, cfg, &st)) != 0)
		return r;
	if (rf_state_format(&st, &out, &len) < 0) {
		msg_fatal_sys("unable to write the snapshot of %s", dir);
		return rf_state_free(&st), EXIT_USAGE;
	}
	if (fd_write_all(1, out, len) < 0) {
		msg_fatal_sys("unable to write the snapshot of %s to standard output", dir);
		return free(out), rf_state_free(&st), EXIT_USAGE;
	}
	free(out);
	rf_state_free(&st);
	return 0;
}

/* The walk after the run against old, what changed printed: the exit
 * status (0 none, 1 some, 2 said). Its caller ends then: old, the walk's
 * state and the lines go with the process (their frees were two or three
 * munmap(2) on the way to corral's end), held by statics here and in the
 * callers (old), where the leak checker of the sanitizer build sees them. */
static int
compare(const char *dir, struct rf_state *old)
{
	static struct rf_state now;
	static struct argv lines;
	int k;

	memset(&now, 0, sizeof now);
	memcpy(now.hooks, old->hooks, sizeof now.hooks);
	if (rf_walk(dir, old, 0, 0, &now) < 0) {
		msg_fatal_sys("unable to look for files that run code in %s", dir);
		k = -1;
	} else if ((k = rf_compare(old, &now, &lines)) < 0) {
		msg_fatal_sys("unable to compare");
	}
	if (k < 0) {
		av_free(&lines);
		rf_state_free(old);
		rf_state_free(&now);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < lines.n; i++)
		printf("%s\n", lines.v[i]);
	if (old->truncated || now.truncated)
		printf("partial\n");
	if (fflush(stdout) != 0 || ferror(stdout))
		return msg_fatal_sys("unable to write to standard output"), EXIT_USAGE;
	return k > 0 ? 1 : 0;
}

static int
report(const char *dir)
{
	static struct rf_state old;	/* compare's, till the end */
	char why[256], *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	if (narrow_or_die(dir, NULL, 0) < 0)
		return EXIT_USAGE;
	for (;;) {
		if (len == cap) {
			char *nb;
			if (cap >= RF_STATE_MAX) {
				msg_fatal("the state on standard input is over %d bytes", RF_STATE_MAX);
				return free(buf), EXIT_USAGE;
			}
			if ((nb = realloc(buf, cap = cap ? cap * 2 : 65536)) == NULL)
				return msg_fatal_sys("unable to read the state"), free(buf), EXIT_USAGE;
			buf = nb;
		}
		if ((n = read(0, buf + len, cap - len)) < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return msg_fatal_sys("unable to read the state from standard input"), free(buf), EXIT_USAGE;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (rf_state_parse(buf, len, &old, why, sizeof why) < 0) {
		msg_fatal("the state on standard input is not a snapshot of runfiles: %s", why);
		msg_hint("give it what runfiles snapshot %s wrote", dir);
		return free(buf), EXIT_USAGE;
	}
	free(buf);
	return compare(dir, &old);
}

/* snapshot and report in one process (corral run's): the snapshot kept
 * here, not written and read back; "taken" once it is, then the report
 * only after the go byte g on its input. Its caller gone (the input ended
 * without it): nothing more read. */
static int
watch(const char *dir, struct argv *cfg)
{
	static const int quiet[] = { SIGINT, SIGQUIT, SIGHUP };
	static struct rf_state st;	/* compare's, till the end */
	char buf[64], first = 0;
	size_t got = 0;
	ssize_t n;
	int r;

	if ((r = take(dir, cfg, &st)) != 0)
		return r;
	if (fd_write_all(1, "taken\n", 6) < 0) {
		rf_state_free(&st);
		return msg_fatal_sys("unable to write to standard output"), EXIT_USAGE;
	}
	/* its caller ends it by closing its input: a signal meant for the
	 * caller's terminal or group leaves it waiting */
	for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
		signal(quiet[i], SIG_IGN);
	while ((n = read(0, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && got++ == 0)
			first = buf[0];
	/* still ignored: it reads, prints and ends, starting nothing */
	if (first != 'g') {
		rf_state_free(&st);
		msg_fatal("no report: its input ended without the go byte (its caller gone)");
		return EXIT_USAGE;
	}
	return compare(dir, &st);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "git-config", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct argv cfg = { 0 };
	const char *cmd = NULL;
	int c, r;

	msg_init(argv[0]);
	cmd = av_verb(&argc, &argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'g': av_push(&cfg, optarg); break;
		case 'h': fputs(usage_text, stdout); return av_free(&cfg), msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		case 'V': printf("runfiles %s\n", CORRAL_VERSION); return av_free(&cfg), msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, NULL);
			return av_free(&cfg), EXIT_USAGE;
		}
	}
	if (cmd == NULL || (strcmp(cmd, "snapshot") != 0 && strcmp(cmd, "report") != 0 && strcmp(cmd, "watch") != 0)) {
		msg_usage("a command is required: snapshot, report or watch");
		msg_hint("runfiles --help");
		return av_free(&cfg), EXIT_USAGE;
	}
	if (optind + 1 != argc || argv[optind][0] != '/' || (strcmp(cmd, "report") == 0 && cfg.n)) {
		msg_usage(strcmp(cmd, "report") == 0 ? "report DIR < STATE (DIR absolute)" :
		    strcmp(cmd, "watch") == 0 ? "watch [--git-config FILE]... DIR (DIR absolute)" :
		    "snapshot [--git-config FILE]... DIR (DIR absolute)");
		msg_hint("runfiles --help");
		return av_free(&cfg), EXIT_USAGE;
	}
	if (cfg.err)
		return av_free(&cfg), msg_fatal("out of memory"), EXIT_USAGE;
	r = strcmp(cmd, "snapshot") == 0 ? snapshot(argv[optind], &cfg) :
	    strcmp(cmd, "watch") == 0 ? watch(argv[optind], &cfg) : report(argv[optind]);
	av_free(&cfg);
	return r;
}
