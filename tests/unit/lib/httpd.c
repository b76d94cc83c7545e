/* lib/httpd and lib/buf: the loopback MCP endpoint's request framing. */
#include <string.h>

#include "buf.h"
#include "httpd.h"
#include "tap.h"

static const char TOK[] = "s3cret-token";

static const char *
req(const char *extra, const char *body)
{
	static char r[8192];

	snprintf(r, sizeof r, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
	    "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
	    "Accept: application/json, text/event-stream\r\nContent-Length: %zu\r\n%s\r\n%s",
	    TOK, strlen(body), extra, body);
	return r;
}

static int
feed_all(struct httpd_in *in, const char *s, size_t step)
{
	struct httpd_endpoint ep = { 8080, TOK, 1024 };
	size_t n = strlen(s), i;
	int st = HTTPD_MORE;

	for (i = 0; i < n && st == HTTPD_MORE; i += step)
		st = httpd_in_feed(in, s + i, n - i < step ? n - i : step, &ep);
	return st;
}

int
main(void)
{
	struct buf b = { 0 };
	struct httpd_in in = { 0 };
	struct http_req r;
	const char *body;
	size_t bn;

	ok(buf_adds(&b, "abc") == 0 && buf_add(&b, "def", 3) == 0 && strcmp(b.p, "abcdef") == 0, "buf appends");
	buf_consume(&b, 2);
	is_str(b.p, "cdef", "buf_consume drops the front");
	buf_consume(&b, 99);
	ok(b.len == 0 && b.p[0] == '\0', "buf_consume past the end empties it");
	buf_free(&b);
	ok(b.p == NULL && b.len == 0 && b.cap == 0, "buf_free resets");

	is_int(feed_all(&in, req("", "{\"a\":1}"), 1), HTTPD_READY, "a request fed byte by byte is ready");
	body = httpd_in_body(&in, &bn);
	ok(bn == 7 && memcmp(body, "{\"a\":1}", 7) == 0, "the body is the body");
	ok(in.req && in.req->auth[0] == '\0', "the token is wiped from the kept head");
	httpd_in_reset(&in);
	ok(!httpd_in_has_head(&in) && in.rd.len == 0, "reset forgets the request");

	is_int(feed_all(&in, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n", 7), HTTPD_MORE, "half a head: more");
	httpd_in_reset(&in);
	is_int(feed_all(&in, req("", "{}"), 4096), HTTPD_READY, "in one piece: ready");
	httpd_in_reset(&in);
	is_int(feed_all(&in, req("Origin: http://evil.example\r\n", "{}"), 4096), 403, "a foreign Origin: 403");
	httpd_in_reset(&in);
	is_int(feed_all(&in, req("Origin: http://127.0.0.1:8080\r\n", "{}"), 4096), HTTPD_READY, "our Origin: ready");
	httpd_in_reset(&in);
	is_int(feed_all(&in, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer s3cret-tokeX\r\n"
	    "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	    "Content-Length: 2\r\n\r\n{}", 4096), 401, "a wrong token: 401");
	httpd_in_reset(&in);
	is_int(feed_all(&in, "POST /mcp HTTP/1.1\r\nHost: evil:8080\r\n\r\n", 4096), 403, "a foreign Host: 403");
	httpd_in_reset(&in);
	is_int(feed_all(&in, "GARBAGE\r\n\r\n", 4096), 400, "a malformed head: 400");
	httpd_in_reset(&in);
	{
		static char big[2048];
		memset(big, 'x', sizeof big - 1);
		is_int(feed_all(&in, req("", big), 4096), 413, "a body over max_body: 413");
	}
	httpd_in_free(&in);

	ok(httpd_parse("POST /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 41, &r) == -1, "two Host headers: malformed");
	ok(httpd_host_ok("localhost:9", 9) && !httpd_host_ok("localhost:90", 9), "host_ok names the port exactly");
	ok(httpd_same("abc", "abc") && !httpd_same("abd", "abc") && !httpd_same("ab", "abc") && !httpd_same("", "abc"),
	    "httpd_same compares whole strings");

	ok(httpd_head(&b, 401, NULL, 0, 1, 0) == 0 && strstr(b.p, "HTTP/1.1 401 Unauthorized\r\n") == b.p &&
	    strstr(b.p, "WWW-Authenticate: Bearer\r\n") && strstr(b.p, "Connection: close\r\n") &&
	    strstr(b.p, "Content-Length: 0\r\n") && strcmp(b.p + b.len - 4, "\r\n\r\n") == 0, "httpd_head for 401");
	b.len = 0;
	ok(httpd_head(&b, 200, "text/event-stream", 0, 0, 1) == 0 && !strstr(b.p, "Content-Length") &&
	    strstr(b.p, "Content-Type: text/event-stream\r\n") && strstr(b.p, "Connection: keep-alive\r\n"),
	    "httpd_head for an event stream");
	b.len = 0;
	ok(httpd_sse_event(&b, "{}", 2) == 0 && strcmp(b.p, "event: message\ndata: {}\n\n") == 0, "httpd_sse_event");
	buf_free(&b);
	return done_testing();
}
