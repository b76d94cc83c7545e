/* mcp-proxy: the agent's only way to its MCP tool servers. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "execenv.h"
#include "msg.h"
#include "num.h"
#include "http_up.h"
#include "mcpmeta.h"
#include "proxy.h"
#include "token.h"
#include "version.h"

extern char **environ;

static const char usage[] =
"usage: mcp-proxy [-a TOOL]... [-e NAME]... [-t DURATION] [-m BYTES]\n"
"                 [--audit FILE | --audit-fd FD] [--] COMMAND [ARG]...\n"
"       mcp-proxy [-a TOOL]... [-t DURATION] [-m BYTES] [--audit FILE | --audit-fd FD]\n"
"                 [--token-file FILE | --token-fd FD] [--cacert FILE]\n"
"                 [--protocol auto | 2026-07-28 | 2025-11-25] --url URL\n"
"       (either form may add: [--name NAME] [--allow-resource PREFIX]... [--allow-prompt NAME]...\n"
"                 [--web-urls]\n"
"                 [--listen-unix PATH]\n"
"                 [--listen-http PORT (--listen-token-file FILE | --listen-token-fd FD)\n"
"                  [--listen-idle DURATION]])\n"
"       mcp-proxy -h | --help | --version\n"
"\n"
"Serve MCP on stdin/stdout and relay it to one upstream MCP server: the stdio\n"
"server COMMAND, or the Streamable HTTP server at URL. Only the tools named\n"
"with --allow are let through.\n"
"\n"
"  -a, --allow TOOL       allow the tool named exactly TOOL (repeatable; none: no tools)\n"
"      --allow-resource PREFIX  allow resources whose URI begins with PREFIX (repeatable;\n"
"                         none: no resources)\n"
"      --allow-prompt NAME      allow the prompt named exactly NAME (repeatable; none: no prompts)\n"
"      --web-urls         refuse a tool call whose argument \"url\" is not http:, https:\n"
"                         or about:blank (a browser's file:, chrome:, view-source: ...)\n"
"      --name NAME        name the server in every message: mcp-proxy[NAME]: ...\n"
"  -e, --env NAME         pass NAME from this environment to COMMAND (besides PATH)\n"
"  -t, --timeout DURATION answer a request the upstream leaves unanswered this\n"
"                         long with an error (default 60s)\n"
"  -m, --max-message BYTES  longest message accepted from either side (default 4194304)\n"
"      --audit FILE       append one JSON line per tool call: tool name and outcome\n"
"      --audit-fd FD      the same, to an open descriptor\n"
"  -u, --url URL          the upstream is the Streamable HTTP server at URL (https://,\n"
"                         or http:// to a loopback address)\n"
"      --token-file FILE  send the bearer token in FILE (mode 0600, ours) upstream\n"
"      --token-fd FD      the same, read from descriptor FD\n"
"      --cacert FILE      trust the CAs in FILE instead of the system bundle\n"
"      --protocol REV     the revision to speak to URL: auto (default: server/discover as\n"
"                         2026-07-28, falling back to initialize as 2025-11-25), 2026-07-28\n"
"                         (no fallback) or 2025-11-25 (initialize only)\n"
"      --listen-unix PATH serve clients on the unix socket PATH (mode 0600) instead of stdio\n"
"      --listen-http PORT serve Streamable HTTP on 127.0.0.1:PORT/mcp (0: any port; the URL\n"
"                         is printed on stdout) instead of stdio\n"
"      --listen-token-file FILE  the bearer token HTTP clients must send (mode 0600)\n"
"      --listen-token-fd FD      the same, from a descriptor\n"
"      --listen-idle DURATION    close an HTTP connection that has not sent a whole\n"
"                         request this long after opening or after its last answer (default 30s)\n"
"  -h, --help             this help\n"
"      --version          print the version\n"
"\n"
"Exit status:\n"
"  0  the agent closed its side, or a terminating signal arrived\n"
"  2  a usage or system error (a bad option, an unreadable or too widely\n"
"     readable token file, a socket that cannot be bound, no narrowing)\n";

enum { OPT_NAME = 249, OPT_ALLOW_RESOURCE = 250, OPT_ALLOW_PROMPT, OPT_AUDIT = 256, OPT_AUDIT_FD, OPT_VERSION, OPT_TOKEN_FILE, OPT_TOKEN_FD, OPT_CACERT, OPT_PROTOCOL, OPT_LIDLE,
	OPT_LUNIX, OPT_LHTTP, OPT_LTOKEN_FILE, OPT_LTOKEN_FD, OPT_WEB_URLS };

static const struct option longopts[] = {
	{ "allow", required_argument, NULL, 'a' },
	{ "allow-resource", required_argument, NULL, OPT_ALLOW_RESOURCE },
	{ "allow-prompt", required_argument, NULL, OPT_ALLOW_PROMPT },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "web-urls", no_argument, NULL, OPT_WEB_URLS },
	{ "env", required_argument, NULL, 'e' },
	{ "timeout", required_argument, NULL, 't' },
	{ "max-message", required_argument, NULL, 'm' },
	{ "audit", required_argument, NULL, OPT_AUDIT },
	{ "audit-fd", required_argument, NULL, OPT_AUDIT_FD },
	{ "url", required_argument, NULL, 'u' },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "token-fd", required_argument, NULL, OPT_TOKEN_FD },
	{ "cacert", required_argument, NULL, OPT_CACERT },
	{ "protocol", required_argument, NULL, OPT_PROTOCOL },
	{ "listen-idle", required_argument, NULL, OPT_LIDLE },
	{ "listen-unix", required_argument, NULL, OPT_LUNIX },
	{ "listen-http", required_argument, NULL, OPT_LHTTP },
	{ "listen-token-file", required_argument, NULL, OPT_LTOKEN_FILE },
	{ "listen-token-fd", required_argument, NULL, OPT_LTOKEN_FD },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* What the command line says, before anything is opened or read. */
