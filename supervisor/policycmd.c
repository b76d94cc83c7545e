/* corral policy: check a policy file, approve one (trustpol.c), print the default. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "msg.h"
#include "trustpol.h"

int
cmd_policy(int argc, char **argv, char **envp)
{
	struct policy p;
	int r;

	if (argc == 2 && strcmp(argv[1], "default") == 0) {
		fputs(policy_default_json, stdout);
		return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
	}
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: corral policy check FILE\n       corral policy approve FILE\n       corral policy default\n");
		return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
	}
	if (argc >= 2 && argv[1][0] == '-') {
		optind = 2;
		optopt = 0;
		msg_badopt('?', argc, argv, "corral policy");
		return EXIT_USAGE;
	}
	if (argc == 3 && strcmp(argv[1], "approve") == 0)
		return trustpol_approve(argv[2], envp);
	if (argc != 3 || strcmp(argv[1], "check") != 0) {
		msg_usage("corral policy check FILE | corral policy approve FILE | corral policy default");
		return EXIT_USAGE;
	}
	struct policy_err pe;
	if (policy_default(&p, &pe) < 0)
		return msg_fatal("embedded policy: %s", pe.msg), EXIT_USAGE;
	r = policy_load_file(argv[2], &p);
	if (r == 0) {
		/* what a run gets: the file merged over the default */
		printf("%s: valid; a run gets (the default, this file over it):\n", argv[2]);
		policy_print(stdout, &p);
	}
	policy_free(&p);
	if (r == -1)
		return EXIT_NO;
	if (r == -2)
		return EXIT_USAGE;
	return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
}
