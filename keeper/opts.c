/* keeper's command line (keeper.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "keeper.h"
#include "msg.h"
#include "num.h"
#include "version.h"

static const char usage[] =
    "keeper [--memory SIZE] [--processes N] [--cpu-seconds N] [--wall-seconds S]\n"
    "              [--open-files N] [--file-size SIZE] [--cgroup DIR] [--pty]\n"
    "              [--allow-osc N] [--chdir DIR] [--pid-fd FD] [--gate FD]\n"
    "              [--] PROG [ARG...]";

static const char help[] =
    "\n\nRun PROG as the attempt's first process and end every process of the\n"
    "attempt when it ends: a cgroup of its own where one can be made (or the\n"
    "one given), limits, a terminal of its own, a child subreaper's sweep.\n"
    "\n"
    "  --memory SIZE         the attempt's memory (512M, 2G; K M G T)\n"
    "  --processes N         the attempt's processes\n"
    "  --cpu-seconds N       RLIMIT_CPU of each process\n"
    "  --wall-seconds S      end the attempt after S seconds (1, 0.5), status 124\n"
    "  --open-files N        RLIMIT_NOFILE of each process\n"
    "  --file-size SIZE      RLIMIT_FSIZE of each process\n"
    "  --cgroup DIR          the attempt's cgroup v2 (given: emptied, not removed)\n"
    "  --pty                 when keeper's input or output is a terminal, PROG gets\n"
    "                        a pty of its own, relayed (confine --ctty grants it)\n"
    "  --allow-osc N         let OSC N through the relay too (repeatable)\n"
    "  --chdir DIR           PROG starts in DIR (no symbolic link on the way)\n"
    "  --pid-fd FD           write PROG's pid to descriptor FD, then close it\n"
    "  --gate FD             keeper reads the go byte from FD (a pipe's read end)\n"
    "                        and passes it on to PROG's FD, a pipe of its own\n"
    "                        (confine --gate FD); the wall clock starts then\n"
    "                        ('r' before it is passed on, nothing started)\n"
    "  -h, --help            this help\n"
    "      --version         print the version\n"
    "\n"
    "Memory and processes go to the attempt's cgroup where its controllers can\n"
    "be had, else RLIMIT_AS and RLIMIT_NPROC; a limit that cannot be enforced\n"
    "here (processes, as root, without a pids cgroup) is a refusal.\n"
    "Exit: PROG's status; 128+N PROG killed by signal N; 124 the wall clock\n"
    "ended it; 125 keeper failed or refused; 126 PROG not executable; 127 PROG\n"
    "not found.\n";

enum { O_MEM = 256, O_PROCS, O_CPU, O_WALL, O_NOFILE, O_FSIZE, O_CGROUP, O_PTY, O_OSC,
	O_CHDIR, O_PIDFD, O_GATE, O_VERSION };

static const struct option longopts[] = {
	{ "memory", required_argument, NULL, O_MEM },
	{ "processes", required_argument, NULL, O_PROCS },
	{ "cpu-seconds", required_argument, NULL, O_CPU },
	{ "wall-seconds", required_argument, NULL, O_WALL },
	{ "open-files", required_argument, NULL, O_NOFILE },
	{ "file-size", required_argument, NULL, O_FSIZE },
	{ "cgroup", required_argument, NULL, O_CGROUP },
	{ "pty", no_argument, NULL, O_PTY },
	{ "allow-osc", required_argument, NULL, O_OSC },
	{ "chdir", required_argument, NULL, O_CHDIR },
	{ "pid-fd", required_argument, NULL, O_PIDFD },
	{ "gate", required_argument, NULL, O_GATE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* option c's limit, in enum lim order */
static const enum lim lim_of[] = {
	[O_MEM - O_MEM] = LIM_MEMORY, [O_PROCS - O_MEM] = LIM_PROCS, [O_CPU - O_MEM] = LIM_CPU,
	[O_WALL - O_MEM] = LIM_WALL, [O_NOFILE - O_MEM] = LIM_NOFILE, [O_FSIZE - O_MEM] = LIM_FSIZE,
};