struct opts {
	struct proxy_config cfg;
	const char **allow, **resources, **prompts, **envnames;
	size_t nenv;
	const char *audit, *token_file, *ltoken_file, *name;
	int token_fd, ltoken_fd, protocol_set, idle_set;
};

/* A descriptor option: a descriptor number (num_parse_fd) that is open. */
static int
fd_opt(const char *arg, const char *opt, int *fd)
{
	if (num_parse_fd(arg, fd) < 0 || fcntl(*fd, F_GETFD) < 0) {
		msg_usage("%s: not an open descriptor: %s", opt, arg);
		return -1;
	}
	return 0;
}

static int
duration_opt(const char *arg, const char *opt, int64_t *ms)
{
	uint64_t v;

	if (num_parse_duration(arg, &v) < 0 || v == 0 || v > 86400) {
		msg_usage("invalid %s: %s", opt, arg);
		return -1;
	}
	*ms = (int64_t)v * 1000;
	return 0;
}

static int
protocol_opt(const char *arg, int *proto)
{
	if (strcmp(arg, "auto") == 0)
		*proto = PROTO_AUTO;
	else if (strcmp(arg, REV_2026_07_28) == 0)
		*proto = PROTO_MODERN;
	else if (strcmp(arg, REV_2025_11_25) == 0)
		*proto = PROTO_LEGACY;
	else {
		msg_usage("invalid --protocol (auto, " REV_2026_07_28 " or " REV_2025_11_25 "): %s", arg);
		return -1;
	}
	return 0;
}

