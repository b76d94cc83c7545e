/*
 * mcpmeta: the MCP 2026-07-28 request metadata. Pure: no I/O.
 * Streamable HTTP mirrors the body's method into Mcp-Method and, for
 * tools/call and prompts/get (params.name) and resources/read (params.uri),
 * the target into Mcp-Name; a value that is not plain header-safe ASCII is
 * sent as =?base64?...?= (spec 2026-07-28, basic/transports/streamable-http,
 * "Standard Request Headers" and "Value Encoding").
 */
#ifndef CORRAL_MCPMETA_H
#define CORRAL_MCPMETA_H
#include <stddef.h>
#include "rpc.h"

#define REV_2026_07_28 "2026-07-28"
#define REV_2025_11_25 "2025-11-25"

enum {
	RPC_HEADER_MISMATCH = -32020,	/* HeaderMismatch, 2026-07-28 schema */
	MCPMETA_NAME_MAX = 4096,
	MCPMETA_HDR_MAX = 4 * ((MCPMETA_NAME_MAX + 2) / 3) + 16,
};

/* The Mcp-Name source of request m, unescaped into out (cap bytes, NUL
 * added). Returns its length; -2 when the method names nothing; -1 when
 * the value is missing, duplicated, not a string or too long. */
int mcpmeta_name(const struct rpc_msg *m, char *out, size_t cap);
/* v[0..n) as a header value: as is when every byte is 0x20-0x7e with no
 * space at either end and it does not look like the sentinel, else
 * =?base64?B64?=. Returns the length written (NUL added), or -1. */
int mcpmeta_hdr_encode(const char *v, size_t n, char *out, size_t cap);
/* A header value back to bytes (the sentinel decoded). Returns the
 * length, or -1 (bad base64, bad characters, too long). */
int mcpmeta_hdr_decode(const char *v, size_t n, char *out, size_t cap);

/* Headers a client sent, checked against the body m. has_*: the header
 * was present. modern: the request declared MCP-Protocol-Version
 * 2026-07-28, which makes Mcp-Method (and Mcp-Name where the method names
 * a target) required. Returns 0, or -1 with why set (a static string). */
int mcpmeta_check(const struct rpc_msg *m, int modern, const char *method, size_t methodn,
    int has_method, const char *name, size_t namen, int has_name, const char **why);

/* The MCP-Protocol-Version header (hv[0..hvn), has: present) against the
 * body's params._meta "io.modelcontextprotocol/protocolVersion": when both
 * are there they must be equal, and a 2026-07-28 header needs the body to
 * say so too. Returns 0, or -1 with why set. */
int mcpmeta_version_check(const struct rpc_msg *m, const char *hv, size_t hvn, int has, const char **why);

/* Request m with params._meta carrying the 2026-07-28 protocol version and
 * client capabilities (added where absent, the version replaced where
 * present), appended to out as one line without the newline. -1: no
 * memory, or params/_meta not objects. */
int mcpmeta_add(const struct rpc_msg *m, struct buf *out);

#endif
