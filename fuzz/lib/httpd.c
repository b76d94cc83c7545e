/* The downstream HTTP endpoint's request framing sees whatever a local
 * process sends: any bytes, in any split, give a status or "more", never a
 * crash, and a ready request's body lies inside what was fed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpd.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct httpd_endpoint ep = { 8080, "tok", 4096 };
	struct httpd_in in = { 0 };
	struct http_req r;
	struct buf b = { 0 };
	size_t off = 0, step = size ? (size_t)data[0] % 97 + 1 : 1;
	int st = HTTPD_MORE;

	if (httpd_parse((const char *)data, size, &r) == 1) {
		if (r.head_len > size)
			abort();
		(void)httpd_check(&r, 8080, "tok", 4096);
		(void)httpd_host_ok(r.host, 8080);
	}
	while (off < size && st == HTTPD_MORE) {
		size_t n = size - off < step ? size - off : step;
		st = httpd_in_feed(&in, data + off, n, &ep);
		off += n;
	}
	if (st == HTTPD_READY) {
		size_t bn;
		const char *body = httpd_in_body(&in, &bn);
		if (body < in.rd.p || body + bn > in.rd.p + in.rd.len || bn > ep.max_body)
			abort();
	} else if (st != HTTPD_MORE && (st < 400 || st > 499)) {
		abort();
	}
	(void)httpd_head(&b, st >= 400 ? st : 200, "application/json", size, 1, 0);
	(void)httpd_sse_event(&b, (const char *)data, size);
	buf_free(&b);
	httpd_in_free(&in);
	return 0;
}
