/* request: see request.h. */
#include <string.h>
#include <strings.h>

#include "num.h"
#include "request.h"

static const char *
find(const char *b, size_t n, const char *pat)
{
	size_t m = strlen(pat);

	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(b + i, pat, m) == 0)
			return b + i;
	return NULL;
}

/* host[:port] or [v6][:port] in a[0..n): normalized into r. */
static int
authority(const char *a, size_t n, int need_port, struct ereq *r, const char **why)
{
	const char *colon = NULL, *hs = a;
	size_t hn = n, i;
	char port[8];
	int p;

	if (n == 0)
		return *why = "no host in the request", -1;
	if (memchr(a, '@', n))
		return *why = "credentials in the URL are refused", -1;
	if (a[0] == '[') {
		const char *rb = memchr(a, ']', n);
		if (rb == NULL)
			return *why = "bad IPv6 literal", -1;
		hn = (size_t)(rb - a) + 1;
		if (hn < n) {
			if (a[hn] != ':')
				return *why = "bad authority", -1;
			colon = a + hn;
		}
	} else {
		for (i = 0; i < n; i++)
			if (a[i] == ':')
				colon = a + i;
		if (colon)
			hn = (size_t)(colon - a);
	}
	r->port = 80;
	if (colon) {
		size_t pl = n - (size_t)(colon - a) - 1;
		if (pl == 0 || pl >= sizeof port)
			return *why = "bad port", -1;
		memcpy(port, colon + 1, pl);
		port[pl] = '\0';
		if (num_parse_int(port, 1, 65535, &p) != 0)
			return *why = "bad port", -1;
		r->port = (uint16_t)p;
	} else if (need_port)
		return *why = "CONNECT needs host:port", -1;
	r->kind = host_normalize(hs, hn, 0, r->host);
	if (r->kind == HOST_BAD)
		return *why = "not a valid host name", -1;
	return 0;
}

/* RFC 9110's tchar: what a method and a header name are made of */
static int
tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int
token(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tchar((unsigned char)s[i]))
			return 0;
	return n > 0;
}

/* Every CR is followed by LF and every LF follows a CR: a bare one would
 * end a line for some servers and not for us (a header smuggled past the
 * rewrite). */
static int
crlf_only(const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((b[i] == '\r' && (i + 1 == n || b[i + 1] != '\n')) ||
		    (b[i] == '\n' && (i == 0 || b[i - 1] != '\r')))
			return 0;
	return 1;
}

/* "NAME: value" with a token name and no control byte but HTAB. */
static int
header_ok(const char *l, size_t n)
{
	const char *colon = memchr(l, ':', n);

	if (colon == NULL || !token(l, (size_t)(colon - l)))
		return 0;
	for (const char *p = colon + 1; p < l + n; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			return 0;
	return 1;
}

/* Proxy-* (every one: they are for us), and the hop-by-hop and Host
 * headers the rewrite replaces. */
static int
skip_header(const char *l, size_t n)
{
	static const char *const drop[] = { "proxy-", "connection:", "keep-alive:", "host:", "te:",
		"upgrade:", NULL };

	for (size_t i = 0; drop[i]; i++)
		if (n >= strlen(drop[i]) && strncasecmp(l, drop[i], strlen(drop[i])) == 0)
			return 1;
	return 0;
}

static int
put(char *out, size_t outn, size_t *o, const char *s, size_t n)
{
	if (*o + n > outn)
		return -1;
	memcpy(out + *o, s, n);
	*o += n;
	return 0;
}

int
ereq_parse(const char *buf, size_t len, struct ereq *r, char *out, size_t outn,
    const char **why)
{
	const char *end, *sp1, *sp2, *eol, *t, *auth, *path, *l, *nl;
	size_t o = 0, tn, an;

	memset(r, 0, sizeof *r);
	end = find(buf, len, "\r\n\r\n");
	if (end == NULL)
		return len >= EREQ_MAX_HEAD ? (*why = "request head too large", -1) : 1;
	r->head_len = (size_t)(end - buf) + 4;
	if (memchr(buf, '\0', r->head_len))
		return *why = "NUL in the request head", -1;
	if (!crlf_only(buf, r->head_len))
		return *why = "a bare CR or LF in the request head", -1;
	eol = find(buf, r->head_len, "\r\n");
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (sp1 == NULL || sp2 == NULL || !token(buf, (size_t)(sp1 - buf)) || eol - sp2 != 9 ||
	    (strncmp(sp2 + 1, "HTTP/1.1", 8) != 0 && strncmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return *why = "not an HTTP/1 request line", -1;
	t = sp1 + 1;
	tn = (size_t)(sp2 - t);
	for (size_t i = 0; i < tn; i++)
		if ((unsigned char)t[i] <= 0x20 || t[i] == 0x7f)
			return *why = "a control byte in the request target", -1;
	if (sp1 - buf == 7 && memcmp(buf, "CONNECT", 7) == 0) {
		r->connect = 1;
		return authority(t, tn, 1, r, why);
	}
	if (tn < 8 || strncasecmp(t, "http://", 7) != 0)
		return *why = tn >= 8 && strncasecmp(t, "https://", 8) == 0 ?
		    "https:// URLs go through CONNECT" : "the target must be an absolute http:// URL", -1;
	auth = t + 7;
	for (path = auth; path < t + tn && *path != '/' && *path != '?' && *path != '#'; path++)
		;
	an = (size_t)(path - auth);
	if (authority(auth, an, 0, r, why) != 0)
		return -1;
	/* METHOD SP origin-form SP version, then the headers we keep */
	if (put(out, outn, &o, buf, (size_t)(sp1 - buf) + 1) ||
	    (path == t + tn ? put(out, outn, &o, "/", 1) : *path != '/' ?
	     (put(out, outn, &o, "/", 1) || put(out, outn, &o, path, (size_t)(t + tn - path))) :
	     put(out, outn, &o, path, (size_t)(t + tn - path))) ||
	    put(out, outn, &o, sp2, (size_t)(eol - sp2) + 2) ||
	    put(out, outn, &o, "Host: ", 6) || put(out, outn, &o, auth, an) ||
	    put(out, outn, &o, "\r\nConnection: close\r\n", 21))
		return *why = "request head too large", -1;
	for (l = eol + 2; l < end + 2; l = nl + 2) {
		nl = find(l, (size_t)(end + 2 - l), "\r\n");
		if (nl == NULL)
			break;
		if (*l == ' ' || *l == '\t')
			return *why = "obsolete header line folding is refused", -1;
		if (!header_ok(l, (size_t)(nl - l)))
			return *why = "a malformed header line", -1;
		if (skip_header(l, (size_t)(nl - l)))
			continue;
		if (put(out, outn, &o, l, (size_t)(nl - l) + 2))
			return *why = "request head too large", -1;
	}
	if (put(out, outn, &o, "\r\n", 2))
		return *why = "request head too large", -1;
	r->out_len = o;
	return 0;
}
