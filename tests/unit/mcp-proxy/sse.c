/* mcp-proxy: the SSE parser, token and URL checks. */
#include <string.h>

#include "tap.h"
#include "../../../mcp-proxy/http_up.h"
#include "../../../mcp-proxy/sse.h"
#include "token.h"

static char got[8][128], ev[8][32];
static int ngot;

static void
take(void *ctx, const char *e, const char *d, size_t n)
{
	(void)ctx;
	if (ngot < 8) {
		snprintf(ev[ngot], sizeof ev[0], "%s", e);
		snprintf(got[ngot++], sizeof got[0], "%.*s", (int)n, d);
	}
}

int
main(void)
{
	struct sse s = { .max = 64 };
	const char *stream = ": hello\r\nevent: message\r\nid: 7\r\ndata: {\"a\":\r\ndata:1}\r\n\r\ndata: x\n\ndata: y\r\rretry: 5\n\n";
	size_t i;

	/* byte by byte: every split point */
	for (i = 0; i < strlen(stream); i++)
		sse_feed(&s, stream + i, 1, take, NULL);
	is_int(ngot, 3, "three events");
	is_str(got[0], "{\"a\": 1}", "data lines joined with a space, CRLF, comment and fields ignored");
	is_str(got[1], "x", "LF endings");
	is_str(got[2], "y", "CR endings");
	is_str(ev[0], "message", "event type reported");
	is_str(ev[1], "", "no event field: empty type");
	ngot = 0;
	sse_feed(&s, "event: endpoint\ndata: /message?sessionId=1\n\n", strlen("event: endpoint\ndata: /message?sessionId=1\n\n"), take, NULL);
	is_str(ev[0], "endpoint", "legacy endpoint event");
	is_str(got[0], "/message?sessionId=1", "its data");
	ngot = 0;
	const char *longline = "data: 0123456789012345678901234567890123456789012345678901234567890123456789\n\n";
	is_int(sse_feed(&s, longline, strlen(longline), take, NULL), -1,
	    "over-long line reported");
	is_int(ngot, 0, "and not dispatched");
	is_int(sse_feed(&s, "data: ok\n\n", strlen("data: ok\n\n"), take, NULL), 0, "parser recovers");
	is_str(got[0], "ok", "next event fine");
	ngot = 0;
	const char *big = "data: 0123456789012345678901234567890\ndata: 0123456789012345678901234567890\ndata: z\n\n";
	sse_feed(&s, big, strlen(big), take, NULL);
	is_int(ngot, 0, "event over the limit in total dropped whole");
	sse_feed(&s, "data: ok2\n\n", strlen("data: ok2\n\n"), take, NULL);
	is_str(got[0], "ok2", "recovers after");
	sse_free(&s);

	/* id and retry: what a reconnection needs */
	struct sse r = { .max = 64, .retry = -1 };
	const char *prime = "id: event-2\nretry: 500\ndata: \n\n";
	ngot = 0;
	sse_feed(&r, prime, strlen(prime), take, NULL);
	is_int(ngot, 0, "a priming event (empty data) is not dispatched");
	is_str(r.last_id, "event-2", "but its id is the last event id");
	is_int((int)r.retry, 500, "retry: 500 ms");
	sse_feed(&r, "retry: 5x\nretry:\ndata: a\n\n", strlen("retry: 5x\nretry:\ndata: a\n\n"), take, NULL);
	is_int((int)r.retry, 500, "a retry that is not all digits (or empty) is ignored");
	is_str(r.last_id, "event-2", "an event without an id keeps the last one");
	sse_feed(&r, "id: a\x01b\ndata: b\n\n", strlen("id: a\x01b\ndata: b\n\n"), take, NULL);
	is_str(r.last_id, "event-2", "an id with a control character is ignored (it goes into a header)");
	sse_feed(&r, "id: x\n", strlen("id: x\n"), take, NULL);
	is_str(r.last_id, "event-2", "an id counts only once its event is complete");
	sse_feed(&r, "\n", 1, take, NULL);
	is_str(r.last_id, "x", "then it does");
	sse_free(&r);

	ok(token_valid("abc.DEF-123_~", 13), "token charset");
	ok(!token_valid("a b", 3), "space refused");
	ok(!token_valid("a\r\nX: y", 7), "CRLF refused");
	ok(!token_valid("", 0), "empty refused");
	ok(!token_valid("\xc3\xa9", 2), "non-ASCII refused");

	ok(http_url_ok("https://mcp.example.com/mcp"), "https anywhere");
	ok(http_url_ok("http://127.0.0.1:8080/mcp"), "http to 127.0.0.1");
	ok(http_url_ok("http://localhost/mcp"), "http to localhost");
	ok(http_url_ok("http://[::1]:9/mcp"), "http to ::1");
	ok(!http_url_ok("http://127.0.0.1.evil.com/mcp"), "lookalike loopback refused");
	ok(!http_url_ok("http://localhost.evil.com/"), "localhost. prefix refused");
	ok(!http_url_ok("http://example.com/"), "plain http elsewhere refused");
	ok(!http_url_ok("ftp://x/"), "other schemes refused");
	ok(!http_url_ok("https://"), "empty host refused");
	return done_testing();
}
