/* serve: MCP over stdio (newline-delimited JSON-RPC), 2025-11-25 with
 * initialize and 2026-07-28 without (server/discover, _meta), as mcp-proxy
 * speaks them. Every tools/call takes the store's lock (and the lock of
 * the session it works on, sess_pick) with the configuration read fresh;
 * over stdio one at a time, over HTTP each in a worker (http.h). I/O. */
#ifndef SBX_SERVE_H
#define SBX_SERVE_H
#include "rpc.h"
#include "sbx.h"

enum { SERVE_LINE_MAX = 64 << 20 };

/* One request or notification (line[0..len)); the answer, if any, is
 * appended to out (one line). */
void serve_line(struct sbx *s, const char *line, size_t len, struct buf *out);
/* Read from in, write to out, until end of input. Returns 0, or -1 on a
 * read or write error. */
int serve_stdio(struct sbx *s, int in, int out);
/* Under the store lock: read the configuration and reap idle sessions.
 * -1 with a reason (the configuration's error). */
int serve_prepare(struct sbx *s, char *err, size_t errn);

#endif