/* One option. Returns 0, 1 when done (help, version), -1 on a usage error. */
static int
option(struct opts *o, int c)
{
	struct proxy_config *cfg = &o->cfg;
	uint64_t v;

	switch (c) {
	case 'a':
		if (!tool_name_valid(optarg)) {
			msg_usage("invalid tool name for --allow (1-128 of A-Z a-z 0-9 _ - .)");
			return -1;
		}
		o->allow[cfg->allow.n++] = optarg;
		return 0;
	case OPT_ALLOW_RESOURCE:
		if (!resource_prefix_valid(optarg)) {
			msg_usage("invalid URI prefix for --allow-resource (1-4096 visible ASCII characters): %s", optarg);
			return -1;
		}
		o->resources[cfg->resources.n++] = optarg;
		return 0;
	case OPT_NAME:
		if (!*optarg || strlen(optarg) > 64 ||
		    strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") != strlen(optarg)) {
			msg_usage("invalid --name (1-64 of A-Z a-z 0-9 - _ .)");
			return -1;
		}
		o->name = optarg;
		return 0;
	case OPT_ALLOW_PROMPT:
		if (!tool_name_valid(optarg)) {
			msg_usage("invalid prompt name for --allow-prompt (1-128 of A-Z a-z 0-9 _ - .)");
			return -1;
		}
		o->prompts[cfg->prompts.n++] = optarg;
		return 0;
	case 'e':
		if (!*optarg || strchr(optarg, '=')) {
			msg_usage("--env takes a variable name");
			return -1;
		}
		o->envnames[o->nenv++] = optarg;
		return 0;
	case 't': return duration_opt(optarg, "--timeout", &cfg->timeout_ms);
	case 'm':
		if (num_parse_u64(optarg, 1024, JSON_MAX_LEN, &v) < 0) {
			msg_usage("invalid --max-message (1024 to %d): %s", JSON_MAX_LEN, optarg);
			return -1;
		}
		cfg->max_msg = (size_t)v;
		return 0;
	case OPT_AUDIT: o->audit = optarg; return 0;
	case OPT_WEB_URLS: cfg->web_urls = 1; return 0;
	case OPT_AUDIT_FD:
		if (fd_opt(optarg, "--audit-fd", &cfg->audit_fd) < 0)
			return -1;
		fcntl(cfg->audit_fd, F_SETFD, FD_CLOEXEC);
		return 0;
	case 'u': cfg->url = optarg; return 0;
	case OPT_TOKEN_FILE: o->token_file = optarg; return 0;
	case OPT_TOKEN_FD: return fd_opt(optarg, "--token-fd", &o->token_fd);
	case OPT_LIDLE:
		o->idle_set = 1;
		return duration_opt(optarg, "--listen-idle", &cfg->http_idle_ms);
	case OPT_PROTOCOL:
		o->protocol_set = 1;
		return protocol_opt(optarg, &cfg->protocol);
	case OPT_CACERT: cfg->cacert = optarg; return 0;
	case OPT_LUNIX: cfg->listen_unix = optarg; return 0;
	case OPT_LHTTP:
		if (num_parse_int(optarg, 0, 65535, &cfg->listen_http) < 0) {
			msg_usage("invalid --listen-http port: %s", optarg);
			return -1;
		}
		return 0;
	case OPT_LTOKEN_FILE: o->ltoken_file = optarg; return 0;
	case OPT_LTOKEN_FD: return fd_opt(optarg, "--listen-token-fd", &o->ltoken_fd);
	case 'h':
		fputs(usage, stdout);
		return 1;
	case OPT_VERSION:
		printf("mcp-proxy %s\n", CORRAL_VERSION);
		return 1;
	default:
		return -2;	/* a getopt failure: parse names it */
	}
}

/* Returns 0, 1 when done (help, version), -1 on a usage error. */
static int
parse(int argc, char **argv, struct opts *o)
{
	int c, rc;

	o->allow = calloc((size_t)argc + 1, sizeof *o->allow);
	o->envnames = calloc((size_t)argc + 1, sizeof *o->envnames);
	o->resources = calloc((size_t)argc + 1, sizeof *o->resources);
	o->prompts = calloc((size_t)argc + 1, sizeof *o->prompts);
	if (!o->allow || !o->envnames || !o->resources || !o->prompts) {
		msg_fatal("out of memory");
		return -1;
	}
	o->cfg.allow.names = o->allow;
	o->cfg.resources.names = o->resources;
	o->cfg.prompts.names = o->prompts;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:a:e:t:m:u:h", longopts, NULL)) != -1) {
		if ((rc = option(o, c)) == -2) {
			msg_badopt(c, argc, argv, NULL);
			return -1;
		}
		if (rc != 0)
			return rc;
	}
	o->cfg.up_argv = argv + optind;
	return 0;
}

