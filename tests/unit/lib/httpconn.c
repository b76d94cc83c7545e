/* lib/httpconn: one loopback HTTP connection's life: keep-alive, the
 * answer's head, the deadlines and which tokenless connection gives way. */
#include <string.h>

#include "httpconn.h"
#include "tap.h"

static const char TOK[] = "s3cret-token";
static const struct httpd_endpoint EP = { 8080, TOK, 1024 };

static const char *
req(const char *extra, const char *body)
{
	static char r[4096];

	snprintf(r, sizeof r, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
	    "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
	    "Accept: application/json, text/event-stream\r\nContent-Length: %zu\r\n%s\r\n%s",
	    TOK, strlen(body), extra, body);
	return r;
}

int
main(void)
{
	struct httpc h, v[HTTPC_MAX_PREAUTH + 1];
	struct httpc_oldest o = { 0 };
	struct buf wr = { 0 };
	struct rpc_toks tk = { 0 };
	struct rpc_msg m;
	const char *s, *why;

	/* deadlines: idle from the connection, head from its first byte */
	httpc_init(&h, 1000);
	is_int(httpc_due(&h, 30000), 1000 + HTTPC_HEAD_MS, "a fresh connection: head due in HTTPC_HEAD_MS");
	is_int(httpc_due(&h, 2000), 3000, "an idle time under HTTPC_HEAD_MS bounds the head too");
	ok(httpc_unproven(&h), "no head yet: unproven");
	s = req("", "{}");
	is_int(httpc_feed(&h, s, 20, &EP, 1500), HTTPD_MORE, "part of a head: more");
	is_int(httpc_due(&h, 30000), 1000 + HTTPC_HEAD_MS, "trickling in: the head deadline stays");
	is_int(httpc_feed(&h, s + 20, strlen(s) - 21, &EP, 1600), HTTPD_MORE, "head whole, body not: more");
	ok(!httpc_unproven(&h), "a checked head: proven");
	is_int(httpc_due(&h, 30000), 31000, "proven, body pending: the idle deadline");
	ok(h.keep, "HTTP/1.1 without Connection: close: keep-alive");
	is_int(httpc_feed(&h, s + strlen(s) - 1, 1, &EP, 1700), HTTPD_READY, "body whole: ready");
	ok(h.got, "got set");
	is_int(httpc_due(&h, 30000), 0, "a request in: no deadline while it is answered");
	ok(httpc_json(&h, &wr, 200, "{}", 2) == 0 && h.started && h.closing, "JSON answer: started, closing");
	ok(wr.len > 2 && strstr(wr.p, "Connection: keep-alive") && strstr(wr.p, "Content-Length: 2\r\n"),
	    "answer head: keep-alive, length");
	ok(httpc_reuse(&h, 9000) && !h.started && !h.closing && !h.got && !httpd_in_has_head(&h.in),
	    "kept alive: reset for the next request");
	is_int(httpc_due(&h, 30000), 39000, "idle from the last answer; no head deadline before a byte");
	httpd_in_free(&h.in);

	/* an error answer closes */
	httpc_init(&h, 0);
	is_int(httpc_feed(&h, req("", "{}"), strlen(req("", "{}")), &EP, 1), HTTPD_READY, "a request");
	wr.len = 0;
	httpc_status(&h, &wr, 400);
	ok(!h.keep && strstr(wr.p, "Connection: close") != NULL, "a 400 is not kept alive");
	ok(!httpc_reuse(&h, 2), "not reused");
	httpd_in_free(&h.in);
	httpc_init(&h, 0);
	s = req("Connection: close\r\n", "{}");
	httpc_feed(&h, s, strlen(s), &EP, 1);
	ok(!h.keep, "Connection: close: not kept alive");
	httpd_in_free(&h.in);
	httpc_init(&h, 0);
	s = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 2\r\n\r\n{}";
	is_int(httpc_feed(&h, s, strlen(s), &EP, 1), 401, "no token: 401 from the feed");
	httpd_in_free(&h.in);

	/* tokenless connections: the oldest gives way at HTTPC_MAX_PREAUTH */
	for (int i = 0; i < HTTPC_MAX_PREAUTH; i++) {
		httpc_init(&v[i], 100 + (i * 7919) % HTTPC_MAX_PREAUTH);
		if (i == 5)
			httpc_feed(&v[i], req("", "{"), strlen(req("", "{")), &EP, 50);	/* proven */
	}
	for (int i = 0; i < HTTPC_MAX_PREAUTH - 1; i++)
		httpc_oldest_add(&o, &v[i], i);
	is_int(httpc_evict(&o), -1, "under the limit: nobody gives way");
	httpc_oldest_add(&o, &v[HTTPC_MAX_PREAUTH - 1], HTTPC_MAX_PREAUTH - 1);
	is_int(httpc_evict(&o), -1, "a proven connection does not count");
	httpc_init(&v[HTTPC_MAX_PREAUTH], 99);
	httpc_oldest_add(&o, &v[HTTPC_MAX_PREAUTH], HTTPC_MAX_PREAUTH);
	is_int(httpc_evict(&o), HTTPC_MAX_PREAUTH, "at the limit: the oldest unproven gives way");
	for (int i = 0; i <= HTTPC_MAX_PREAUTH; i++)
		httpd_in_free(&v[i].in);

	/* the 2026-07-28 headers against the body */
	httpc_init(&h, 0);
	s = req("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n",
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"_meta\":"
	    "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
	is_int(httpc_feed(&h, s, strlen(s), &(struct httpd_endpoint){ 8080, TOK, 4096 }, 1), HTTPD_READY, "a modern request");
	{
		size_t bn;
		const char *b = httpd_in_body(&h.in, &bn);
		ok(rpc_parse(b, bn, &tk, &m) == 0, "its body parses");
	}
	ok(httpc_meta_check(&h, &m, &why) < 0 && why != NULL, "Mcp-Method saying another method: refused");
	httpd_in_free(&h.in);
	httpc_init(&h, 0);
	s = req("", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	httpc_feed(&h, s, strlen(s), &EP, 1);
	{
		size_t bn;
		const char *b = httpd_in_body(&h.in, &bn);
		rpc_parse(b, bn, &tk, &m);
	}
	ok(httpc_meta_check(&h, &m, &why) == 0, "control: a 2025-11-25 request without the headers");
	httpd_in_free(&h.in);
	buf_free(&wr);
	rpc_toks_free(&tk);
	done_testing();
}
