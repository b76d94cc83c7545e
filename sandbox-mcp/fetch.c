/* session_fetch: the one way out of a session, run by the server outside
 * the boundary with libcurl: the host on domain_allowlist, every redirect
 * checked again by us (curl follows none), the address checked after
 * resolution at connect (CURLOPT_OPENSOCKETFUNCTION), no proxy from the
 * environment, size and time bounded. As drun, the response is saved in
 * the session's downloads folder (assets.c names it) with a manifest, and
 * an HTML page's assets with it, each fetched under the same checks, the
 * crawl bounded in count, bytes and time; all written at once
 * (files_put_all) or nothing. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "assets.h"
#include "ckpt.h"
#include "clock.h"
#include "files.h"
#include "hostname.h"
#include "ipaddr.h"
#include "sess.h"
#include "wspath.h"
#include "wsscan.h"

tool_fn tool_session_fetch;

/* FETCH_STALL_S: a response that sends nothing for this long (a
 * Content-Length it never sends) ends there, not at fetch_timeout_ms */
/* FETCH_MAX bounds a response, and a page and its assets together;
 * FETCH_ASSETS_MAX the assets fetched for one page */
enum { FETCH_MAX = 16 << 20, FETCH_SHOW_MAX = 1 << 20, FETCH_HOPS = 5, FETCH_BODY_MAX = 8 << 20,
	FETCH_STALL_S = 10, FETCH_ASSETS_MAX = 64 };

struct fx {
	struct buf body;
	size_t max;
	int too_big;
	char refused[128];	/* an address refused at connect */
	char location[4096];
	char ctype[256];
	long timeout_ms;	/* 0: fetch_timeout_ms */
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
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, x->timeout_ms > 0 ? x->timeout_ms : (long)s->cfg.fetch_timeout_ms);
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

/* Fetch url, following redirects ourselves: every hop's host checked
 * against domain_allowlist, its address at connect (one). url ends as the
 * last URL; method and body change as a browser's do on 301/302/303. The
 * hops go to rd when given. */
static int
follow(struct sbx *s, char *url, size_t urln, char *method, char **body, size_t *bodyn,
    struct curl_slist *hl, struct fx *x, size_t max, long timeout_ms, long *status, struct jw *rd,
    char *err, size_t errn)
{
	char host[256], next[4096];
	int hops = 0;

	for (;;) {
		if (url_host(url, host, sizeof host, err, errn) < 0)
			return -1;
		if (!host_allowed(&s->cfg.domain_allowlist, host))
			return sbx_err(err, errn, "%s%s is not on domain_allowlist: refused", hops ? "a redirect to " : "", host);
		buf_free(&x->body);
		memset(x, 0, sizeof *x);
		x->max = max;
		x->timeout_ms = timeout_ms;
		if (one(s, url, method, *body, *bodyn, hl, x, status, err, errn) < 0)
			return -1;
		if (*status < 300 || *status > 308 || *status == 304 || *status == 305 || *status == 306 || !x->location[0])
			return 0;
		if (++hops > FETCH_HOPS)
			return sbx_err(err, errn, "more than %d redirects", FETCH_HOPS);
		if (resolve_location(url, x->location, next, sizeof next) < 0 || strlen(next) >= urln)
			return sbx_err(err, errn, "a redirect to %.200s: not a URL", x->location);
		if (rd)
			jw_str(rd, next);
		strcpy(url, next);
		if (*status == 303 || ((*status == 301 || *status == 302) && strcmp(method, "POST") == 0)) {
			strcpy(method, "GET");
			*body = (free(*body), NULL);
			*bodyn = 0;
		}
	}
}

/* The path part of url ("" when none). */
static int
url_path(const char *url, char *out, size_t n)
{
	CURLU *u = curl_url();
	char *p = NULL;
	int rc = -1;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PATH, &p, 0) == CURLUE_OK && strlen(p) < n) {
		strcpy(out, p);
		rc = 0;
	}
	curl_free(p);
	curl_url_cleanup(u);
	return rc;
}

/* One page's crawl: the references found, resolved and deduplicated, then
 * each fetched (GET, none of the page's headers) under the same checks as
 * the page: what was saved, skipped (not listed, over a bound) and failed. */
