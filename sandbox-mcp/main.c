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
#include <sys/stat.h>
#include <unistd.h>

#include "cfgcmd.h"
#include "execenv.h"
#include "git.h"
#include "http.h"
#include "listen.h"
#include "msg.h"
#include "num.h"
#include "run.h"
#include "sbx.h"
#include "serve.h"
#include "stepdir.h"
#include "store.h"
#include "token.h"
#include "version.h"

extern char **environ;

static void
usage(FILE *f)
{
	fputs("usage: sandbox-mcp [--config FILE] [--store DIR] [--cacert FILE]\n"
	    "                   [--listen 127.0.0.1:PORT (--listen-token-file FILE | --listen-token-fd FD)]\n"
	    "       sandbox-mcp [--config FILE] config add-path PATH | remove-path PATH |\n"
	    "                   add-domain NAME | remove-domain NAME | list | import-toml FILE\n"
	    "       sandbox-mcp -h | --help | --version\n"
	    "An MCP server (stdio, or loopback HTTP) of sandbox sessions: commands run\n"
	    "through env-filter and confine after probe, files stay beneath the workspace,\n"
	    "checkpoints are kept with git. drun's tool names and arguments.\n\n"
	    "  -c, --config FILE  the configuration, read fresh on every call\n"
	    "                     (default ~/.config/corral/sandbox-mcp.json)\n"
	    "  -s, --store DIR    where sessions live (default\n"
	    "                     $XDG_STATE_HOME/corral/sandbox-mcp)\n"
	    "      --cacert FILE  session_fetch trusts the CAs in FILE instead of the system bundle\n"
	    "      --listen 127.0.0.1:PORT  serve Streamable HTTP on http://127.0.0.1:PORT/mcp\n"
	    "                     instead of stdio (0: any port; the URL is printed on stdout)\n"
	    "      --listen-token-file FILE  the bearer token HTTP clients must send (mode 0600)\n"
	    "      --listen-token-fd FD      the same, from a descriptor\n"
	    "  -h, --help         this text\n"
	    "      --version      print the version\n\n"
	    "config: drun's verbs, editing mount_allowlist or domain_allowlist of FILE\n"
	    "(the file is checked first, and the rest of it kept as written);\n"
	    "import-toml converts drun's config.toml into FILE.\n\n"
	    "Exit status:\n"
	    "  0  the end of input (or SIGTERM with --listen); config: done\n"
	    "  1  config: refused (an entry or a file it will not write)\n"
	    "  2  a usage or system error\n"
	    "See sandbox-mcp(1).\n", f);
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

struct opts {
	const char *cfg, *store, *cacert, *listen, *tfile;
	int tfd, port;
	int verb;		/* argv index of "config", 0 none */
};

enum { OPT_CACERT = 256, OPT_LISTEN, OPT_LTOKEN_FILE, OPT_LTOKEN_FD };

/* Options into o. Returns 0 to go on, 1 when done (help, version), -1 on
 * a usage error (said). */
static int
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "store", required_argument, NULL, 's' },
		{ "cacert", required_argument, NULL, OPT_CACERT },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "listen-token-file", required_argument, NULL, OPT_LTOKEN_FILE },
		{ "listen-token-fd", required_argument, NULL, OPT_LTOKEN_FD },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:c:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o->cfg = optarg; break;
		case 's': o->store = optarg; break;
		case OPT_CACERT: o->cacert = optarg; break;
		case OPT_LISTEN: o->listen = optarg; break;
		case OPT_LTOKEN_FILE: o->tfile = optarg; break;
		case OPT_LTOKEN_FD:
			if (num_parse_fd(optarg, &o->tfd) < 0 || fcntl(o->tfd, F_GETFD) < 0)
				return msg_usage("--listen-token-fd: not an open descriptor: %s", optarg), -1;
			break;
		case 'h': usage(stdout); return msg_stdout_done() == 0 ? 1 : -1;
		case 'V':
			printf("sandbox-mcp %s\n", CORRAL_VERSION);
			return msg_stdout_done() == 0 ? 1 : -1;
		default:
			msg_badopt(c, argc, argv, NULL);
			return -1;
		}
	}
	if (optind < argc && strcmp(argv[optind], "config") == 0 && !o->listen) {
		o->verb = optind;	/* drun's configuration verbs */
		return 0;
	}
	if (optind < argc)
		return msg_usage("unexpected argument %s", argv[optind]), msg_hint("sandbox-mcp --help"), -1;
	return 0;
}

