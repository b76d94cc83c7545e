/* home-stage: a fresh synthetic $HOME per attempt; afterwards a validated
 * take-back of the renewed sign-in, then removal. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdio.h"
#include "argv.h"
#include "hs.h"
#include "msg.h"
#include "num.h"
#include "store.h"
#include "version.h"

static void
usage(int fd)
{
	fprintf(fd == 1 ? stdout : stderr,
	    "usage: home-stage create --state DIR --attempt ID --agent NAME [--signin NAME]\n"
	    "                         [--full-setup] [--workspace DIR] [--profiles FILE]\n"
	    "                         [--session-store PATH] [--wait-record SECONDS | --begin [--pid N]]\n"
	    "                         [--trees DIR] [--nonce HEX] [--finish [--test-cacert FILE]]\n"
	    "       home-stage finish [--state DIR] [--profiles FILE] [--session-store PATH]\n"
	    "                         [--test-cacert FILE] [--wait-input] [--end ID --status N\n"
	    "                         [--platform P --tier T]] TREE\n"
	    "       home-stage -h | --help | --version\n"
	    "create prints the attempt directory (with --full-setup, then the folders\n"
	    "to grant read-write); finish prints the names it took back. With\n"
	    "--wait-input finish first reads its standard input to its end, and takes\n"
	    "back, removes and records only when it began with the byte g (--status -:\n"
	    "then the status, as in printf g0). create --finish prints an empty line\n"
	    "after its output and then does what finish --wait-input --end ID --status -\n"
	    "does with its tree (its input: the go byte, the status, and optionally\n"
	    "the platform and the tier, as in printf 'g0 linux full').\n"
	    "Exit: 0 done, 1 refused, 2 usage or system error.\n");
}

int
main(int argc, char **argv, char **envp)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, 's' },
		{ "attempt", required_argument, NULL, 'a' },
		{ "agent", required_argument, NULL, 'g' },
		{ "signin", required_argument, NULL, 'i' },
		{ "full-setup", no_argument, NULL, 'F' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "profiles", required_argument, NULL, 'p' },
		{ "session-store", required_argument, NULL, 'S' },
		{ "test-cacert", required_argument, NULL, 'C' },
		{ "wait-record", required_argument, NULL, 'W' },
		{ "trees", required_argument, NULL, 'T' },
		{ "nonce", required_argument, NULL, 'N' },
		{ "begin", no_argument, NULL, 'B' },
		{ "pid", required_argument, NULL, 'P' },
		{ "end", required_argument, NULL, 'E' },
		{ "status", required_argument, NULL, 'X' },
		{ "platform", required_argument, NULL, 'L' },
		{ "tier", required_argument, NULL, 'R' },
		{ "wait-input", no_argument, NULL, 'I' },
		{ "finish", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* static: o holds a struct profiles (some 117 KB); on the stack its
	 * every page would be touched (stack-clash probes, the memset), in
	 * the zeroed bss only the pages written */
	static struct hs_opts o;
	const char *cmd, *dir = NULL;
	int c, secs;

	msg_init(argv[0]);
	o.envp = envp;
	o.status = -1;
	cmd = av_verb(&argc, &argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': o.state = optarg; break;
		case 'a': o.attempt = optarg; break;
		case 'g': o.agent = optarg; break;
		case 'i': o.signin = optarg; break;
		case 'F': o.full_setup = 1; break;
		case 'w': o.workspace = optarg; break;
		case 'p': o.profiles_file = optarg; break;
		case 'S': o.session_store = optarg; break;
		case 'C': o.test_cacert = optarg; break;
		case 'T': o.trees = optarg; break;
		case 'N': o.nonce = optarg; break;
		case 'B': o.begin = 1; break;
		case 'E': o.end = optarg; break;
		case 'L': o.platform = optarg; break;
		case 'R': o.tier = optarg; break;
		case 'I': o.wait_input = 1; break;
		case 'D': o.finish = 1; break;
		case 'X':
			o.status_input = strcmp(optarg, "-") == 0;
			if (o.status_input)
				o.status = -1;
			else if (num_parse_int(optarg, 0, 255, &o.status) < 0) {
				msg_fatal("bad --status %.16s (want 0 to 255, or - with --wait-input)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'P':
			if (num_parse_int(optarg, 1, 1 << 22, &o.pid) < 0) {
				msg_fatal("bad --pid %.32s", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'W':
			if (num_parse_int(optarg, 0, 3600, &secs) < 0) {
				msg_fatal("bad --wait-record %.32s (want 0 to 3600 seconds)", optarg);
				return EXIT_USAGE;
			}
			o.wait_record = (unsigned)secs;
			break;
		case 'h': usage(1); return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		case 'V': printf("home-stage %s\n", CORRAL_VERSION); return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, NULL);
			return EXIT_USAGE;
		}
	}
	if (cmd == NULL || (strcmp(cmd, "create") != 0 && strcmp(cmd, "finish") != 0)) {
		msg_usage("a command is required: create or finish");
		usage(2);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "finish") == 0) {
		if (optind + 1 != argc || o.attempt || o.agent || o.signin || o.full_setup || o.workspace ||
		    o.wait_record || o.trees || o.nonce || o.begin || o.pid || o.finish || !o.end != (o.status < 0 && !o.status_input) ||
		    !o.platform != !o.tier || (o.platform && !o.end) || (o.status_input && !o.wait_input)) {
			msg_usage("finish [--state DIR] [--profiles FILE] [--session-store PATH] [--test-cacert FILE]"
			    " [--wait-input] [--end ID --status N|- [--platform P --tier T]] TREE");
			return EXIT_USAGE;
		}
		if (o.end && !store_id_ok(o.end)) {
			msg_fatal("bad --end (want 32 lowercase hex digits)");
			return EXIT_USAGE;
		}
		if ((o.platform && !store_label_ok(o.platform)) || (o.tier && !store_label_ok(o.tier))) {
			msg_fatal("bad --platform or --tier (want [A-Za-z0-9._:+-], at most 32)");
			return EXIT_USAGE;
		}
		dir = argv[optind];
	} else if (optind != argc || !o.state || !o.attempt || !o.agent || (o.test_cacert && !o.finish) ||
	    (o.begin && o.wait_record) || (o.pid && !o.begin) || o.end || o.status >= 0 || o.status_input ||
	    o.platform || o.tier || o.wait_input) {
		msg_usage("create --state DIR --attempt ID --agent NAME [--signin NAME] [--full-setup]"
		    " [--wait-record SECONDS | --begin [--pid N]] [--finish [--test-cacert FILE]]");
		return EXIT_USAGE;
	} else if (o.finish) {
		/* then what finish --wait-input --end ID --status - does, with
		 * the platform and the tier on its input too (hs_create) */
		o.wait_input = o.status_input = o.labels_input = 1;
		o.end = o.attempt;
	}
	if (o.nonce != NULL && (strspn(o.nonce, "0123456789abcdef") != STORE_TREE_NONCE_LEN ||
	    o.nonce[STORE_TREE_NONCE_LEN] != '\0')) {
		msg_fatal("bad --nonce (want %d lowercase hex digits)", STORE_TREE_NONCE_LEN);
		return EXIT_USAGE;
	}
	if (o.profiles_file != NULL && o.profiles_file[0] != '/') {
		msg_fatal("--profiles must be an absolute path (it is passed to session-store)");
		return EXIT_USAGE;
	}
	/* finish reads the profiles only to take a sign-in back; a --profiles
	 * file is always read, so a bad one always fails; create wants only
	 * its agent's */
	if ((dir == NULL || o.profiles_file != NULL) && hs_profiles(&o, dir == NULL ? o.agent : NULL) < 0)
		return EXIT_USAGE;
	if (dir != NULL)
		return hs_finish(&o, dir);
	return hs_create(&o);
}
