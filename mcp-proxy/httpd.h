/* httpd: the downstream Streamable HTTP endpoint's request parsing and
 * checks. Pure: no I/O. */
#ifndef MCP_HTTPD_H
#define MCP_HTTPD_H
#include <stddef.h>

enum { HTTPD_HEAD_MAX = 16384 };

struct http_req {
	char method[8], path[256], host[256], origin[256], auth[4200], ctype[128], accept[256];
	/* the 2026-07-28 request metadata, checked against the body later */
	char mcp_method[256], mcp_name[2048], mcp_version[32];
	int has_mcp_method, has_mcp_name;
	long long clen;		/* -1: absent */
	int chunked, has_origin, close;	/* close: Connection: close */
	size_t head_len;	/* bytes of the head, blank line included */
};

/* Parse the head in buf[0..len). Returns 1 when it is complete (r filled),
 * 0 when more is needed, -1 when malformed or over HTTPD_HEAD_MAX. */
int httpd_parse(const char *buf, size_t len, struct http_req *r);
/* The status a request gets before its body is looked at: 0 to go on, or
 * 403 (Host or Origin not this loopback endpoint: DNS rebinding, browsers),
 * 404 (not /mcp), 401 (no or wrong bearer token), 405 (not POST),
 * 415 (not application/json), 406 (Accept lacks application/json or
 * text/event-stream), 411 (no Content-Length), 413 (body over max). */
int httpd_check(const struct http_req *r, int port, const char *token, size_t max);
/* The reason phrase for a status. */
const char *httpd_reason(int status);

#endif
