/* proxy: the event loop between downstream clients and one upstream. */
#ifndef MCP_PROXY_H
#define MCP_PROXY_H
#include <stddef.h>
#include <stdint.h>
#include "toolallow.h"

struct proxy_config {
	struct allowlist allow;	/* tools, by exact name */
	struct allowlist resources;	/* resource URIs, by prefix */
	struct allowlist prompts;	/* prompts, by exact name */
	char **up_argv;		/* stdio upstream command */
	char **up_envp;		/* its whole environment */
	const char *url;	/* a Streamable HTTP upstream instead */
	const char *token;	/* its bearer token, or NULL */
	const char *cacert;	/* CA file instead of the system bundle */
	const char *listen_unix;	/* serve clients on this unix socket */
	int listen_http;	/* serve Streamable HTTP on 127.0.0.1:port (-1: no) */
	const char *listen_token;	/* the bearer token HTTP clients must send */
	int64_t timeout_ms;	/* per request */
	size_t max_msg;		/* bytes per message, either side */
	int audit_fd;		/* -1: no audit log */
	int64_t backoff_min_ms, backoff_max_ms;
	int64_t http_idle_ms;	/* an HTTP client must send a whole request within this */
	int protocol;		/* HTTP upstream: PROTO_AUTO, PROTO_MODERN or PROTO_LEGACY */
	int web_urls;		/* a tool argument "url" must be http:, https: or about:blank */
};

/* PROTO_AUTO: server/discover as 2026-07-28, falling back to initialize
 * (2025-11-25) when it is refused; PROTO_MODERN: no fallback; PROTO_LEGACY:
 * initialize only. */
enum { PROTO_AUTO, PROTO_MODERN, PROTO_LEGACY };

/* Serve stdin/stdout until stdin closes (and in-flight calls are answered)
 * or a terminating signal. Returns an exit status. */
int proxy_run(const struct proxy_config *cfg);

#endif
