/* session_fetch: the one way out of a session, run by the server outside
 * the boundary with libcurl: the host on domain_allowlist, every redirect
 * checked again by us (curl follows none), the address checked after
 * resolution at connect (CURLOPT_OPENSOCKETFUNCTION), no proxy from the
 * environment, size and time bounded. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include "args.h"
#include "ckpt.h"
#include "files.h"
#include "hostname.h"
#include "ipaddr.h"
#include "sess.h"
#include "wspath.h"
#include "wsscan.h"

tool_fn tool_session_fetch;

/* FETCH_STALL_S: a response that sends nothing for this long (a
 * Content-Length it never sends) ends there, not at fetch_timeout_ms */
enum { FETCH_MAX = 16 << 20, FETCH_SHOW_MAX = 1 << 20, FETCH_HOPS = 5, FETCH_BODY_MAX = 8 << 20,
	FETCH_STALL_S = 10 };

struct fx {
	struct buf body;
	size_t max;
	int too_big;
	char refused[128];	/* an address refused at connect */
	char location[4096];
	char ctype[256];
};

static size_t
on_write(char *p, size_t sz, size_t n, void *u)
{
	struct fx *x = u;

	if (x->body.len + sz * n > x->max) {
		x->too_big = 1;
		return 0;
	}
	return buf_add(&x->body, p, sz * n) < 0 ? 0 : sz * n;
}

static void
hdr_value(const char *p, size_t n, const char *name, char *out, size_t outn)
{
	size_t k = strlen(name);

	if (n <= k || strncasecmp(p, name, k) != 0)
		return;
	p += k;
	n -= k;
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
		n--;
	snprintf(out, outn, "%.*s", (int)(n < outn ? n : outn - 1), p);
}

static size_t
on_header(char *p, size_t sz, size_t n, void *u)
{
	struct fx *x = u;

	hdr_value(p, sz * n, "location:", x->location, sizeof x->location);
	hdr_value(p, sz * n, "content-type:", x->ctype, sizeof x->ctype);
	return sz * n;
}

/* The host (normalized) matches a domain_allowlist entry (lib/hostname:
 * "*.NAME" lists the subdomains of NAME). */
static int
host_allowed(const struct cfg_list *l, const char *host)
{
	char h[HOST_MAX], p[HOST_MAX];

	if (host_normalize(host, strlen(host), 0, h) == HOST_BAD)
		return 0;
	for (int i = 0; i < l->n; i++)
		if (host_normalize(l->v[i], strlen(l->v[i]), 1, p) != HOST_BAD && host_match(p, h))
			return 1;
	return 0;
}

/* The address is public (lib/ipaddr, as the egress broker judges it). */
static int
addr_public(const struct sockaddr *sa, socklen_t len)
{
	struct ipdest d;

	return ip_classify(sa, (size_t)len, &d) == 0 && d.cls == IPC_PUBLIC;
}

