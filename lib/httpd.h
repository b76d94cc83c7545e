/*
 * httpd: the server side of MCP's Streamable HTTP on a loopback listener,
 * for any program that serves MCP to a local client (mcp-proxy,
 * sandbox-mcp). Pure: no I/O, no exit.
 *
 * A connection's bytes go to httpd_in_feed until it says HTTPD_READY (the
 * head is parsed and checked, the whole body is there) or answers with an
 * HTTP status to refuse with. The checks are those a loopback endpoint
 * needs against browsers and other local users: Host and Origin must name
 * this endpoint (DNS rebinding), the path is /mcp, the bearer token is
 * compared in constant time, and a body has a bounded Content-Length.
 * The answer's head comes from httpd_head; an event stream's events from
 * httpd_sse_event.
 */
#ifndef CORRAL_HTTPD_H
#define CORRAL_HTTPD_H
#include <stddef.h>
#include "buf.h"

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
/* 1 when Host h is this endpoint: 127.0.0.1:PORT or localhost:PORT. */
int httpd_host_ok(const char *h, int port);
/* 1 when NUL-terminated a equals b, in time that depends on a's length
 * only (a is what the client sent, b the secret). */
int httpd_same(const char *a, const char *b);
/* The reason phrase for a status. */
const char *httpd_reason(int status);

/* ---- framing: one request at a time on a connection ---- */

struct httpd_endpoint {
	int port;		/* the port bound (what Host must name) */
	const char *token;	/* the bearer token clients must present */
	size_t max_body;	/* the largest body accepted */
};

struct httpd_in {
	struct buf rd;		/* the bytes of the request so far */
	struct http_req *req;	/* its head once checked (Authorization wiped) */
};

enum { HTTPD_MORE = 0, HTTPD_READY = 1 };

/* Add n bytes read from the connection. Returns HTTPD_MORE (read on),
 * HTTPD_READY (in->req is the head, httpd_in_body the body), or an HTTP
 * status >= 400 to answer and close with: 400 (malformed head), 413 (over
 * HTTPD_HEAD_MAX + max_body, or out of memory), or httpd_check's. Bytes
 * after the body are not kept: a client waits for each answer. */
int httpd_in_feed(struct httpd_in *in, const void *p, size_t n, const struct httpd_endpoint *ep);
/* The body of a request httpd_in_feed called ready. */
const char *httpd_in_body(const struct httpd_in *in, size_t *n);
/* 1 once the head has been read and passed the checks. */
int httpd_in_has_head(const struct httpd_in *in);
/* Forget the request (keep-alive: the next one starts afresh). */
void httpd_in_reset(struct httpd_in *in);
void httpd_in_free(struct httpd_in *in);

/* Append a response head: status line, Content-Type when ctype is not
 * NULL, Cache-Control: no-store, Connection (keep-alive when keep),
 * Content-Length when has_len, WWW-Authenticate for 401, Allow for 405,
 * then the blank line. -1: out of memory. */
int httpd_head(struct buf *out, int status, const char *ctype, size_t clen, int has_len, int keep);
/* Append one text/event-stream event of type message carrying msg[0..n)
 * (one line: no raw newline). -1: out of memory. */
int httpd_sse_event(struct buf *out, const char *msg, size_t n);

#endif
