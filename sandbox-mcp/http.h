/* http: MCP over loopback Streamable HTTP, beside stdio (serve.h). The
 * endpoint is mcp-proxy's: lib/listen binds 127.0.0.1 only, lib/httpd
 * frames and checks each request (Host and Origin name this endpoint,
 * POST /mcp, the bearer token compared in constant time, a bounded body),
 * lib/httpconn keeps the deadlines and answers. Each request is answered
 * with plain JSON (202 for a notification). Each tools/call runs in a
 * worker process of its own (at most max_concurrent_calls), so a slow call
 * holds up no other client's; the rest is answered by the loop. I/O. */
#ifndef SBX_HTTP_H
#define SBX_HTTP_H
#include "sbx.h"

/* HTTP_WORKERS_MAX: max_concurrent_calls' ceiling. SBX_RPC_BUSY: the
 * error of a call refused over the bound. */
enum { HTTP_CONN_MAX = 64, HTTP_IDLE_MS = 30000, HTTP_WORKERS_MAX = 64, SBX_RPC_BUSY = -32003 };

/* Parse ADDR:PORT for --listen: 127.0.0.1 or localhost only, PORT 0-65535
 * (0: the kernel picks). Pure. -1 with a reason in err. */
int http_listen_arg(const char *arg, int *port, char *err, size_t errn);
/* Serve on listener lfd (bound to port) until SIGTERM, SIGINT or SIGHUP
 * (token: the bearer token, wiped in each worker).
 * Returns 0, or -1 with errno when the listener fails. */
int serve_http(struct sbx *s, int lfd, int port, char *token);

#endif
