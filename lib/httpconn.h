/*
 * httpconn: one client connection to a loopback Streamable HTTP endpoint
 * (lib/httpd frames its requests), shared by mcp-proxy and sandbox-mcp:
 * one request at a time, keep-alive, the answer's head, the 2026-07-28
 * header checks, and the deadlines that keep slow or tokenless clients
 * from holding the server (slowloris). Pure: the caller passes the time
 * (milliseconds, monotonic) and does the I/O.
 *
 * Connections that have not shown a checked head may hold at most
 * HTTPC_MAX_PREAUTH slots (the oldest gives way to a new one), so clients
 * presenting the token always find room; a head must be complete within
 * HTTPC_HEAD_MS of its first byte (or of the connection), and a whole
 * request within the idle time of the last answer.
 */
#ifndef CORRAL_HTTPCONN_H
#define CORRAL_HTTPCONN_H
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "httpd.h"
#include "rpc.h"

enum { HTTPC_MAX_PREAUTH = 48, HTTPC_HEAD_MS = 5000 };

struct httpc {
	int started, closing, got;	/* answer begun; close once flushed; message in */
	int keep;		/* keep-alive: another request may follow */
	struct httpd_in in;	/* the request being read */
	int64_t idle_at;	/* waiting since then for a whole request */
	int64_t head_at;	/* its head began then (0: no byte of it yet) */
};

/* A connection accepted at now. */
void httpc_init(struct httpc *h, int64_t now);
/* n bytes read at now: httpd_in_feed's answer (HTTPD_MORE, HTTPD_READY
 * with got set, or a status to answer and close with). */
int httpc_feed(struct httpc *h, const void *p, size_t n, const struct httpd_endpoint *ep, int64_t now);
/* The head of the answer, queued on wr: keep-alive only for a length the
 * client knows and a status under 400. -1: out of memory. */
int httpc_head(struct httpc *h, struct buf *wr, int status, const char *ctype, size_t clen, int has_len);
/* An answer of status with the JSON body[0..n) queued on wr, then close
 * (once flushed, or kept alive: httpc_reuse). -1: out of memory. */
int httpc_json(struct httpc *h, struct buf *wr, int status, const char *body, size_t n);
/* An answer with no body (wr emptied first), then close. */
void httpc_status(struct httpc *h, struct buf *wr, int status);
/* The answer is flushed and the connection kept alive: ready for the
 * next request (returns 1), or 0 when it is to close. */
int httpc_reuse(struct httpc *h, int64_t now);
/* When the connection must give its slot back (idle_ms: the idle time
 * allowed between requests), or 0 while an answer is due to it. */
int64_t httpc_due(const struct httpc *h, int64_t idle_ms);
/* 1 when it has not yet shown a checked head (nor been answered). */
int httpc_unproven(const struct httpc *h);

/* Choosing which unproven connection gives way: add each connection i
 * (in any order), then httpc_evict says which to close before a new one
 * is accepted (-1: none). */
struct httpc_oldest {
	int n, at;
	int64_t since;
};
void httpc_oldest_add(struct httpc_oldest *o, const struct httpc *h, int i);
int httpc_evict(const struct httpc_oldest *o);

/* The request's Mcp-Method, Mcp-Name and MCP-Protocol-Version headers
 * against its body m (lib/mcpmeta; spec 2026-07-28, streamable-http
 * "Server Validation"). Returns 0, or -1 with why (a static string): to
 * be answered 400 with RPC_HEADER_MISMATCH, the body not acted on. */
int httpc_meta_check(const struct httpc *h, const struct rpc_msg *m, const char **why);

#endif