struct crawl {
	struct sbx *s;
	const char *base, *dir;
	int n;			/* files: [0] the page, then assets */
	char *paths[FETCH_ASSETS_MAX + 2], *data[FETCH_ASSETS_MAX + 2];
	size_t lens[FETCH_ASSETS_MAX + 2], left;
	char used[(FETCH_ASSETS_MAX + 2) * 256];	/* every name (each under 256), one a line */
	struct buf seen;	/* the URLs met, '\n' separated */
	struct jw fetched, skipped, failed;
	int nfetched, nskipped, nfailed, nrefs;
	long deadline;
};

static void
crawl_note(struct jw *w, int *count, const char *url, const char *reason)
{
	jw_open(w, '{');
	jw_key(w, "url");
	jw_str(w, url);
	jw_key(w, "reason");
	jw_str(w, reason);
	jw_close(w, '}');
	(*count)++;
}

static int
crawl_one(void *u, const char *ref)
{
	struct crawl *c = u;
	char ref_url[4096], url[4096], host[256], path[4096], name[256], file[WS_PATH_MAX + 1], e[SBX_ERR_MAX];
	char method[8] = "GET";
	char *nobody = NULL;
	size_t nobodyn = 0;
	struct fx x = { 0 };
	long status = 0, left_ms;

	if (resolve_location(c->base, ref, url, sizeof url) < 0 || url_host(url, host, sizeof host, e, sizeof e) < 0)
		return 0;	/* not an http(s) URL: drun leaves it out too */
	/* each URL once */
	for (const char *p = c->seen.p ? c->seen.p : ""; *p;) {
		const char *nl = strchr(p, '\n');
		if ((size_t)(nl - p) == strlen(url) && memcmp(p, url, (size_t)(nl - p)) == 0)
			return 0;
		p = nl + 1;
	}
	buf_adds(&c->seen, url);
	buf_add(&c->seen, "\n", 1);
	strcpy(ref_url, url);	/* url follows the redirects; the asset is reported and named by this */
	if (++c->nrefs > FETCH_ASSETS_MAX) {
		/* the scan ends here: the answer stays bounded too */
		crawl_note(&c->skipped, &c->nskipped, url, "over the bound of assets for one page (64): this one and any after it not fetched");
		return 1;
	}
	if (!host_allowed(&c->s->cfg.domain_allowlist, host)) {
		crawl_note(&c->skipped, &c->nskipped, url, "domain_not_allowed");
		return 0;
	}
	if ((left_ms = c->deadline - clock_ms(CLOCK_MONOTONIC)) <= 0) {
		crawl_note(&c->skipped, &c->nskipped, url, "over the crawl's time bound (fetch_timeout_ms for all its assets)");
		return 0;
	}
	if (c->left == 0) {
		crawl_note(&c->failed, &c->nfailed, url, "over the crawl's size bound (16 MiB for a page and its assets)");
		return 0;
	}
	if (follow(c->s, url, sizeof url, method, &nobody, &nobodyn, NULL, &x, c->left, left_ms, &status, NULL, e, sizeof e) < 0) {
		crawl_note(&c->failed, &c->nfailed, ref_url, e);
		goto out;
	}
	if (status < 200 || status > 299) {
		snprintf(e, sizeof e, "http_%ld", status);
		crawl_note(&c->failed, &c->nfailed, ref_url, e);
		goto out;
	}
	/* named by the URL asked for (drun), checked like any workspace path */
	path[0] = '\0';
	if (url_path(ref_url, path, sizeof path) < 0 ||
	    assets_name(path, c->used, sizeof c->used, name, sizeof name) < 0 ||
	    snprintf(file, sizeof file, "%s/%s", c->dir, name) >= (int)sizeof file ||
	    ws_path_check(file, e, sizeof e) < 0) {
		crawl_note(&c->failed, &c->nfailed, ref_url, "no workspace name can be made from its URL");
		goto out;
	}
	c->paths[c->n] = strdup(file);
	c->data[c->n] = x.body.p ? x.body.p : strdup("");
	c->lens[c->n] = x.body.len;
	if (c->paths[c->n] == NULL || c->data[c->n] == NULL) {
		free(c->paths[c->n]);
		crawl_note(&c->failed, &c->nfailed, ref_url, "out of memory");
		goto out;
	}
	x.body.p = NULL;
	c->left -= c->lens[c->n];
	c->n++;
	jw_open(&c->fetched, '{');
	jw_key(&c->fetched, "url");
	jw_str(&c->fetched, ref_url);
	jw_key(&c->fetched, "saved_to");
	jw_str(&c->fetched, file);
	jw_key(&c->fetched, "bytes");
	jw_int(&c->fetched, (int64_t)c->lens[c->n - 1]);
	jw_key(&c->fetched, "content_type");
	jw_str(&c->fetched, x.ctype);
	jw_key(&c->fetched, "status");
	jw_int(&c->fetched, status);
	jw_close(&c->fetched, '}');
	c->nfetched++;
out:
	buf_free(&x.body);
	return 0;
}