/* The combinations the options allow. Returns 0 or -1 (said why). */
static int
validate(const struct opts *o)
{
	const struct proxy_config *cfg = &o->cfg;
	const char *bad = NULL;

	if (cfg->url && cfg->up_argv[0])
		bad = "either --url or a COMMAND, not both";
	else if (!cfg->url && !cfg->up_argv[0]) {
		msg_usage("no upstream COMMAND");
		msg_hint("mcp-proxy --allow echo -- node server.js");
		return -1;
	} else if (!cfg->url && (o->token_file || o->token_fd >= 0 || cfg->cacert || o->protocol_set))
		bad = "--token-file, --token-fd, --cacert and --protocol need --url";
	else if (o->token_file && o->token_fd >= 0)
		bad = "either --token-file or --token-fd";
	else if (cfg->url && !http_url_ok(cfg->url))
		bad = "--url must be https://, or http:// to 127.0.0.1, [::1] or localhost";
	else if (cfg->listen_http >= 0 && !o->ltoken_file && o->ltoken_fd < 0)
		bad = "--listen-http needs --listen-token-file or --listen-token-fd";
	else if (cfg->listen_http < 0 && o->idle_set)
		bad = "--listen-idle needs --listen-http";
	else if (cfg->listen_http < 0 && (o->ltoken_file || o->ltoken_fd >= 0))
		bad = "--listen-token-file and --listen-token-fd need --listen-http";
	else if (o->ltoken_file && o->ltoken_fd >= 0)
		bad = "either --listen-token-file or --listen-token-fd";
	if (bad) {
		msg_usage("%s", bad);
		return -1;
	}
	return 0;
}

/* The upstream's whole environment: PATH and the names asked for. */
static char **
upstream_env(const char **names, size_t n)
{
	char **envp = calloc(n + 2, sizeof *envp);
	const char *path = env_get(environ, "PATH");
	size_t k = 0;

	if (!envp)
		return NULL;
	if (path && asprintf(&envp[k++], "PATH=%s", path) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *val = env_get(environ, names[i]);
		if (val == NULL || strcmp(names[i], "PATH") == 0)
			continue;
		if (asprintf(&envp[k++], "%s=%s", names[i], val) < 0)
			return NULL;
	}
	return envp;
}

/* Tokens, the audit log, the upstream's environment. Returns 0 or -1. */
static int
setup(struct opts *o)
{
	/* static: what cfg points to lives as long as the process */
	static char token[TOKEN_MAX + 1], ltoken[TOKEN_MAX + 1];
	struct proxy_config *cfg = &o->cfg;

	if (o->token_file || o->token_fd >= 0) {
		if (token_load("bearer token", o->token_file, o->token_fd, "--token-fd", token, sizeof token) < 0)
			return -1;
		cfg->token = token;
	}
	if (o->ltoken_file || o->ltoken_fd >= 0) {
		if (token_load("listen token", o->ltoken_file, o->ltoken_fd, "--listen-token-fd", ltoken,
		    sizeof ltoken) < 0)
			return -1;
		cfg->listen_token = ltoken;
	}
	if (o->audit) {
		cfg->audit_fd = open(o->audit, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (cfg->audit_fd < 0) {
			msg_fatal_sys("unable to open the audit log %s", o->audit);
			return -1;
		}
	}
	if ((cfg->up_envp = upstream_env(o->envnames, o->nenv)) == NULL) {
		msg_fatal("out of memory");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct opts o = {
		.cfg = { .timeout_ms = 60000, .max_msg = 4194304, .audit_fd = -1,
			.backoff_min_ms = 250, .backoff_max_ms = 30000, .listen_http = -1,
			.http_idle_ms = 30000 },
		.token_fd = -1, .ltoken_fd = -1,
	};
	int rc;

	msg_init(argv[0]);
	if ((rc = parse(argc, argv, &o)) != 0)	/* 1: --help, --version */
		return rc > 0 && msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
	if (o.name) {
		/* every later line names the server: mcp-proxy[NAME]: warning: ... */
		static char prog[80];
		snprintf(prog, sizeof prog, "mcp-proxy[%s]", o.name);
		msg_init(prog);
	}
	if (validate(&o) < 0 || setup(&o) < 0)
		return EXIT_USAGE;
	return proxy_run(&o.cfg);
}