int
keeper_wall_parse(const char *s, uint64_t *ms)
{
	char whole[24], frac[4] = "000";
	const char *dot = strchr(s, '.');
	size_t wn = dot ? (size_t)(dot - s) : strlen(s), fn = dot ? strlen(dot + 1) : 0;
	uint64_t w, f;

	if (wn == 0 || wn >= sizeof whole || (dot && (fn == 0 || fn > 3)))
		return errno = EINVAL, -1;
	memcpy(whole, s, wn);
	whole[wn] = '\0';
	if (dot)
		memcpy(frac, dot + 1, fn);
	/* at most a year: the timer is a poll timeout in ms */
	if (num_parse_u64(whole, 0, 366ULL * 86400, &w) < 0 || num_parse_u64(frac, 0, 999, &f) < 0)
		return -1;
	if (dot && strspn(dot + 1, "0123456789") != fn)
		return errno = EINVAL, -1;
	*ms = w * 1000 + f;
	return *ms == 0 ? (errno = ERANGE, -1) : 0;
}

static int
bad(int *status, const char *opt, const char *arg, const char *what)
{
	msg_fatal("%s %s: %s", opt, arg, what);
	*status = EXIT_CHAIN_FAIL;
	return -1;
}

int
keeper_opts_parse(int argc, char **argv, struct keeper_opts *o, int *status)
{
	int c, fd;

	memset(o, 0, sizeof *o);
	o->pid_fd = o->gate = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_WALL:
			if (keeper_wall_parse(optarg, &o->wall_ms) < 0)
				return bad(status, "--wall-seconds", optarg,
				    "not a number of seconds from 0.001 to a year (at most three decimals)");
			break;
		case O_MEM: case O_PROCS: case O_CPU: case O_NOFILE: case O_FSIZE:
			if (limits_set(&o->lim, lim_of[c - O_MEM], optarg) < 0) {
				char opt[32];
				snprintf(opt, sizeof opt, "--%s", longopts[c - O_MEM].name);
				return bad(status, opt, optarg, c == O_MEM || c == O_FSIZE ?
				    "not a positive size (512M, 2G: K, M, G, T)" : c == O_PROCS ?
				    "not a number from 1 to 4194304" : "not a positive integer");
			}
			break;
		case O_CGROUP:
			if (optarg[0] != '/')
				return bad(status, "--cgroup", optarg, "not an absolute path");
			o->cgroup = optarg;
			break;
		case O_PTY:
			o->pty = 1;
			break;
		case O_OSC:
			if (o->nallow_osc >= ESCF_MAX_ALLOW)
				return bad(status, "--allow-osc", optarg, "too many (at most 16)");
			if (num_parse_int(optarg, 0, 65535, &o->allow_osc[o->nallow_osc]) < 0)
				return bad(status, "--allow-osc", optarg, "not a number from 0 to 65535");
			o->nallow_osc++;
			break;
		case O_CHDIR:
			if (optarg[0] != '/')
				return bad(status, "--chdir", optarg, "not an absolute path");
			o->dir = optarg;
			break;
		case O_PIDFD:
			if (num_parse_fd(optarg, &fd) < 0 || fd < 3)
				return bad(status, "--pid-fd", optarg, "not a descriptor number above 2");
			o->pid_fd = fd;
			break;
		case O_GATE:
			if (num_parse_fd(optarg, &fd) < 0 || fd < 3)
				return bad(status, "--gate", optarg, "not a descriptor number above 2");
			o->gate = fd;
			break;
		case 'h':
			printf("usage: %s%s", usage, help);
			*status = msg_stdout_done() == 0 ? 0 : EXIT_CHAIN_FAIL;
			return 1;
		case O_VERSION:
			printf("keeper %s\n", CORRAL_VERSION);
			*status = msg_stdout_done() == 0 ? 0 : EXIT_CHAIN_FAIL;
			return 1;
		default:
			msg_badopt(c, argc, argv, NULL);
			*status = EXIT_CHAIN_FAIL;
			return -1;
		}
	}
	if (optind >= argc) {
		msg_usage("%s", usage);
		*status = EXIT_CHAIN_FAIL;
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}
