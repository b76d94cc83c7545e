/* proxy: the event loop between downstream clients and one upstream. */
#ifndef MCP_PROXY_H
#define MCP_PROXY_H
#include <stddef.h>
#include <stdint.h>
#include "policy.h"

struct proxy_config {
	struct allowlist allow;
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
};

/* Serve stdin/stdout until stdin closes (and in-flight calls are answered)
 * or a terminating signal. Returns an exit status. */
int proxy_run(const struct proxy_config *cfg);

#endif
