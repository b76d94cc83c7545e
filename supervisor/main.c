/* corral: the supervisor. run, explain, doctor, policy. */
#include <string.h>
#include <unistd.h>
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "msg.h"
#include "version.h"

static void
usage(int fd)
{
	fprintf(fd == 1 ? stdout : stderr,
	    "usage: corral run [-p POLICY] [-a AGENT] [-w WORKSPACE] [--full-setup] [--no-network]\n"
	    "                  [--worktree | --in-place] [--from-head] [--profiles FILE]\n"
	    "                  [--test-cacert FILE] [--quiet] [--allow-osc N] [--env PROJECT]\n"
	    "                  [--] CMD [ARG...]\n"
	    "       corral explain [-p POLICY] [-a AGENT] [-w WORKSPACE] [--full-setup] [--no-network]\n"
	    "                  [--worktree | --in-place] [--from-head] [--env PROJECT] [--] CMD [ARG...]\n"
	    "       corral signin AGENT [--from-home] [--profiles FILE] [--test-cacert FILE]\n"
	    "       corral signin --status | --remove AGENT\n"
	    "       corral env set PROJECT NAME < VALUE\n"
	    "       corral env list PROJECT\n"
	    "       corral env rm PROJECT NAME\n"
	    "       corral doctor [-p POLICY] [--json]\n"
	    "       corral policy check FILE\n"
	    "       corral policy approve FILE\n"
	    "       corral policy default\n"
	    "       corral why [-p POLICY] [-a AGENT] [-w WORKSPACE] PATH... | --connect HOST:PORT\n"
	    "       corral apply [-w WORKSPACE] ID\n"
	    "       corral branches [-w WORKSPACE] [--prune]\n"
	    "       corral -h | --help | --version\n");
}

int
main(int argc, char **argv, char **envp)
{
	msg_init("corral");
	if (argc < 2) {
		msg_usage("no command given");
		usage(2);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(1);
		return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("corral %s\n", CORRAL_VERSION);
		return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
	}
	if (argv[1][0] == '-') {
		optind = 2;	/* what msg_badopt names: argv[optind - 1] */
		optopt = 0;
		msg_badopt('?', argc, argv, NULL);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "explain") == 0)
		return cmd_explain(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "doctor") == 0)
		return cmd_doctor(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "policy") == 0)
		return cmd_policy(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "why") == 0)
		return cmd_why(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "apply") == 0)
		return cmd_apply(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "branches") == 0)
		return cmd_branches(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "signin") == 0)
		return cmd_signin(argc - 1, argv + 1, envp);
	if (strcmp(argv[1], "env") == 0)
		return cmd_env(argc - 1, argv + 1, envp);
	msg_usage("unknown command %s", argv[1]);
	usage(2);
	return EXIT_USAGE;
}
