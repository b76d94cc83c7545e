/* egress-proxy's request head parser: the rewrite of absolute-form, and
 * the heads it refuses (each found by fuzz/egress-proxy/request.c or its
 * kin), each beside the well-formed head it differs from. */
#include <string.h>

#include "../../../egress-proxy/request.h"
#include "tap.h"

static char out[EREQ_MAX_HEAD];
static struct ereq r;
static const char *why;

static int
parse(const char *h)
{
	why = "";
	memset(out, 0, sizeof out);
	return ereq_parse(h, strlen(h), &r, out, sizeof out, &why);
}

int
main(void)
{
	is_int(parse("GET http://Example.COM:8080/a?b HTTP/1.1\r\nHost: evil.test\r\n"
	    "Proxy-Authorization: Basic eA==\r\nProxy-Foo: 1\r\nAccept: */*\r\n\r\n"), 0, "absolute-form GET");
	is_str(r.host, "example.com", "the host, normalized");
	is_int(r.port, 8080, "its port");
	is_str(out, "GET /a?b HTTP/1.1\r\nHost: Example.COM:8080\r\nConnection: close\r\nAccept: */*\r\n\r\n",
	    "rewritten: origin-form, Host from the URL, every Proxy-* header gone");
	is_int(parse("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n"), 0, "CONNECT");
	is_int(r.connect, 1, "... a tunnel");
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nAccept: x"), 1, "an unfinished head: read more");

	/* a bare LF hides a Host header inside another line for us, not for
	 * a lenient server (the fuzzer's first finding, reduced) */
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nX-A: a\nHost: evil.test\r\n\r\n"), -1,
	    "a bare LF inside a header line is refused");
	is_str(why, "a bare CR or LF in the request head", "... and says so");
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nX-A: a\rHost: evil.test\r\n\r\n"), -1,
	    "a bare CR too");
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nX-A: a\r\nHost: evil.test\r\n\r\n"), 0,
	    "control: the same as two lines is accepted (and its Host replaced)");
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nproxy-authorizat\xff" "ion: 1\r\n\r\n"), -1,
	    "a header name that is not a token is refused");
	is_str(why, "a malformed header line", "... and says so");
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nno colon here\r\n\r\n"), -1, "a header line with no colon");
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nX-A: a\x01" "b\r\n\r\n"), -1, "a control byte in a value");
	is_int(parse("GET http://example.com/ HTTP/1.1\r\nX-A: a\tb\r\n\r\n"), 0, "control: a tab in a value");
	is_int(parse("\rA http://example.com/ HTTP/1.1\r\n\r\n"), -1, "a method that is not a token");
	is_int(parse("GET http://example.com/\x7f HTTP/1.1\r\n\r\n"), -1, "a control byte in the target");
	is_int(parse("GET http://example.com/ HTTP/1.\x01\r\n\r\n"), -1, "a version other than 1.0 and 1.1");
	is_int(parse("GET http://example.com/ HTTP/1.0\r\n\r\n"), 0, "control: HTTP/1.0");
	is_int(parse("CONNECT 169.254.169.254.:80 HTTP/1.1\r\n\r\n"), 0, "a dotted quad with a trailing dot");
	is_int(r.kind, HOST_IP4, "... is the IPv4 literal, not a name");
	return done_testing();
}
