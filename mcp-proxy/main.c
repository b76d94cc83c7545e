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
"       (either form may add: [--listen-unix PATH]\n"
"                 [--listen-http PORT (--listen-token-file FILE | --listen-token-fd FD)\n"
"                  [--listen-idle DURATION]])\n"
"       mcp-proxy -h | --help | --version\n"
"\n"
"Serve MCP on stdin/stdout and relay it to one upstream MCP server: the stdio\n"
"server COMMAND, or the Streamable HTTP server at URL. Only the tools named\n"
"with --allow are let through.\n"
"\n"
"  -a, --allow TOOL       allow the tool named exactly TOOL (repeatable; none: no tools)\n"
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
"      --version          print the version\n";

enum { OPT_AUDIT = 256, OPT_AUDIT_FD, OPT_VERSION, OPT_TOKEN_FILE, OPT_TOKEN_FD, OPT_CACERT, OPT_PROTOCOL, OPT_LIDLE,
	OPT_LUNIX, OPT_LHTTP, OPT_LTOKEN_FILE, OPT_LTOKEN_FD };

static const struct option longopts[] = {
	{ "allow", required_argument, NULL, 'a' },
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

int
main(int argc, char **argv)
{
	/* static: what they point to lives as long as the process */
	static struct proxy_config cfg = {
		.timeout_ms = 60000, .max_msg = 4194304, .audit_fd = -1,
		.backoff_min_ms = 250, .backoff_max_ms = 30000, .listen_http = -1,
		.http_idle_ms = 30000,
	};
	static const char **allow, **envnames;
	size_t nenv = 0;
	const char *audit = NULL, *token_file = NULL, *ltoken_file = NULL;
	int token_fd = -1, ltoken_fd = -1, protocol_set = 0, idle_set = 0;
	uint64_t v;
	int o, fd;

	msg_init(argv[0]);
	allow = calloc((size_t)argc + 1, sizeof *allow);
	envnames = calloc((size_t)argc + 1, sizeof *envnames);
	if (!allow || !envnames) {
		msg_fatal("out of memory");
		return EXIT_USAGE;
	}
	cfg.allow.names = allow;
	while ((o = getopt_long(argc, argv, "+a:e:t:m:u:h", longopts, NULL)) != -1) {
		switch (o) {
		case 'a':
			if (!tool_name_valid(optarg)) {
				msg_usage("invalid tool name for --allow (1-128 of A-Z a-z 0-9 _ - .)");
				return EXIT_USAGE;
			}
			allow[cfg.allow.n++] = optarg;
			break;
		case 'e':
			if (!*optarg || strchr(optarg, '=')) {
				msg_usage("--env takes a variable name");
				return EXIT_USAGE;
			}
			envnames[nenv++] = optarg;
			break;
		case 't':
			if (num_parse_duration(optarg, &v) < 0 || v == 0 || v > 86400) {
				msg_usage("invalid --timeout: %s", optarg);
				return EXIT_USAGE;
			}
			cfg.timeout_ms = (int64_t)v * 1000;
			break;
		case 'm':
			if (num_parse_u64(optarg, 1024, JSON_MAX_LEN, &v) < 0) {
				msg_usage("invalid --max-message (1024 to %d): %s", JSON_MAX_LEN, optarg);
				return EXIT_USAGE;
			}
			cfg.max_msg = (size_t)v;
			break;
		case OPT_AUDIT:
			audit = optarg;
			break;
		case OPT_AUDIT_FD:
			if (num_parse_int(optarg, 0, 1 << 20, &fd) < 0 || fcntl(fd, F_GETFD) < 0) {
				msg_usage("--audit-fd: not an open descriptor: %s", optarg);
				return EXIT_USAGE;
			}
			fcntl(fd, F_SETFD, FD_CLOEXEC);
			cfg.audit_fd = fd;
			break;
		case 'u':
			cfg.url = optarg;
			break;
		case OPT_TOKEN_FILE:
			token_file = optarg;
			break;
		case OPT_TOKEN_FD:
			if (num_parse_int(optarg, 0, 1 << 20, &token_fd) < 0 || fcntl(token_fd, F_GETFD) < 0) {
				msg_usage("--token-fd: not an open descriptor: %s", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_LIDLE:
			if (num_parse_duration(optarg, &v) < 0 || v == 0 || v > 86400) {
				msg_usage("invalid --listen-idle: %s", optarg);
				return EXIT_USAGE;
			}
			cfg.http_idle_ms = (int64_t)v * 1000;
			idle_set = 1;
			break;
		case OPT_PROTOCOL:
			if (strcmp(optarg, "auto") == 0) {
				cfg.protocol = PROTO_AUTO;
			} else if (strcmp(optarg, "2026-07-28") == 0) {
				cfg.protocol = PROTO_MODERN;
			} else if (strcmp(optarg, "2025-11-25") == 0) {
				cfg.protocol = PROTO_LEGACY;
			} else {
				msg_usage("invalid --protocol (auto, 2026-07-28 or 2025-11-25): %s", optarg);
				return EXIT_USAGE;
			}
			protocol_set = 1;
			break;
		case OPT_CACERT:
			cfg.cacert = optarg;
			break;
		case OPT_LUNIX:
			cfg.listen_unix = optarg;
			break;
		case OPT_LHTTP:
			if (num_parse_int(optarg, 0, 65535, &cfg.listen_http) < 0) {
				msg_usage("invalid --listen-http port: %s", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_LTOKEN_FILE:
			ltoken_file = optarg;
			break;
		case OPT_LTOKEN_FD:
			if (num_parse_int(optarg, 0, 1 << 20, &ltoken_fd) < 0 || fcntl(ltoken_fd, F_GETFD) < 0) {
				msg_usage("--listen-token-fd: not an open descriptor: %s", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case OPT_VERSION:
			printf("mcp-proxy %s\n", CORRAL_VERSION);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (cfg.url && optind < argc) {
		msg_usage("either --url or a COMMAND, not both");
		return EXIT_USAGE;
	}
	if (!cfg.url && optind >= argc) {
		msg_usage("no upstream COMMAND");
		msg_hint("mcp-proxy --allow echo -- node server.js");
		return EXIT_USAGE;
	}
	if (!cfg.url && (token_file || token_fd >= 0 || cfg.cacert || protocol_set)) {
		msg_usage("--token-file, --token-fd, --cacert and --protocol need --url");
		return EXIT_USAGE;
	}
	if (token_file && token_fd >= 0) {
		msg_usage("either --token-file or --token-fd");
		return EXIT_USAGE;
	}
	if (cfg.url && !http_url_ok(cfg.url)) {
		msg_usage("--url must be https://, or http:// to 127.0.0.1, [::1] or localhost");
		return EXIT_USAGE;
	}
	if (token_file || token_fd >= 0) {
		static char token[TOKEN_MAX + 1];
		const char *why = NULL;
		if (token_read(token_file, token_fd, token, sizeof token, &why) < 0) {
			if (why)
				msg_fatal("bearer token %s %s", token_file ? token_file : "from --token-fd", why);
			else
				msg_fatal_sys("unable to read the bearer token %s", token_file ? token_file : "from --token-fd");
			if (token_file && why)
				msg_hint("chmod 0600 %s", token_file);
			return EXIT_USAGE;
		}
		cfg.token = token;
	}
	if (cfg.listen_http >= 0 && !ltoken_file && ltoken_fd < 0) {
		msg_usage("--listen-http needs --listen-token-file or --listen-token-fd");
		return EXIT_USAGE;
	}
	if (cfg.listen_http < 0 && idle_set) {
		msg_usage("--listen-idle needs --listen-http");
		return EXIT_USAGE;
	}
	if (cfg.listen_http < 0 && (ltoken_file || ltoken_fd >= 0)) {
		msg_usage("--listen-token-file and --listen-token-fd need --listen-http");
		return EXIT_USAGE;
	}
	if (ltoken_file || ltoken_fd >= 0) {
		static char ltoken[TOKEN_MAX + 1];
		const char *why = NULL;
		const char *what = ltoken_file ? ltoken_file : "from --listen-token-fd";
		if (ltoken_file && ltoken_fd >= 0) {
			msg_usage("either --listen-token-file or --listen-token-fd");
			return EXIT_USAGE;
		}
		if (token_read(ltoken_file, ltoken_fd, ltoken, sizeof ltoken, &why) < 0) {
			if (why)
				msg_fatal("listen token %s %s", what, why);
			else
				msg_fatal_sys("unable to read the listen token %s", what);
			return EXIT_USAGE;
		}
		cfg.listen_token = ltoken;
	}
	cfg.up_argv = argv + optind;
	if (audit) {
		cfg.audit_fd = open(audit, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (cfg.audit_fd < 0) {
			msg_fatal_sys("unable to open the audit log %s", audit);
			return EXIT_USAGE;
		}
	}
	/* The upstream's whole environment: PATH and the names asked for. */
	cfg.up_envp = calloc(nenv + 2, sizeof *cfg.up_envp);
	if (!cfg.up_envp) {
		msg_fatal("out of memory");
		return EXIT_USAGE;
	}
	size_t k = 0;
	const char *path = env_get(environ, "PATH");
	if (path && asprintf(&cfg.up_envp[k++], "PATH=%s", path) < 0)
		return EXIT_USAGE;
	for (size_t i = 0; i < nenv; i++) {
		const char *val = env_get(environ, envnames[i]);
		if (val == NULL || strcmp(envnames[i], "PATH") == 0)
			continue;
		if (asprintf(&cfg.up_envp[k++], "%s=%s", envnames[i], val) < 0)
			return EXIT_USAGE;
	}
	return proxy_run(&cfg);
}
