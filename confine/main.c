/* confine: apply the Landlock boundary (and what Landlock leaves to
 * userspace), then exec the rest of the command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execenv.h"
#include "fdio.h"
#include "msg.h"
#include "num.h"
#include "path.h"
#include "rules.h"
#include "sandbox.h"
#include "version.h"

static const char usage_text[] =
"usage: confine [-r PATH] [-x PATH] [-w PATH] [-W PATH] [-o] [-f FILE] [--dev]\n"
"               [--tty PATH | --ctty] [--own-pty] [--own-unix] [--own-shm]\n"
"               [--connect PORT] [--bind PORT] [--no-network] [--no-scope]\n"
"               [--filter-ip] [--loopback PORT] [--deny-private] [--no-remote]\n"
"               [--listeners FD] [--loopback-from FILE]\n"
"               [--unix PATH] [--unix-bind PATH] [--keep-fd N] [--refusals FD]\n"
"               [--mount[-ro] SRC:DST] [--userns] [--no-symlinks] [--gate FD]\n"
"               [--on-go] [--chdir DIR]\n"
"               [--] PROG [ARG...]\n"
"       confine -h | --help | --version\n"
"\n"
"  -r, --read PATH       read files, list directories\n"
"  -x, --exec PATH       read and execute\n"
"  -w, --write PATH      read and write (create, remove, rename, truncate, link)\n"
"  -W, --all PATH        every file right\n"
"  -o, --optional        the next path rule may name a missing path\n"
"  -f, --file FILE       read rules from FILE, one per line (see confine(1))\n"
"      --dev             /dev/null, zero, full, random, urandom, tty, ptmx\n"
"      --tty PATH        this one terminal (and /dev/tty), no other pts\n"
"      --ctty            the same for the controlling terminal, a pts (keeper\n"
"                        --pty's), if there is one\n"
"      --own-pty         the slave of a pty it opened (through the broker)\n"
"      --own-unix        connect() to a pathname socket it bound (the broker)\n"
"      --own-shm         the objects of /dev/shm it created (the broker)\n"
"      --connect PORT    TCP connect only to these ports (repeatable)\n"
"      --bind PORT       TCP bind only to these ports (repeatable)\n"
"      --no-network      no TCP, no socket family but AF_UNIX\n"
"      --no-scope        let signals and abstract sockets leave the boundary\n"
"      --filter-ip       IP destinations decided outside: no metadata, no\n"
"                        link-local, loopback only to the program's own ports\n"
"      --loopback PORT   an outside loopback service it may reach (repeatable)\n"
"      --deny-private    no RFC 1918, CGNAT or ULA destination either\n"
"      --no-remote       no destination but loopback (with --loopback: a proxy)\n"
"      --listeners FD    append a record to FD of each address it binds or\n"
"                        listens on (the program never holds FD)\n"
"      --loopback-from FILE  loopback addresses recorded in FILE (another\n"
"                        confine's --listeners) count as its own\n"
"      --unix PATH       allow connect() to this pathname unix socket\n"
"      --unix-bind PATH  a bind() to exactly PATH is made by the broker, in the\n"
"                        directory as it was at the start (implies --own-unix)\n"
"      --keep-fd N       keep inherited descriptor N open\n"
"      --refusals FD     write a line to FD for each refusal of the broker\n"
"                        (the program never holds FD)\n"
"      --mount SRC:DST   bind SRC over DST in a private mount namespace\n"
"      --mount-ro SRC:DST  the same, read-only\n"
"      --userns          allow new user namespaces (refused by default)\n"
"      --no-symlinks     each path rule is a real path, opened without following\n"
"                        a link: one on its path now refuses (a race)\n"
"      --gate FD         everything set up, run PROG only after reading the go\n"
"                        byte 'g' from FD, the read end of a pipe; on EOF or\n"
"                        any other byte exit 125 and run nothing; a byte 'r'\n"
"                        before it: what waits for 'g' is done on 'r'\n"
"      --on-go           the next path rule is opened only once the go byte\n"
"                        came (--gate), or 'r': its path may be made meanwhile\n"
"      --chdir DIR       PROG starts in DIR (no symbolic link on the way),\n"
"                        entered once the boundary is in force (after --gate's\n"
"                        'g', or 'r')\n"
"  -h, --help            this text\n"
"      --version         print the version\n"
"\n"
"Exit status: 125 confine failed or refused, 126 PROG not executable,\n"
"127 PROG not found, otherwise PROG's.\n";

enum { O_DEV = 256, O_TTY, O_CTTY, O_CONNECT, O_BIND, O_NONET, O_NOSCOPE, O_UNIX, O_UNIXBIND, O_KEEPFD, O_VERSION,
	O_FILTERIP, O_LOOPBACK, O_DENYPRIV, O_NOREMOTE, O_USERNS, O_MOUNT, O_MOUNTRO, O_REFUSALS,
	O_OWNPTY, O_OWNUNIX, O_OWNSHM, O_NOLINKS, O_LISTENERS, O_LOOPFROM, O_GATE, O_ONGO, O_CHDIR };

static int
load_file(struct sb_policy *p, const char *path)
{
	char *buf, *store;
	size_t len, line;
	const char *why;

	if (file_read_bounded(AT_FDCWD, path, RULES_MAX_FILE, &buf, &len) != 0) {
		msg_fatal_sys("unable to read %s", path);
		return -1;
	}
	if (rules_parse(buf, len, p, &store, &line, &why) != 0) {
		msg_fatal("%s:%zu: %s", path, line, why);
		free(buf);
		free(store);
		return -1;
	}
	free(buf);
	return 0;	/* store stays: the policy points into it until exec */
}

