#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpd.h"
#include "num.h"

static void
copy(char *dst, size_t cap, const char *s, size_t n, int *over)
{
	if (n >= cap) {
		*over = 1;
		n = cap - 1;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int
httpd_parse(const char *buf, size_t len, struct http_req *r)
{
	const char *end = NULL, *p, *e, *sp;
	size_t i;
	int over = 0;

	for (i = 3; i < len && i < HTTPD_HEAD_MAX; i++)
		if (buf[i - 3] == '\r' && buf[i - 2] == '\n' && buf[i - 1] == '\r' && buf[i] == '\n') {
			end = buf + i + 1;
			break;
		}
	if (!end)
		return len >= HTTPD_HEAD_MAX ? -1 : 0;
	memset(r, 0, sizeof *r);
	r->clen = -1;
	r->head_len = (size_t)(end - buf);
	/* request line: METHOD SP PATH SP HTTP/1.x */
	e = memchr(buf, '\r', r->head_len);
	sp = memchr(buf, ' ', (size_t)(e - buf));
	if (!sp || sp == buf)
		return -1;
	copy(r->method, sizeof r->method, buf, (size_t)(sp - buf), &over);
	p = sp + 1;
	sp = memchr(p, ' ', (size_t)(e - p));
	if (!sp || sp == p || (size_t)(e - sp - 1) != 8 || strncmp(sp + 1, "HTTP/1.", 7) != 0)
		return -1;
	copy(r->path, sizeof r->path, p, (size_t)(sp - p), &over);
	for (p = e + 2; p < end - 2; p = e + 2) {
		const char *c, *v;
		size_t k, vn;
		e = memchr(p, '\r', (size_t)(end - p));
		if (!e || e[1] != '\n')
			return -1;
		c = memchr(p, ':', (size_t)(e - p));
		if (!c || c == p)
			return -1;
		for (const char *q = p; q < c; q++)
			if (*q == ' ' || *q == '\t' || (unsigned char)*q < 0x21)
				return -1;	/* no space before the colon, no folding */
		k = (size_t)(c - p);
		for (v = c + 1; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		vn = (size_t)(e - v);
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
			vn--;
		for (size_t j = 0; j < vn; j++)
			if ((unsigned char)v[j] < 0x20 && v[j] != '\t')
				return -1;
#define H(name, field) (k == sizeof name - 1 && strncasecmp(p, name, k) == 0)
		if (H("host", host)) {
			if (r->host[0])
				return -1;	/* twice: ambiguous */
			copy(r->host, sizeof r->host, v, vn, &over);
		} else if (H("origin", origin)) {
			if (r->has_origin)
				return -1;
			r->has_origin = 1;
			copy(r->origin, sizeof r->origin, v, vn, &over);
		} else if (H("authorization", auth)) {
			if (r->auth[0])
				return -1;
			copy(r->auth, sizeof r->auth, v, vn, &over);
		} else if (H("content-type", ctype)) {
			copy(r->ctype, sizeof r->ctype, v, vn, &over);
		} else if (H("accept", accept)) {
			copy(r->accept, sizeof r->accept, v, vn, &over);
		} else if (H("content-length", clen)) {
			char num[24];
			uint64_t n;
			if (r->clen >= 0 || vn == 0 || vn >= sizeof num)
				return -1;
			memcpy(num, v, vn);
			num[vn] = '\0';
			if (num_parse_u64(num, 0, (uint64_t)1 << 40, &n) < 0)
				return -1;
			r->clen = (long long)n;
		} else if (H("mcp-method", mm)) {
			if (r->has_mcp_method)
				return -1;	/* twice: which one would a gateway read? */
			r->has_mcp_method = 1;
			copy(r->mcp_method, sizeof r->mcp_method, v, vn, &over);
		} else if (H("mcp-name", mn)) {
			if (r->has_mcp_name)
				return -1;
			r->has_mcp_name = 1;
			copy(r->mcp_name, sizeof r->mcp_name, v, vn, &over);
		} else if (H("mcp-protocol-version", mv)) {
			if (r->mcp_version[0])
				return -1;
			copy(r->mcp_version, sizeof r->mcp_version, v, vn, &over);
		} else if (H("connection", conn)) {
			r->close = vn == 5 && strncasecmp(v, "close", 5) == 0;
		} else if (H("transfer-encoding", te)) {
			r->chunked = 1;	/* refused: bodies have a length here */
		}
#undef H
	}
	return over ? -1 : 1;
}

int
httpd_host_ok(const char *h, int port)
{
	char a[64], b[64];

	snprintf(a, sizeof a, "127.0.0.1:%d", port);
	snprintf(b, sizeof b, "localhost:%d", port);
	return strcmp(h, a) == 0 || strcmp(h, b) == 0;
}

/* Compare without an early exit, so timing says nothing about the token. */
int
httpd_same(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), i;
	unsigned char d = na != nb;

	for (i = 0; i < na; i++)
		d |= (unsigned char)(a[i] ^ b[i % (nb ? nb : 1)]);
	return d == 0;
}

int
httpd_check(const struct http_req *r, int port, const char *token, size_t max)
{
	char want[300];

	if (!httpd_host_ok(r->host, port))
		return 403;
	if (r->has_origin) {
		snprintf(want, sizeof want, "http://%s", r->host);
		if (strcmp(r->origin, want) != 0)
			return 403;
	}
	if (strcmp(r->path, "/mcp") != 0)
		return 404;
	if (strncmp(r->auth, "Bearer ", 7) != 0 || !httpd_same(r->auth + 7, token))
		return 401;
	if (strcmp(r->method, "POST") != 0)
		return 405;
	if (strncasecmp(r->ctype, "application/json", 16) != 0 ||
	    (r->ctype[16] != '\0' && r->ctype[16] != ';'))
		return 415;
	if (!strstr(r->accept, "application/json") || !strstr(r->accept, "text/event-stream"))
		return 406;
	if (r->chunked || r->clen < 0)
		return 411;
	if ((unsigned long long)r->clen > max)
		return 413;
	return 0;
}

const char *
httpd_reason(int s)
{
	switch (s) {
	case 200: return "OK";
	case 202: return "Accepted";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 415: return "Unsupported Media Type";
	default: return "Error";
	}
}

int
httpd_in_feed(struct httpd_in *in, const void *p, size_t n, const struct httpd_endpoint *ep)
{
	struct http_req r;
	int st;

	if (in->rd.len + n > HTTPD_HEAD_MAX + ep->max_body || buf_add(&in->rd, p, n) < 0)
		return 413;
	if (!in->req) {
		st = httpd_parse(in->rd.p, in->rd.len, &r);
		if (st == 0)
			return HTTPD_MORE;
		if (st < 0)
			return 400;
		st = httpd_check(&r, ep->port, ep->token, ep->max_body);
		explicit_bzero(r.auth, sizeof r.auth);
		if (st)
			return st;
		if ((in->req = malloc(sizeof r)) == NULL)
			return 413;
		memcpy(in->req, &r, sizeof r);
	}
	if (in->rd.len < in->req->head_len + (size_t)in->req->clen)
		return HTTPD_MORE;
	return HTTPD_READY;
}

const char *
httpd_in_body(const struct httpd_in *in, size_t *n)
{
	*n = (size_t)in->req->clen;
	return in->rd.p + in->req->head_len;
}

int
httpd_in_has_head(const struct httpd_in *in)
{
	return in->req != NULL;
}

void
httpd_in_reset(struct httpd_in *in)
{
	free(in->req);
	in->req = NULL;
	buf_free(&in->rd);
}

void
httpd_in_free(struct httpd_in *in)
{
	httpd_in_reset(in);
}

int
httpd_head(struct buf *out, int status, const char *ctype, size_t clen, int has_len, int keep)
{
	char h[256];
	int bad;

	snprintf(h, sizeof h, "HTTP/1.1 %d %s\r\n%s%s%sCache-Control: no-store\r\nConnection: %s\r\n",
	    status, httpd_reason(status), ctype ? "Content-Type: " : "", ctype ? ctype : "", ctype ? "\r\n" : "",
	    keep ? "keep-alive" : "close");
	bad = buf_adds(out, h) < 0;
	if (has_len) {
		snprintf(h, sizeof h, "Content-Length: %zu\r\n", clen);
		bad |= buf_adds(out, h) < 0;
	}
	if (status == 401)
		bad |= buf_adds(out, "WWW-Authenticate: Bearer\r\n") < 0;
	if (status == 405)
		bad |= buf_adds(out, "Allow: POST\r\n") < 0;
	bad |= buf_adds(out, "\r\n") < 0;
	return bad ? -1 : 0;
}

int
httpd_sse_event(struct buf *out, const char *msg, size_t n)
{
	return buf_adds(out, "event: message\ndata: ") < 0 || buf_add(out, msg, n) < 0 ||
	    buf_adds(out, "\n\n") < 0 ? -1 : 0;
}