int
tool_session_fetch(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char url[4096], asked[4096], method[16], save[WS_PATH_MAX + 1], host[256], id[CKPT_ID_MAX];
	char desc[1024], path[4096], dir[WS_PATH_MAX + 1], name[WS_PATH_MAX + 1], page[WS_PATH_MAX + 1];
	char manifest[WS_PATH_MAX + 1];
	struct curl_slist *hl = NULL;
	struct fx x = { 0 };
	struct sess ss = { .dirfd = -1, .wsfd = -1 };
	struct crawl c = { 0 };
	struct jw m = { 0 };
	char *body = NULL;
	size_t bodyn = 0;
	long status = 0;
	int rc = -1, made, want_assets = -1, show = 0, is_html;

	if (arg_str(a, "url", 1, url, sizeof url, err, errn) < 0 ||
	    arg_str(a, "method", 0, method, sizeof method, err, errn) < 0 ||
	    arg_str(a, "save_to", 0, save, sizeof save, err, errn) < 0 ||
	    arg_str(a, "description", 0, desc, sizeof desc, err, errn) < 0 ||
	    arg_bool(a, "assets", &want_assets, err, errn) < 0 ||
	    arg_bool(a, "inline", &show, err, errn) < 0 ||
	    arg_blob(a, "body", 0, FETCH_BODY_MAX, &body, &bodyn, err, errn) < 0)
		goto out;
	if (show && save[0]) {
		sbx_err(err, errn, "inline and save_to: the body is either returned (inline) or saved (save_to), not both");
		goto out;
	}
	if (want_assets == 1 && (show || save[0])) {
		sbx_err(err, errn, "assets: a page's assets are saved only with the page in the downloads folder (leave out %s)",
		    show ? "inline" : "save_to");
		goto out;
	}
	if (!method[0])
		strcpy(method, body ? "POST" : "GET");
	if (strcmp(method, "GET") && strcmp(method, "POST") && strcmp(method, "PUT") && strcmp(method, "PATCH") &&
	    strcmp(method, "DELETE") && strcmp(method, "HEAD")) {
		sbx_err(err, errn, "method %s: GET, POST, PUT, PATCH, DELETE or HEAD", method);
		goto out;
	}
	if ((save[0] && ws_path_check(save, err, errn) < 0) || headers(a, &hl, err, errn) < 0)
		goto out;
	strcpy(asked, url);
	/* the session must be there before anything is sent; it stays locked
	 * through the transfers (the idle reaper passes it), while the store's
	 * lock is given up (serve.c: store_release), so a slow or stalled
	 * server holds up no other session's call */
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out;
	jw_key(out, "redirects");
	jw_open(out, '[');
	if (follow(s, url, sizeof url, method, &body, &bodyn, hl, &x, FETCH_MAX, 0, &status, out, err, errn) < 0)
		goto out;
	jw_close(out, ']');
	is_html = strcasestr(x.ctype, "text/html") != NULL;
	if (!show && !save[0]) {
		/* drun's downloads folder, named by the URL asked for */
		if (url_host(asked, host, sizeof host, err, errn) < 0 || url_path(asked, path, sizeof path) < 0 ||
		    assets_layout(host, path, x.ctype, is_html, dir, sizeof dir, name, sizeof name) < 0 ||
		    snprintf(page, sizeof page, "%s/%s", dir, name) >= (int)sizeof page ||
		    snprintf(manifest, sizeof manifest, "%s/manifest.json", dir) >= (int)sizeof manifest) {
			sbx_err(err, errn, "%s: no downloads path can be made from this URL (use save_to)", asked);
			goto out;
		}
		if (ws_path_check(page, err, errn) < 0)
			goto out;
		c.s = s;
		c.base = url;
		c.dir = dir;
		c.left = FETCH_MAX - x.body.len;
		c.deadline = clock_ms(CLOCK_MONOTONIC) + (long)s->cfg.fetch_timeout_ms;
		snprintf(c.used, sizeof c.used, "%s\nmanifest.json", name);
		c.paths[0] = page;
		c.data[0] = x.body.p ? x.body.p : (char *)"";
		c.lens[0] = x.body.len;
		c.n = 1;
		jw_open(&c.fetched, '[');
		jw_open(&c.skipped, '[');
		jw_open(&c.failed, '[');
		if (is_html && want_assets != 0 && x.body.len)
			assets_scan(x.body.p, x.body.len, crawl_one, &c);
		jw_close(&c.fetched, ']');
		jw_close(&c.skipped, ']');
		jw_close(&c.failed, ']');
		jw_open(&m, '{');
		jw_key(&m, "source_url");
		jw_str(&m, asked);
		jw_key(&m, "saved_to");
		jw_str(&m, page);
		jw_key(&m, "assets");
		jw_raw(&m, c.fetched.b.p, c.fetched.b.len);
		jw_key(&m, "skipped");
		jw_raw(&m, c.skipped.b.p, c.skipped.b.len);
		jw_key(&m, "failed");
		jw_raw(&m, c.failed.b.p, c.failed.b.len);
		jw_key(&m, "totals");
		jw_open(&m, '{');
		jw_key(&m, "fetched");
		jw_int(&m, c.nfetched);
		jw_key(&m, "skipped");
		jw_int(&m, c.nskipped);
		jw_key(&m, "failed");
		jw_int(&m, c.nfailed);
		jw_close(&m, '}');
		jw_close(&m, '}');
		if (m.err || c.fetched.err || c.skipped.err || c.failed.err) {
			sbx_err(err, errn, "out of memory");
			goto out;
		}
		buf_add(&m.b, "\n", 1);
		c.paths[c.n] = manifest;
		c.data[c.n] = m.b.p;
		c.lens[c.n] = m.b.len;
	}
	jw_key(out, "url");
	jw_str(out, url);
	jw_key(out, "status");
	jw_int(out, status);
	jw_key(out, "content_type");
	jw_str(out, x.ctype);
	jw_key(out, "bytes");
	jw_int(out, (int64_t)x.body.len);
	if (show) {
		size_t n = x.body.len < FETCH_SHOW_MAX ? x.body.len : FETCH_SHOW_MAX;
		jw_key(out, "body");
		jw_strn(out, x.body.p ? x.body.p : "", n);
		jw_key(out, "truncated");
		jw_bool(out, n < x.body.len);
		rc = 0;
		goto out;
	}
	{
		int64_t usage = ws_usage(ss.wsfd), total = save[0] ? (int64_t)x.body.len : 0;
		int files = save[0] ? 1 : c.n + 1;
		for (int i = 0; !save[0] && i < files; i++)
			total += (int64_t)c.lens[i];
		if (usage + total > (s->cfg.max_workspace_mb << 20)) {
			sbx_err(err, errn, "%s (%lld bytes in %d file%s) would take the workspace over max_workspace_mb: nothing saved",
			    save[0] ? save : dir, (long long)total, files, files == 1 ? "" : "s");
			goto out;
		}
	}
	if (save[0]) {
		if (files_put(&ss, save, x.body.p ? x.body.p : "", x.body.len, err, errn) < 0)
			goto out;
	} else if (files_put_all(&ss, c.n + 1, c.paths, c.data, c.lens, err, errn) < 0) {
		goto out;
	}
	if (ckpt_commit(s, &ss, desc[0] ? desc : "session_fetch", id, &made, err, errn) < 0)
		goto out;
	jw_key(out, "saved_to");
	jw_str(out, save[0] ? save : page);
	if (!save[0]) {
		jw_key(out, "dir");
		jw_str(out, dir);
		jw_key(out, "manifest_path");
		jw_str(out, manifest);
		jw_key(out, "assets_fetched");
		jw_int(out, c.nfetched);
		jw_key(out, "assets_skipped");
		jw_int(out, c.nskipped);
		jw_key(out, "assets_failed");
		jw_int(out, c.nfailed);
		jw_key(out, "assets");
		jw_raw(out, c.fetched.b.p, c.fetched.b.len);
		jw_key(out, "skipped");
		jw_raw(out, c.skipped.b.p, c.skipped.b.len);
		jw_key(out, "failed");
		jw_raw(out, c.failed.b.p, c.failed.b.len);
	}
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
	rc = 0;
out:
	for (int i = 1; i < c.n; i++) {
		free(c.paths[i]);
		free(c.data[i]);
	}
	buf_free(&c.seen);
	buf_free(&c.fetched.b);
	buf_free(&c.skipped.b);
	buf_free(&c.failed.b);
	buf_free(&m.b);
	buf_free(&x.body);
	curl_slist_free_all(hl);
	free(body);
	sess_release(&ss);
	return rc;
}
