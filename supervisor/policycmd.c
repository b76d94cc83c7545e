/* corral policy: check a policy file, approve one (trustpol.c), print the default. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "execenv.h"
#include "msg.h"
#include "resolve.h"
#include "trustpol.h"

/* The env files as a run will take them: "~" is HOME, each a file
 * env-filter accepts; so that a policy check accepted never fails at run. */
static int
files_check(const char *file, const struct policy *p, char **envp)
{
	struct plan pl;
	char path[PATH_MAX], why[256];
	const char *home = env_get(envp, "HOME");

	memset(&pl, 0, sizeof pl);
	if (home && home[0] == '/' && strcmp(home, "/") != 0)
		snprintf(pl.home, sizeof pl.home, "%s", home);
	for (size_t i = 0; i < p->env_files.n; i++) {
		if (plan_tilde(&pl, p->env_files.v[i], path, sizeof path) < 0) {
			msg_fatal("policy %s: \"env.files\" names %s, but %s", file, p->env_files.v[i],
			    errno == ENOENT ? "HOME is not set" : "it is too long");
			return -1;
		}
		if (envfile_check(path, why, sizeof why) < 0) {
			msg_fatal("policy %s: \"env.files\": %s: %s", file, p->env_files.v[i], why);
			msg_hint("an env file is a regular file you own, mode 0600 (chmod 600 %s)", path);
			return -1;
		}
	}
	for (size_t i = 0; i < p->nmcp; i++)
		if (p->mcp[i].credential_file && plan_tilde(&pl, p->mcp[i].credential_file, path, sizeof path) < 0) {
			msg_fatal("policy %s: MCP server %s names %s, but HOME is not set", file, p->mcp[i].name,
			    p->mcp[i].credential_file);
			return -1;
		}
	return 0;
}

/* corral policy approve FILE: a policy that parses, its hash recorded. */
static int
approve(const char *path, char *const envp[])
{
	char real[PATH_MAX];
	struct policy p;
	struct json_err pe;
	struct polsrc src;
	int r;

	memset(&src, 0, sizeof src);
	if (policy_default(&p, &pe) < 0)
		return msg_fatal("embedded policy: %s", pe.msg), EXIT_USAGE;
	r = policy_load_src(path, &p, &src);
	policy_free(&p);
	if (r == -1)
		return msg_hint("fix it first: corral policy check %s", path), EXIT_NO;
	if (r == -2)
		return EXIT_USAGE;
	if (realpath(path, real) == NULL)
		return msg_fatal_sys("policy %s", path), EXIT_USAGE;
	return trustpol_record(real, &src, envp);
}

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
		return approve(argv[2], envp);
	if (argc != 3 || strcmp(argv[1], "check") != 0) {
		msg_usage("corral policy check FILE | corral policy approve FILE | corral policy default");
		return EXIT_USAGE;
	}
	struct json_err pe;
	if (policy_default(&p, &pe) < 0)
		return msg_fatal("embedded policy: %s", pe.msg), EXIT_USAGE;
	r = policy_load_file(argv[2], &p);
	if (r == 0 && files_check(argv[2], &p, envp) < 0)
		r = -1;
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