/* --gate FD: the read end of a pipe, none of the other descriptors; kept
 * through sb_apply's closing (as a keep-fd), close-on-exec, and closed
 * before the exec: the program never holds it. Missing, not a pipe, or
 * open for writing too: refused (a descriptor that never says EOF, or a
 * file anyone could have written the go byte into ahead, is no gate). */
static int
gate_check(struct sb_policy *p, int fd)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) < 0 || (fl = fcntl(fd, F_GETFL)) < 0) {
		msg_fatal("--gate %d: not an open descriptor", fd);
		msg_hint("give the read end of a pipe whose write end the caller keeps, e.g. printf g | confine --gate 3 ... 3<&0");
		return -1;
	}
	if (!S_ISFIFO(st.st_mode) || (fl & O_ACCMODE) != O_RDONLY) {
		msg_fatal("--gate %d: not the read end of a pipe", fd);
		msg_hint("give the read end of a pipe whose write end the caller keeps, e.g. printf g | confine --gate 3 ... 3<&0");
		return -1;
	}
	for (size_t k = 0; k < p->nkeep; k++)
		if (p->keep_fd[k] == fd) {
			msg_usage("--gate %d: that descriptor is kept for the program (--keep-fd)", fd);
			return -1;
		}
	if (fd == p->refusals_fd || fd == p->listeners_fd) {
		msg_usage("--gate %d: that descriptor is the broker's (--refusals, --listeners)", fd);
		return -1;
	}
	if (p->nkeep >= SB_MAX_KEEPFD) {
		msg_usage("--gate %d: too many descriptors kept", fd);
		return -1;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		msg_fatal_sys("--gate %d", fd);
		return -1;
	}
	p->keep_fd[p->nkeep++] = fd;
	return 0;
}

/* One byte: 'g' goes on; 'r' (ready, first only: ready_ok) says the
 * paths the rules and --chdir name exist now; EOF (the holder closed it:
 * it says why) ends quietly, anything else with a line. The byte, or -1. */
static int
gate_read(int fd, int ready_ok)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n == 1 && (c == 'g' || (c == 'r' && ready_ok)))
		return c;
	if (n < 0)
		msg_fatal_sys("--gate %d: unable to read the go byte", fd);
	else if (n == 1)
		msg_fatal("--gate %d: not the go byte: the program was not run", fd);
	return -1;
}

/* What waits for the paths made meanwhile: the --on-go rules (and with
 * them Landlock), then where PROG starts, entered with no capability, as
 * the program itself could (Landlock has no right for entering a
 * directory). 0, or -1 said. */
