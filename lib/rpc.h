/*
 * rpc: JSON-RPC 2.0 message logic (mcp-proxy, sandbox-mcp). Pure: no I/O.
 * A message is one JSON object (MCP has no batches since 2025-06-18).
 */
#ifndef MCP_RPC_H
#define MCP_RPC_H
#include <stddef.h>
#include "buf.h"
#include "json.h"

enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_UPSTREAM_DOWN = -32000,	/* implementation-defined range */
	RPC_UPSTREAM_TIMEOUT = -32001,
};

enum { RPC_MAX_TOKENS = 1 << 18 };

/* Token storage reused from message to message. */
struct rpc_toks {
	jsmntok_t *t;
	unsigned cap;
};
void rpc_toks_free(struct rpc_toks *tk);

enum rpc_kind { RPC_REQUEST = 1, RPC_NOTIFY, RPC_RESPONSE };

struct rpc_msg {
	const char *js;
	size_t len;
	jsmntok_t *t;
	int n;
	enum rpc_kind kind;
	int id, method, params, result, error;	/* token indexes, -1 when absent */
};

/* Parse and validate js[0..len). Returns 0, or a negative JSON-RPC error
 * code: RPC_PARSE_ERROR (not JSON, invalid UTF-8, control characters),
 * RPC_INVALID_REQUEST (a batch, no or wrong "jsonrpc", id null or not a
 * string/integer, duplicate member, wrong member types, nested deeper than
 * JSON_MAX_DEPTH, checked before anything else), RPC_INTERNAL_ERROR
 * (too many tokens, out of memory). On RPC_INVALID_REQUEST m->id is set
 * when the message carried a usable id (so the error can answer it). */
int rpc_parse(const char *js, size_t len, struct rpc_toks *tk, struct rpc_msg *m);

/* The raw text of token i (a string with its quotes). */
void rpc_raw(const struct rpc_msg *m, int i, const char **p, size_t *n);
/* 1 when method is exactly s. */
int rpc_is(const struct rpc_msg *m, const char *s);

/* Append {"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":"MSG"}}\n
 * (id NULL: null). */
int rpc_error(struct buf *out, const char *id, size_t idn, int code, const char *msg);
/* Append {"jsonrpc":"2.0","id":ID,"result":RESULT}\n */
int rpc_result(struct buf *out, const char *id, size_t idn, const char *result, size_t rn);
/* Append the message with token i's raw text replaced by rep, then \n.
 * Raw newlines (only ever whitespace in valid JSON) become spaces. */
int rpc_splice(struct buf *out, const struct rpc_msg *m, int i, const char *rep, size_t repn);
/* The same with two tokens (i and j, neither inside the other) replaced. */
int rpc_splice2(struct buf *out, const struct rpc_msg *m, int i, const char *rep, size_t repn,
    int j, const char *rep2, size_t rep2n);

#endif