static int
validate(struct opts *o)
{
	char err[256];

	if (o->listen && http_listen_arg(o->listen, &o->port, err, sizeof err) < 0)
		return msg_usage("%s", err), msg_hint("sandbox-mcp serves loopback only: --listen 127.0.0.1:PORT"), -1;
	if (o->listen && !o->tfile && o->tfd < 0)
		return msg_usage("--listen needs --listen-token-file or --listen-token-fd"), -1;
	if (!o->listen && (o->tfile || o->tfd >= 0))
		return msg_usage("--listen-token-file and --listen-token-fd need --listen"), -1;
	if (o->tfile && o->tfd >= 0)
		return msg_usage("either --listen-token-file or --listen-token-fd"), -1;
	if (o->cacert) {
		/* named by the operator, never by a call; checked now, not at the first fetch */
		int fd = open(o->cacert, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		struct stat st;
		if (fd < 0)
			return msg_fatal_sys("unable to open --cacert %s", o->cacert), -1;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
			return close(fd), msg_fatal("--cacert %s: not a regular file", o->cacert), -1;
		close(fd);
	}
	return 0;
}

/* stdio, or the loopback HTTP endpoint. Returns the exit status. */
static int
serve(struct sbx *s, const struct opts *o)
{
	static char token[TOKEN_MAX + 1];
	static char cur[SBX_ID_LEN + 1];
	int lfd, port, rc;

	if (!o->listen) {
		s->cur = cur;	/* one client: this process's */
		return serve_stdio(s, 0, 1) < 0 ? (msg_fatal_sys("stdio"), EXIT_USAGE) : 0;
	}
	if (token_load("listen token", o->tfile, o->tfd, "--listen-token-fd", token, sizeof token) < 0)
		return EXIT_USAGE;
	if ((lfd = listen_loopback(o->port, &port)) < 0)
		return msg_fatal_sys("unable to listen on 127.0.0.1:%d", o->port), EXIT_USAGE;
	/* where to connect, for whoever started us (port 0 picks one) */
	printf("http://127.0.0.1:%d/mcp\n", port);
	if (msg_stdout_done() < 0)
		return EXIT_USAGE;
	rc = serve_http(s, lfd, port, token);
	explicit_bzero(token, sizeof token);
	close(lfd);
	return rc < 0 ? (msg_fatal_sys("the listener on 127.0.0.1:%d", port), EXIT_USAGE) : 0;
}

int
main(int argc, char **argv)
{
	static struct sbx s;
	struct opts o = { .tfd = -1 };
	char err[SBX_ERR_MAX];
	int rc;

	msg_init(argv[0]);
	if ((rc = parse(argc, argv, &o)) != 0)
		return rc > 0 ? 0 : EXIT_USAGE;
	if (validate(&o) < 0)
		return EXIT_USAGE;
	s.envp = environ;
	s.cacert = o.cacert;
	if (defaults(&s, o.cfg, o.store) < 0)
		return EXIT_USAGE;
	if (o.verb)
		return cfgcmd_main(s.cfgpath, s.home[0] ? s.home : NULL, argc - o.verb, argv + o.verb);
	if (open_store(&s) < 0)
		return EXIT_USAGE;
	if (resolve_stepdir(s.stepdir, sizeof s.stepdir) < 0)
		return msg_fatal_sys("cannot find the step programs (/proc/self/exe)"), EXIT_USAGE;
	snprintf(s.keeper, sizeof s.keeper, "%s/keeper", s.stepdir);
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
	return serve(&s, &o);
}