static int
finish(const struct sb_policy *pol, struct sb_held *held, int nongo, const char *dir)
{
	struct sb_error e;

	if (nongo > 0 && sb_apply_end(pol, held, &e) != 0) {
		msg_fatal("%s", e.msg);
		if (e.hint[0])
			msg_hint("%s", e.hint);
		return -1;
	}
	if (dir && path_enter(dir) < 0) {
		msg_fatal_sys("unable to enter %s", dir);
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[], char *envp[])
{
	static const struct option lo[] = {
		{ "read", required_argument, NULL, 'r' },
		{ "exec", required_argument, NULL, 'x' },
		{ "write", required_argument, NULL, 'w' },
		{ "all", required_argument, NULL, 'W' },
		{ "optional", no_argument, NULL, 'o' },
		{ "file", required_argument, NULL, 'f' },
		{ "dev", no_argument, NULL, O_DEV },
		{ "tty", required_argument, NULL, O_TTY },
		{ "ctty", no_argument, NULL, O_CTTY },
		{ "own-pty", no_argument, NULL, O_OWNPTY },
		{ "own-unix", no_argument, NULL, O_OWNUNIX },
		{ "own-shm", no_argument, NULL, O_OWNSHM },
		{ "connect", required_argument, NULL, O_CONNECT },
		{ "bind", required_argument, NULL, O_BIND },
		{ "no-network", no_argument, NULL, O_NONET },
		{ "no-scope", no_argument, NULL, O_NOSCOPE },
		{ "unix", required_argument, NULL, O_UNIX },
		{ "unix-bind", required_argument, NULL, O_UNIXBIND },
		{ "keep-fd", required_argument, NULL, O_KEEPFD },
		{ "refusals", required_argument, NULL, O_REFUSALS },
		{ "listeners", required_argument, NULL, O_LISTENERS },
		{ "loopback-from", required_argument, NULL, O_LOOPFROM },
		{ "filter-ip", no_argument, NULL, O_FILTERIP },
		{ "loopback", required_argument, NULL, O_LOOPBACK },
		{ "deny-private", no_argument, NULL, O_DENYPRIV },
		{ "no-remote", no_argument, NULL, O_NOREMOTE },
		{ "userns", no_argument, NULL, O_USERNS },
		{ "no-symlinks", no_argument, NULL, O_NOLINKS },
		{ "mount", required_argument, NULL, O_MOUNT },
		{ "mount-ro", required_argument, NULL, O_MOUNTRO },
		{ "gate", required_argument, NULL, O_GATE },
		{ "on-go", no_argument, NULL, O_ONGO },
		{ "chdir", required_argument, NULL, O_CHDIR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	static struct sb_policy pol;
	struct sb_error e;
	struct sb_held held;
	const char *why, *word = NULL, *arg, *dir = NULL;
	int c, optional = 0, ongo = 0, nongo = 0, gate = -1;
	size_t npath;

	msg_init(argv[0]);
	sb_policy_defaults(&pol);	/* static, zero: its only use */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:r:x:w:W:of:h", lo, NULL)) != -1) {
		arg = NULL;
		switch (c) {
		case 'r': word = "r"; arg = optarg; break;
		case 'x': word = "x"; arg = optarg; break;
		case 'w': word = "w"; arg = optarg; break;
		case 'W': word = "W"; arg = optarg; break;
		case 'o': optional = 1; continue;
		case O_ONGO: ongo = 1; continue;
		case 'f':
			if (optional || ongo) {
				msg_usage("%s applies to -r, -x, -w, -W only", optional ? "-o" : "--on-go");
				return EXIT_CHAIN_FAIL;
			}
			if (load_file(&pol, optarg) != 0)
				return EXIT_CHAIN_FAIL;
			continue;
		case O_DEV: word = "dev"; break;
		case O_TTY: word = "tty"; arg = optarg; break;
		case O_CTTY: word = "ctty"; break;
		case O_OWNPTY: word = "own-pty"; break;
		case O_OWNUNIX: word = "own-unix"; break;
		case O_OWNSHM: word = "own-shm"; break;
		case O_CONNECT: word = "connect"; arg = optarg; break;
		case O_BIND: word = "bind"; arg = optarg; break;
		case O_NONET: word = "no-network"; break;
		case O_NOSCOPE: word = "no-scope"; break;
		case O_UNIX: word = "unix"; arg = optarg; break;
		case O_UNIXBIND: word = "unix-bind"; arg = optarg; break;
		case O_KEEPFD: word = "keep-fd"; arg = optarg; break;
		case O_REFUSALS: word = "refusals"; arg = optarg; break;
		case O_LISTENERS: word = "listeners"; arg = optarg; break;
		case O_LOOPFROM: word = "loopback-from"; arg = optarg; break;
		case O_FILTERIP: word = "filter-ip"; break;
		case O_LOOPBACK: word = "loopback"; arg = optarg; break;
		case O_DENYPRIV: word = "deny-private"; break;
		case O_NOREMOTE: word = "no-remote"; break;
		case O_USERNS: word = "userns"; break;
		case O_NOLINKS: word = "no-symlinks"; break;
		case O_MOUNT: word = "mount"; arg = optarg; break;
		case O_MOUNTRO: word = "mount-ro"; arg = optarg; break;
		case O_CHDIR:
			if (optarg[0] != '/') {
				msg_usage("--chdir %s: not an absolute path", optarg);
				return EXIT_CHAIN_FAIL;
			}
			dir = optarg;
			continue;
		case O_GATE:
			if (num_parse_fd(optarg, &gate) != 0 || gate < 3) {
				msg_usage("--gate %s: descriptor must be a number from 3 to 1048576", optarg);
				return EXIT_CHAIN_FAIL;
			}
			continue;
		case 'h':
			fputs(usage_text, stdout);
			return msg_stdout_done() == 0 ? 0 : EXIT_CHAIN_FAIL;
		case O_VERSION:
			printf("confine %s\n", CORRAL_VERSION);
			return msg_stdout_done() == 0 ? 0 : EXIT_CHAIN_FAIL;
		default:
			msg_badopt(c, argc, argv, NULL);
			return EXIT_CHAIN_FAIL;
		}
		npath = pol.npath;
		if (rules_word(&pol, word, arg, optional, &why) != 0) {
			msg_usage("%s%s%s: %s", word, arg ? " " : "", arg ? arg : "", why);
			return EXIT_CHAIN_FAIL;
		}
		if (ongo && pol.npath == npath) {
			msg_usage("--on-go applies to -r, -x, -w, -W only");
			return EXIT_CHAIN_FAIL;
		}
		if (ongo) {
			pol.path[npath].flags |= SB_ONGO;
			nongo++;
		}
		optional = ongo = 0;
	}
	if (optional || ongo) {
		msg_usage("%s must precede a path rule", optional ? "-o" : "--on-go");
		return EXIT_CHAIN_FAIL;
	}
	if (nongo > 0 && gate < 0) {
		msg_usage("--on-go needs --gate: a rule is opened once the go byte came");
		return EXIT_CHAIN_FAIL;
	}
	if (optind >= argc) {
		msg_usage("missing PROG");
		msg_hint("confine --help");
		return EXIT_CHAIN_FAIL;
	}
	if (pol.refusals_fd >= 0 && fcntl(pol.refusals_fd, F_GETFD) < 0) {
		msg_fatal("--refusals %d: not an open descriptor", pol.refusals_fd);
		msg_hint("open it for writing in the caller, e.g. a pipe whose read end the caller keeps");
		return EXIT_CHAIN_FAIL;
	}
	if (pol.listeners_fd >= 0 && fcntl(pol.listeners_fd, F_GETFD) < 0) {
		msg_fatal("--listeners %d: not an open descriptor", pol.listeners_fd);
		msg_hint("open a file for appending in the caller (corral run makes ATTEMPT/listeners)");
		return EXIT_CHAIN_FAIL;
	}
	if (gate >= 0 && gate_check(&pol, gate) < 0)
		return EXIT_CHAIN_FAIL;
	/* Set up to the last step: PROG runs only on the go byte. Inside the
	 * boundary, unless a rule is to be opened after it (--on-go): then
	 * everything else is ready (the ruleset, the broker, descriptors and
	 * the bounding set), and the paths made meanwhile are opened, the
	 * capabilities dropped and the process restricted after it. */
	if (sb_apply_begin(&pol, &held, &e) != 0 ||
	    (nongo == 0 && sb_apply_end(&pol, &held, &e) != 0)) {
		msg_fatal("%s", e.msg);
		if (e.hint[0])
			msg_hint("%s", e.hint);
		_exit(EXIT_CHAIN_FAIL);
	}
	/* The gate: with 'r' first, what waits for the paths is done on it
	 * (corral writes it once create has made them, while the proof
	 * runs), and after 'g' only the exec is left; with 'g' alone, after
	 * it. Either way the paths and the directory are opened as late as
	 * the caller says they may be, and PROG runs only after 'g'. */
	if (gate >= 0) {
		c = gate_read(gate, 1);
		if (c == 'r') {
			if (finish(&pol, &held, nongo, dir) < 0)
				_exit(EXIT_CHAIN_FAIL);
			nongo = 0;
			dir = NULL;
			c = gate_read(gate, 0);
		}
		close(gate);
		if (c < 0)
			_exit(EXIT_CHAIN_FAIL);
	}
	if (finish(&pol, &held, nongo, dir) < 0)
		_exit(EXIT_CHAIN_FAIL);
	/* The environment passes through unchanged (env-filter built it). */
	exec_env(argv + optind, envp);
	c = errno;
	msg_fatal("unable to run %s: %s", argv[optind], strerror(c));
	/* Inside the boundary now: leave without exit-time hooks (the
	 * sanitizers' leak check would need /proc, which may be ungranted). */
	_exit(exec_status(c));
}