static curl_socket_t
on_socket(void *u, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct fx *x = u;

	if (purpose != CURLSOCKTYPE_IPCXN || !addr_public(&a->addr, a->addrlen)) {
		snprintf(x->refused, sizeof x->refused, "the host resolved to a loopback, private, link-local or metadata address");
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* The host of url (lowercase, no trailing dot) and whether it is http(s). */
static int
url_host(const char *url, char *host, size_t n, char *err, size_t errn)
{
	CURLU *u = curl_url();
	char *h = NULL, *sch = NULL;
	int rc = -1;

	if (u == NULL)
		return sbx_err(err, errn, "out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &sch, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK) {
		sbx_err(err, errn, "url %.200s is not a URL", url);
	} else if (strcmp(sch, "https") != 0 && strcmp(sch, "http") != 0) {
		sbx_err(err, errn, "url %.200s: only http and https", url);
	} else if (strlen(h) >= n) {
		sbx_err(err, errn, "url: a host too long");
	} else {
		size_t l = strlen(h);
		for (size_t i = 0; i < l; i++)
			host[i] = (char)(h[i] >= 'A' && h[i] <= 'Z' ? h[i] + 32 : h[i]);
		while (l && host[l - 1] == '.')
			l--;
		host[l] = '\0';
		rc = 0;
	}
	curl_free(h);
	curl_free(sch);
	curl_url_cleanup(u);
	return rc;
}

/* Location relative to base, as an absolute URL into out. */
static int
resolve_location(const char *base, const char *loc, char *out, size_t n)
{
	CURLU *u = curl_url();
	char *s = NULL;
	int rc = -1;

	if (u && curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_URL, loc, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK && strlen(s) < n) {
		strcpy(out, s);
		rc = 0;
	}
	curl_free(s);
	curl_url_cleanup(u);
	return rc;
}

static int
header_add(const char *name, const char *val, struct curl_slist **hl, char *err, size_t errn)
{
	char line[4300];
	struct curl_slist *n;

	if (name[0] == '\0' || strpbrk(name, " \t:\r\n()<>@,;\\\"/[]?={}") || strpbrk(val, "\r\n"))
		return sbx_err(err, errn, "header %s: not a valid header", name);
	if (strcasecmp(name, "host") == 0)
		return sbx_err(err, errn, "header Host: refused (the URL names the host)");
	snprintf(line, sizeof line, "%s: %s", name, val);
	if ((n = curl_slist_append(*hl, line)) == NULL)
		return sbx_err(err, errn, "out of memory");
	*hl = n;
	return 0;
}

/* headers: an object of strings, or drun's array of {name, value}; no CR,
 * LF or NUL, no Host. */
static int
headers(const struct targs *a, struct curl_slist **hl, char *err, size_t errn)
{
	int h = json_get(a->js, a->t, a->obj, "headers"), k;
	char name[128], val[4096];

	if (h >= 0 && a->t[h].type == JSMN_ARRAY) {
		for (int i = 0; i < a->t[h].size; i++) {
			struct targs ea = { a->js, a->t, arg_elem(a, h, i) };
			if (a->t[ea.obj].type != JSMN_OBJECT || a->t[ea.obj].size != 2)
				return sbx_err(err, errn, "headers[%d] must be an object {name, value}", i);
			if (arg_str(&ea, "name", 1, name, sizeof name, err, errn) < 0 ||
			    arg_str(&ea, "value", 1, val, sizeof val, err, errn) < 0 ||
			    header_add(name, val, hl, err, errn) < 0)
				return -1;
		}
		return 0;
	}
	if ((h = arg_tok(a, "headers", JSMN_OBJECT, 0, err, errn)) == -2)
		return -1;
	if (h < 0)
		return 0;
	k = h + 1;
	for (int i = 0; i < a->t[h].size; i++) {
		int v = k + 1;
		if (arg_tokstr(a, k, "a header name", name, sizeof name, err, errn) < 0 ||
		    arg_tokstr(a, v, "a header value", val, sizeof val, err, errn) < 0 ||
		    header_add(name, val, hl, err, errn) < 0)
			return -1;
		k = json_next(a->t, v);
	}
	return 0;
}

static int
one(struct sbx *s, const char *url, const char *method, const char *body, size_t bodyn,
    struct curl_slist *hl, struct fx *x, long *status, char *err, size_t errn)
{
	CURL *e = curl_easy_init();
	CURLcode c;
	curl_off_t cl = -1;

	if (e == NULL)
		return sbx_err(err, errn, "out of memory");
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROXY, "");
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)s->cfg.fetch_timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)s->cfg.connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)FETCH_STALL_S);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	if (s->cacert)
		curl_easy_setopt(e, CURLOPT_CAINFO, s->cacert);	/* the operator's, instead of the system's */
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, on_socket);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, x);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "sandbox-mcp");
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	if (body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)bodyn);
	}
	c = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
	curl_easy_getinfo(e, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
	curl_easy_cleanup(e);
	if (x->refused[0])
		return sbx_err(err, errn, "%s: %s: refused", url, x->refused);
	if (x->too_big)
		return sbx_err(err, errn, "%s: the response is larger than the bound (%zu bytes)", url, x->max);
	if (c == CURLE_OPERATION_TIMEDOUT && cl > (curl_off_t)x->body.len)
		return sbx_err(err, errn, "%s: the server announced %lld bytes, sent %zu, then nothing: given up (a transfer that stalls for %d s ends)",
		    url, (long long)cl, x->body.len, FETCH_STALL_S);
	if (c != CURLE_OK)
		return sbx_err(err, errn, "%s: %s", url, curl_easy_strerror(c));
	return 0;
}

