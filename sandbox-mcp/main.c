/* sandbox-mcp: an MCP server of sandbox sessions on corral's boundary. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "execenv.h"
#include "git.h"
#include "msg.h"
#include "run.h"
#include "sbx.h"
#include "serve.h"
#include "stepdir.h"
#include "store.h"
#include "version.h"

extern char **environ;

static void
usage(FILE *f)
{
	fputs("usage: sandbox-mcp [--config FILE] [--store DIR]\n"
	    "       sandbox-mcp -h | --help | --version\n"
	    "An MCP server (stdio) of sandbox sessions: commands run through env-filter\n"
	    "and confine after probe, files stay beneath the workspace, checkpoints\n"
	    "are kept with git. drun's tool names and arguments.\n\n"
	    "  -c, --config FILE  the configuration, read fresh on every call\n"
	    "                     (default ~/.config/corral/sandbox-mcp.json)\n"
	    "  -s, --store DIR    where sessions live (default\n"
	    "                     $XDG_STATE_HOME/corral/sandbox-mcp)\n"
	    "  -h, --help         this text\n"
	    "      --version      print the version\n\n"
	    "Exit: 0 at the end of input, 2 usage or system error. See sandbox-mcp(1).\n", f);
}

static int
defaults(struct sbx *s, const char *cfg, const char *store)
{
	const char *h = env_get(s->envp, "HOME"), *x;
	struct passwd *pw;
	int n;

	if ((h == NULL || h[0] != '/') && (pw = getpwuid(getuid())) != NULL)
		h = pw->pw_dir;
	if (h && h[0] == '/' && strcmp(h, "/") != 0 && realpath(h, s->home) == NULL)
		snprintf(s->home, sizeof s->home, "%s", h);
	if (cfg)
		n = snprintf(s->cfgpath, sizeof s->cfgpath, "%s", cfg);
	else if ((x = env_get(s->envp, "XDG_CONFIG_HOME")) != NULL && x[0] == '/')
		n = snprintf(s->cfgpath, sizeof s->cfgpath, "%s/corral/sandbox-mcp.json", x);
	else if (s->home[0])
		n = snprintf(s->cfgpath, sizeof s->cfgpath, "%s/.config/corral/sandbox-mcp.json", s->home);
	else
		return msg_fatal("no configuration path: HOME is unset"), msg_hint("pass --config FILE"), -1;
	if (n < 0 || (size_t)n >= sizeof s->cfgpath)
		return msg_fatal("the configuration path is too long"), -1;
	if (store)
		n = snprintf(s->store, sizeof s->store, "%s", store);
	else if ((x = env_get(s->envp, "XDG_STATE_HOME")) != NULL && x[0] == '/')
		n = snprintf(s->store, sizeof s->store, "%s/corral/sandbox-mcp", x);
	else if (s->home[0])
		n = snprintf(s->store, sizeof s->store, "%s/.local/state/corral/sandbox-mcp", s->home);
	else
		return msg_fatal("no store: HOME and XDG_STATE_HOME are unset"), msg_hint("pass --store DIR"), -1;
	if (n < 0 || (size_t)n >= sizeof s->store)
		return msg_fatal("the store path is too long"), -1;
	return 0;
}

static int
open_store(struct sbx *s)
{
	char err[256], real[PATH_MAX];

	if (s->store[0] != '/') {
		if (realpath(".", real) == NULL || strlen(real) + strlen(s->store) + 2 > sizeof s->store)
			return msg_fatal("store %s: not an absolute path", s->store), -1;
		strcat(real, "/");
		strcat(real, s->store);
		snprintf(s->store, sizeof s->store, "%s", real);
	}
	if ((s->storefd = store_open(s->store, 1, err, sizeof err)) < 0)
		return msg_fatal("store %s: %s", s->store, err),
		    msg_hint("use a directory of yours, mode 0700 (--store DIR)"), -1;
	/* the grants compare resolved paths */
	if (realpath(s->store, real) != NULL)
		snprintf(s->store, sizeof s->store, "%s", real);
	s->lockfd = openat(s->storefd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->lockfd < 0)
		return msg_fatal_sys("unable to open %s/.lock", s->store), -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "store", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static struct sbx s;
	const char *cfg = NULL, *store = NULL;
	char err[SBX_ERR_MAX];
	int c;

	msg_init(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:c:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': cfg = optarg; break;
		case 's': store = optarg; break;
		case 'h': usage(stdout); return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		case 'V':
			printf("sandbox-mcp %s\n", CORRAL_VERSION);
			return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, NULL);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		msg_usage("unexpected argument %s", argv[optind]);
		msg_hint("sandbox-mcp --help");
		return EXIT_USAGE;
	}
	s.envp = environ;
	if (defaults(&s, cfg, store) < 0 || open_store(&s) < 0)
		return EXIT_USAGE;
	if (resolve_stepdir(s.stepdir, sizeof s.stepdir) < 0)
		return msg_fatal_sys("cannot find the step programs (/proc/self/exe)"), EXIT_USAGE;
	if (git_find(s.git, sizeof s.git) < 0)
		return msg_fatal("git not found in /usr/local/bin, /usr/bin or /bin"),
		    msg_hint("install git: it keeps the checkpoints"), EXIT_USAGE;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return msg_fatal("unable to initialise libcurl"), EXIT_USAGE;
	if (run_init() < 0)
		msg_warn_sys("unable to become the subreaper of session commands");
	/* the idle reaper runs at start too; a bad configuration is reported
	 * here and by every call until it is fixed */
	flock(s.lockfd, LOCK_EX);
	if (serve_prepare(&s, err, sizeof err) < 0)
		msg_warn("%s", err);
	flock(s.lockfd, LOCK_UN);
	if (serve_stdio(&s, 0, 1) < 0)
		return msg_fatal_sys("stdio"), EXIT_USAGE;
	return 0;
}
