/* session-store: attempts, credentials released at most once, renewals, reaping. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "msg.h"
#include "ss.h"
#include "store.h"
#include "version.h"

/* prof: the command reads the profiles (the embedded ones are parsed only
 * for those; a --profiles file is always read, so a bad one always fails) */
static const struct {
	const char *name;
	int (*fn)(struct ss *, int, char **);
	int prof;
} cmds[] = {
	{ "begin", ss_begin, 0 }, { "end", ss_end, 0 }, { "list", ss_list, 0 }, { "show", ss_show, 0 },
	{ "put", ss_put, 1 }, { "release", ss_release, 0 }, { "renew", ss_renew, 1 }, { "reap", ss_reap, 0 },
	{ "restore", ss_restore, 1 }, { "signins", ss_signins, 1 }, { "remove", ss_remove, 0 },
	{ "env-set", ss_env_set, 0 }, { "env-list", ss_env_list, 0 }, { "env-rm", ss_env_rm, 0 },
	{ "env-release", ss_env_release, 0 },
};

int
main(int argc, char **argv, char **envp)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "profiles", required_argument, NULL, 'p' },
		{ "test-cacert", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* static: s holds a struct profiles (some 117 KB); on the stack its
	 * every page would be touched (stack-clash probes, the memset), in
	 * the zeroed bss only the pages written */
	static struct ss s;
	char path[4096], err[512];
	const char *profiles = NULL;
	size_t i;
	int c;

	msg_init(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': s.store = optarg; break;
		case 'p': profiles = optarg; break;
		case 'C': s.test_cacert = optarg; break;
		case 'h': ss_usage(1); return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		case 'V': printf("session-store %s\n", CORRAL_VERSION); return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, NULL);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		msg_usage("a command is required");
		ss_usage(2);
		return EXIT_USAGE;
	}
	for (i = 0; i < sizeof cmds / sizeof cmds[0] && strcmp(cmds[i].name, argv[optind]) != 0; i++)
		;
	if (i == sizeof cmds / sizeof cmds[0]) {
		msg_usage("unknown command %.64s", argv[optind]);
		ss_usage(2);
		return EXIT_USAGE;
	}
	if ((cmds[i].prof || profiles) && profiles_load(profiles, &s.prof, err, sizeof err) < 0) {
		msg_fatal("%s", err);
		return EXIT_USAGE;
	}
	if (s.store == NULL) {
		if (store_default_path(envp, path, sizeof path) < 0) {
			msg_fatal("no store: neither XDG_STATE_HOME nor HOME is an absolute path");
			msg_hint("pass --store DIR");
			return EXIT_USAGE;
		}
		s.store = path;
	}
	s.fd = store_open(s.store, 1, err, sizeof err);
	if (s.fd < 0) {
		msg_fatal("store %s: %s", s.store, err);
		if (errno == EPERM)
			msg_hint("the store must be a directory you own, mode 0700 (chmod 0700 it, or pass --store)");
		return errno == EPERM ? EXIT_NO : EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	optind = 0;	/* reinitialise getopt for the command's own options */
	return cmds[i].fn(&s, argc, argv);
}