int
tool_session_fetch(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char url[4096], method[16], save[WS_PATH_MAX + 1], host[256], next[4096], id[CKPT_ID_MAX];
	struct curl_slist *hl = NULL;
	struct fx x = { 0 };
	struct sess ss = { .dirfd = -1, .wsfd = -1 };
	char *body = NULL;
	size_t bodyn = 0;
	long status = 0;
	int rc = -1, made, hops = 0, locked = 1;

	if (arg_str(a, "url", 1, url, sizeof url, err, errn) < 0 ||
	    arg_str(a, "method", 0, method, sizeof method, err, errn) < 0 ||
	    arg_str(a, "save_to", 0, save, sizeof save, err, errn) < 0 ||
	    arg_blob(a, "body", 0, FETCH_BODY_MAX, &body, &bodyn, err, errn) < 0)
		goto out;
	if (!method[0])
		strcpy(method, body ? "POST" : "GET");
	if (strcmp(method, "GET") && strcmp(method, "POST") && strcmp(method, "PUT") && strcmp(method, "PATCH") &&
	    strcmp(method, "DELETE") && strcmp(method, "HEAD")) {
		sbx_err(err, errn, "method %s: GET, POST, PUT, PATCH, DELETE or HEAD", method);
		goto out;
	}
	if ((save[0] && ws_path_check(save, err, errn) < 0) || headers(a, &hl, err, errn) < 0)
		goto out;
	/* the session must be there before anything is sent; the transfer
	 * itself runs without the store's lock, so a slow or stalled server
	 * holds up no other call (the session is picked again after it) */
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out;
	sess_release(&ss);
	flock(s->lockfd, LOCK_UN);
	locked = 0;
	jw_key(out, "redirects");
	jw_open(out, '[');
	for (;;) {
		if (url_host(url, host, sizeof host, err, errn) < 0)
			goto out;
		if (!host_allowed(&s->cfg.domain_allowlist, host)) {
			sbx_err(err, errn, "%s%s is not on domain_allowlist: refused", hops ? "a redirect to " : "", host);
			goto out;
		}
		buf_free(&x.body);
		memset(&x, 0, sizeof x);
		x.max = FETCH_MAX;
		if (one(s, url, method, body, bodyn, hl, &x, &status, err, errn) < 0)
			goto out;
		if (status < 300 || status > 308 || status == 304 || status == 305 || status == 306 || !x.location[0])
			break;
		if (++hops > FETCH_HOPS) {
			sbx_err(err, errn, "more than %d redirects", FETCH_HOPS);
			goto out;
		}
		if (resolve_location(url, x.location, next, sizeof next) < 0) {
			sbx_err(err, errn, "a redirect to %.200s: not a URL", x.location);
			goto out;
		}
		jw_str(out, next);
		strcpy(url, next);
		if (status == 303 || ((status == 301 || status == 302) && strcmp(method, "POST") == 0)) {
			strcpy(method, "GET");
			body = (free(body), NULL);
			bodyn = 0;
		}
	}
	jw_close(out, ']');
	while (flock(s->lockfd, LOCK_EX) < 0 && errno == EINTR)
		;
	locked = 1;
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out;
	jw_key(out, "url");
	jw_str(out, url);
	jw_key(out, "status");
	jw_int(out, status);
	jw_key(out, "content_type");
	jw_str(out, x.ctype);
	jw_key(out, "bytes");
	jw_int(out, (int64_t)x.body.len);
	if (save[0]) {
		int64_t usage = ws_usage(ss.wsfd);
		if (usage + (int64_t)x.body.len > (s->cfg.max_workspace_mb << 20)) {
			sbx_err(err, errn, "save_to %s would take the workspace over max_workspace_mb: not saved", save);
			goto out;
		}
		if (files_put(&ss, save, x.body.p ? x.body.p : "", x.body.len, err, errn) < 0 ||
		    ckpt_commit(s, &ss, "session_fetch", id, &made, err, errn) < 0)
			goto out;
		jw_key(out, "saved_to");
		jw_str(out, save);
		jw_key(out, "checkpoint_id");
		jw_str(out, id);
	} else {
		size_t n = x.body.len < FETCH_SHOW_MAX ? x.body.len : FETCH_SHOW_MAX;
		jw_key(out, "body");
		jw_strn(out, x.body.p ? x.body.p : "", n);
		jw_key(out, "truncated");
		jw_bool(out, n < x.body.len);
	}
	rc = 0;
out:
	while (!locked && flock(s->lockfd, LOCK_EX) < 0 && errno == EINTR)
		;
	buf_free(&x.body);
	curl_slist_free_all(hl);
	free(body);
	sess_release(&ss);
	return rc;
}
