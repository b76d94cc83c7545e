/*
 * Streamable HTTP client side: every message is a POST; the answer is one
 * JSON body or an SSE stream; the session id comes with the initialize
 * answer. Everything is handed back as events, after curl returns, so the
 * proxy never re-enters curl from a curl callback.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "clock.h"
#include "http_up.h"
#include "mcpmeta.h"
#include "msg.h"
#include "rpc.h"
#include "sse.h"

enum { MAX_XFER = 256, SID_MAX = 256, URL_MAX = 2048, MAX_DEFER = 64, MAX_RESUME = 64,
	RESUME_DEFAULT_MS = 1000, RESUME_MAX_MS = 30000 };

struct xfer {
	CURL *e;
	struct http_up *h;
	uint64_t uid;
	int init, get, sse, typed, over, lget;	/* lget: the legacy event stream */
	int resume, answered;	/* a GET resuming request uid's stream; its answer came */
	char last_id[SSE_ID_MAX + 1];	/* resume: the Last-Event-ID it was sent with */
	struct curl_slist *hdrs;
	char *body;
	size_t bodyn;
	struct buf resp;
	struct sse ev;
	char sid[SID_MAX];
};

struct http_up {
	const struct http_config *cfg;
	CURLM *m;
	struct xfer *x[MAX_XFER];
	char sid[SID_MAX], ver[64];
	char *auth;
	struct http_ev *q;
	size_t qn, qcap, qhead;
	int listening;
	/* the legacy HTTP+SSE transport (2024-11-05): a GET event stream whose
	 * first event names the URL to POST to; answers come on the stream */
	int legacy, lstream;
	char endpoint[URL_MAX];
	struct { char *msg; size_t n; uint64_t uid; int init; } defer[MAX_DEFER];
	int ndefer;
	int modern;		/* 2026-07-28: no session, metadata headers on every POST */
	struct { uint64_t uid; int64_t due; char id[SSE_ID_MAX + 1]; } resume[MAX_RESUME];
	int nresume;
	struct rpc_toks tk;
	struct buf mb;
};

static int start(struct http_up *h, const char *msg, size_t n, uint64_t uid, int init, int get, const char *last_id);

int
http_url_ok(const char *url)
{
	const char *h;

	if (strncmp(url, "https://", 8) == 0)
		return url[8] != '\0';
	if (strncmp(url, "http://", 7) != 0)
		return 0;
	h = url + 7;
	static const char *const loop[] = { "127.0.0.1", "[::1]", "localhost" };
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(loop[i]);
		if (strncmp(h, loop[i], k) == 0 && (h[k] == ':' || h[k] == '/' || h[k] == '\0'))
			return 1;
	}
	return 0;
}

static void
push(struct http_up *h, enum http_ev_kind kind, uint64_t uid, int init, const char *data, size_t n, const char *why)
{
	struct http_ev *ev;

	if (h->qn == h->qcap) {
		size_t c = h->qcap ? h->qcap * 2 : 16;
		struct http_ev *q = realloc(h->q, c * sizeof *q);
		if (!q)
			return;
		h->q = q;
		h->qcap = c;
	}
	ev = &h->q[h->qn++];
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->uid = uid;
	ev->init = init;
	if (data) {
		if ((ev->data = malloc(n + 1)) == NULL) {
			h->qn--;
			return;
		}
		memcpy(ev->data, data, n);
		ev->data[n] = '\0';
		for (size_t i = 0; i < n; i++)	/* whitespace only, in valid JSON */
			if (ev->data[i] == '\n' || ev->data[i] == '\r')
				ev->data[i] = ' ';
		ev->n = n;
	}
	if (why)
		snprintf(ev->why, sizeof ev->why, "%s", why);
}

int
http_up_next(struct http_up *h, struct http_ev *ev)
{
	if (h->qhead == h->qn) {
		h->qhead = h->qn = 0;
		return 0;
	}
	*ev = h->q[h->qhead++];
	return 1;
}

/* The legacy endpoint: a path, or an absolute URL of the same origin (the
 * bearer token goes there too, so never anywhere else). */
static int
set_endpoint(struct http_up *h, const char *d, size_t n)
{
	const char *base = h->cfg->url, *o;
	size_t on;

	o = strstr(base, "://");
	if (!o)
		return -1;
	o += 3;
	on = (size_t)(o - base) + strcspn(o, "/?#");	/* scheme://host[:port] */
	if (n == 0 || n >= URL_MAX - on)
		return -1;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)d[i] < 0x21 || (unsigned char)d[i] > 0x7e)
			return -1;
	if (d[0] == '/' && (n < 2 || d[1] != '/')) {
		memcpy(h->endpoint, base, on);
		memcpy(h->endpoint + on, d, n);
		h->endpoint[on + n] = '\0';
		return 0;
	}
	if (n > on && strncmp(d, base, on) == 0 && (d[on] == '/' || d[on] == '?')) {
		memcpy(h->endpoint, d, n);
		h->endpoint[n] = '\0';
		return 0;
	}
	return -1;
}

static void
on_event(void *ctx, const char *event, const char *data, size_t n)
{
	struct xfer *x = ctx;
	struct http_up *h = x->h;

	if (x->lget && strcmp(event, "endpoint") == 0) {
		if (h->endpoint[0])
			return;
		if (set_endpoint(h, data, n) < 0) {
			push(h, HEV_FAIL, 0, 1, NULL, 0, "named a POST endpoint of another origin");
			return;
		}
		return;		/* the waiting messages go once curl returns */
	}
	if (event[0] && strcmp(event, "message") != 0)
		return;
	if (x->resume) {
		/* the answer ends a resumed stream (the server may keep it open) */
		struct rpc_msg m;
		int64_t id;
		if (rpc_parse(data, n, &h->tk, &m) == 0 && m.kind == RPC_RESPONSE &&
		    json_int(m.js, &m.t[m.id], &id) == 0 && id >= 0 && (uint64_t)id == x->uid)
			x->answered = 1;
	}
	push(h, HEV_MSG, x->uid, 0, data, n, NULL);	/* uid: whose answer stream */
}

static int
h_legacy_post(const struct xfer *x)
{
	return x->h->legacy && !x->get;
}

static size_t
on_write(char *p, size_t sz, size_t nm, void *ctx)
{
	struct xfer *x = ctx;
	size_t n = sz * nm;
	long status = 0;

	curl_easy_getinfo(x->e, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200 || (h_legacy_post(x)))
		return n;	/* error bodies are not messages, nor legacy POST answers */
	if (!x->typed) {
		char *ct = NULL;
		curl_easy_getinfo(x->e, CURLINFO_CONTENT_TYPE, &ct);
		x->sse = ct && strncasecmp(ct, "text/event-stream", 17) == 0;
		x->typed = 1;
	}
	if (x->sse) {
		if (sse_feed(&x->ev, p, n, on_event, x) < 0)
			msg_warn("upstream sent an event over the size limit (dropped)");
		return x->answered ? 0 : n;	/* 0: done with it */
	}
	if (x->resp.len + n > x->h->cfg->max_msg) {
		x->over = 1;
		return 0;	/* abort: bounded memory */
	}
	if (buf_add(&x->resp, p, n) < 0)
		return 0;
	return n;
}

static size_t
on_header(char *p, size_t sz, size_t nm, void *ctx)
{
	struct xfer *x = ctx;
	size_t n = sz * nm, k = 15, i;

	if (n > k && strncasecmp(p, "mcp-session-id:", k) == 0) {
		while (k < n && (p[k] == ' ' || p[k] == '\t'))
			k++;
		while (n > k && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
			n--;
		/* visible ASCII only (the spec's charset), bounded */
		if (n - k == 0 || n - k >= SID_MAX)
			return sz * nm;
		for (i = k; i < n; i++)
			if (p[i] < 0x21 || p[i] > 0x7e)
				return sz * nm;
		memcpy(x->sid, p + k, n - k);
		x->sid[n - k] = '\0';
	}
	return sz * nm;
}

static void
xfer_free(struct xfer *x)
{
	if (!x)
		return;
	if (x->e) {
		curl_multi_remove_handle(x->h->m, x->e);
		curl_easy_cleanup(x->e);
	}
	curl_slist_free_all(x->hdrs);
	free(x->body);
	buf_free(&x->resp);
	sse_free(&x->ev);
	free(x);
}

static struct curl_slist *
add_hdr(struct curl_slist *l, const char *a, const char *b, int *bad)
{
	char line[MCPMETA_HDR_MAX + 64];
	struct curl_slist *n;

	snprintf(line, sizeof line, "%s%s", a, b);
	if ((n = curl_slist_append(l, line)) == NULL)
		*bad = 1;
	explicit_bzero(line, sizeof line);
	return n ? n : l;
}

/* One transfer: a POST of msg (uid: its request id, init: see
 * http_up_post), or a GET (get): the session's stream, or with last_id the
 * resumption of request uid's stream. */
static int
start(struct http_up *h, const char *msg, size_t n, uint64_t uid, int init, int get, const char *last_id)
{
	struct xfer *x;
	int slot = -1, bad = 0;

	for (int i = 0; i < MAX_XFER; i++)
		if (!h->x[i]) {
			slot = i;
			break;
		}
	if (slot < 0 || (x = calloc(1, sizeof *x)) == NULL)
		return -1;
	x->h = h;
	x->uid = uid;
	x->init = init;
	x->get = get;
	x->ev.max = h->cfg->max_msg;
	x->ev.retry = -1;
	int modern = !get && (h->modern || init == 2);
	char hm[MCPMETA_HDR_MAX], hn[MCPMETA_HDR_MAX];
	hm[0] = hn[0] = '\0';
	if (modern && msg) {
		/* the metadata comes from the body we are about to send, which
		 * the proxy has already checked: never from what a client said */
		struct rpc_msg m;
		char name[MCPMETA_NAME_MAX + 1];
		int nl;
		if (rpc_parse(msg, n, &h->tk, &m) < 0 || m.kind != RPC_REQUEST) {
			free(x);
			return -1;
		}
		nl = json_str(m.js, &m.t[m.method], name, sizeof name);
		if (nl < 0 || mcpmeta_hdr_encode(name, (size_t)nl, hm, sizeof hm) < 0 ||
		    (size_t)nl != strlen(name)) {
			free(x);
			return -1;
		}
		nl = mcpmeta_name(&m, name, sizeof name);
		if (nl == -1 || (nl >= 0 && mcpmeta_hdr_encode(name, (size_t)nl, hn, sizeof hn) < 0)) {
			free(x);
			return -1;
		}
		h->mb.len = 0;
		if (mcpmeta_add(&m, &h->mb) < 0) {
			free(x);
			return -1;
		}
		msg = h->mb.p;
		n = h->mb.len;
	}
	if (msg && (x->body = malloc(n + 1)) == NULL) {
		free(x);
		return -1;
	}
	if (msg) {
		memcpy(x->body, msg, n);
		x->body[n] = '\0';
		x->bodyn = n;
	}
	if ((x->e = curl_easy_init()) == NULL) {
		xfer_free(x);
		return -1;
	}
	x->lget = get && h->legacy;
	if (get) {
		x->hdrs = add_hdr(x->hdrs, "Accept: ", "text/event-stream", &bad);
		if (last_id) {	/* resuming request uid's stream */
			x->resume = 1;
			snprintf(x->last_id, sizeof x->last_id, "%s", last_id);
			x->hdrs = add_hdr(x->hdrs, "Last-Event-ID: ", x->last_id, &bad);
		}
	} else {
		x->hdrs = add_hdr(x->hdrs, "Content-Type: ", "application/json", &bad);
		x->hdrs = add_hdr(x->hdrs, "Accept: ", "application/json, text/event-stream", &bad);
	}
	if (h->auth)
		x->hdrs = add_hdr(x->hdrs, h->auth, "", &bad);
	if (modern) {
		x->hdrs = add_hdr(x->hdrs, "MCP-Protocol-Version: ", REV_2026_07_28, &bad);
		x->hdrs = add_hdr(x->hdrs, "Mcp-Method: ", hm, &bad);
		if (hn[0])
			x->hdrs = add_hdr(x->hdrs, "Mcp-Name: ", hn, &bad);
	} else {
		if (h->sid[0] && !h->legacy)
			x->hdrs = add_hdr(x->hdrs, "Mcp-Session-Id: ", h->sid, &bad);
		if (h->ver[0] && !init && !h->legacy)
			x->hdrs = add_hdr(x->hdrs, "MCP-Protocol-Version: ", h->ver, &bad);
	}
	if (bad) {
		xfer_free(x);
		return -1;
	}
	curl_easy_setopt(x->e, CURLOPT_URL, h->legacy && !get ? h->endpoint : h->cfg->url);
	curl_easy_setopt(x->e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->e, CURLOPT_FOLLOWLOCATION, 0L);	/* the token stays with this URL */
	/* never a proxy from the environment (http_proxy, HTTPS_PROXY,
	 * ALL_PROXY): it would be handed the bearer token */
	curl_easy_setopt(x->e, CURLOPT_PROXY, "");
	curl_easy_setopt(x->e, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(x->e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->e, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(x->e, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(x->e, CURLOPT_SSL_VERIFYHOST, 2L);
	if (h->cfg->cacert)
		curl_easy_setopt(x->e, CURLOPT_CAINFO, h->cfg->cacert);
	curl_easy_setopt(x->e, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(x->e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(x->e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->e, CURLOPT_PRIVATE, x);
	if (!get) {
		curl_easy_setopt(x->e, CURLOPT_POST, 1L);
		curl_easy_setopt(x->e, CURLOPT_POSTFIELDS, x->body);
		curl_easy_setopt(x->e, CURLOPT_POSTFIELDSIZE, (long)x->bodyn);
	}
	if (curl_multi_add_handle(h->m, x->e) != CURLM_OK) {
		xfer_free(x);
		return -1;
	}
	h->x[slot] = x;
	return 0;
}

struct http_up *
http_up_new(const struct http_config *cfg)
{
	struct http_up *h;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NULL;
	if ((h = calloc(1, sizeof *h)) == NULL)
		return NULL;
	h->cfg = cfg;
	if ((h->m = curl_multi_init()) == NULL) {
		free(h);
		return NULL;
	}
	if (cfg->token) {
		size_t n = strlen(cfg->token) + 32;
		if ((h->auth = malloc(n)) == NULL) {
			curl_multi_cleanup(h->m);
			free(h);
			return NULL;
		}
		snprintf(h->auth, n, "Authorization: Bearer %s", cfg->token);
	}
	return h;
}

void
http_up_reset(struct http_up *h)
{
	struct http_ev ev;

	for (int i = 0; i < MAX_XFER; i++) {
		xfer_free(h->x[i]);
		h->x[i] = NULL;
	}
	while (http_up_next(h, &ev))
		free(ev.data);
	h->sid[0] = h->ver[0] = '\0';
	h->listening = 0;
	h->endpoint[0] = '\0';
	h->lstream = 0;
	for (int i = 0; i < h->ndefer; i++)
		free(h->defer[i].msg);
	h->ndefer = 0;
	h->nresume = 0;
}

void
http_up_free(struct http_up *h)
{
	if (!h)
		return;
	http_up_reset(h);
	curl_multi_cleanup(h->m);
	rpc_toks_free(&h->tk);
	buf_free(&h->mb);
	if (h->auth) {
		explicit_bzero(h->auth, strlen(h->auth));
		free(h->auth);
	}
	free(h->q);
	free(h);
	curl_global_cleanup();
}

static int
legacy_post(struct http_up *h, const char *msg, size_t n, uint64_t uid, int init)
{
	if (h->endpoint[0])
		return start(h, msg, n, uid, init, 0, NULL);
	if (h->ndefer == MAX_DEFER || (h->defer[h->ndefer].msg = malloc(n + 1)) == NULL)
		return -1;
	memcpy(h->defer[h->ndefer].msg, msg, n);
	h->defer[h->ndefer].n = n;
	h->defer[h->ndefer].uid = uid;
	h->defer[h->ndefer].init = init;
	h->ndefer++;
	if (!h->lstream) {
		if (start(h, NULL, 0, 0, 1, 1, NULL) < 0)
			return -1;
		h->lstream = 1;
	}
	return 0;
}

int
http_up_post(struct http_up *h, const char *msg, size_t n, uint64_t uid, int init)
{
	if (h->legacy)
		return legacy_post(h, msg, n, uid, init);
	if (h->modern) {
		/* 2026-07-28 defines no client notifications or responses over
		 * Streamable HTTP: only requests are posted */
		struct rpc_msg m;
		if (rpc_parse(msg, n, &h->tk, &m) < 0)
			return -1;
		if (m.kind != RPC_REQUEST)
			return 0;
		return start(h, msg, n, uid, init == 2 ? 2 : 0, 0, NULL);
	}
	if (init == 1)
		h->sid[0] = '\0';	/* a new session */
	return start(h, msg, n, uid, init, 0, NULL);
}

void
http_up_set_version(struct http_up *h, const char *v, size_t n)
{
	size_t i;

	h->ver[0] = '\0';
	if (n == 0 || n >= sizeof h->ver)
		return;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && v[i] != '-' && v[i] != '.')
			return;
	memcpy(h->ver, v, n);
	h->ver[n] = '\0';
}

void
http_up_set_modern(struct http_up *h, int on)
{
	h->modern = on;
}

void
http_up_listen(struct http_up *h)
{
	if (h->modern || h->legacy || h->listening || !h->sid[0])
		return;
	if (start(h, NULL, 0, 0, 0, 1, NULL) == 0)
		h->listening = 1;
}

/* A POST's event stream, or a resumed one, ended: HEV_DONE, with what a
 * resumption needs when the stream had an event id (SSE reconnection: the
 * retry field's delay, Last-Event-ID). */
static void
done_stream(struct http_up *h, struct xfer *x)
{
	const char *id = x->ev.last_id[0] ? x->ev.last_id : x->last_id;

	push(h, HEV_DONE, x->uid, 0, NULL, 0, NULL);
	if (h->qn == 0 || h->q[h->qn - 1].kind != HEV_DONE || !id[0] || h->modern || h->legacy)
		return;
	h->q[h->qn - 1].resumable = 1;
	snprintf(h->q[h->qn - 1].last_id, sizeof h->q[0].last_id, "%s", id);
	h->q[h->qn - 1].retry = x->ev.retry;
}

static void
done(struct http_up *h, struct xfer *x, CURLcode res)
{
	long status = 0;
	char why[96];

	curl_easy_getinfo(x->e, CURLINFO_RESPONSE_CODE, &status);
	if (x->lget) {
		/* the legacy stream carries every answer: its end is the upstream's */
		h->lstream = 0;
		if (res != CURLE_OK)
			snprintf(why, sizeof why, "event stream failed: %s", curl_easy_strerror(res));
		else if (status != 200)
			snprintf(why, sizeof why, "answered HTTP %ld to the event stream", status);
		else
			snprintf(why, sizeof why, "closed its event stream");
		push(h, HEV_FAIL, 0, 1, NULL, 0, why);
		return;
	}
	if (x->resume) {
		/* a resumed stream ended: without the answer, it may be resumed
		 * again from its last id (the caller bounds how often) */
		if (x->answered)
			return;
		if (res == CURLE_OK && status == 200) {
			done_stream(h, x);
			return;
		}
		snprintf(why, sizeof why, "answered HTTP %ld when its stream was resumed", status);
		if (res != CURLE_OK)
			snprintf(why, sizeof why, "resumed stream failed: %s", curl_easy_strerror(res));
		push(h, HEV_FAIL, x->uid, 0, NULL, 0, why);
		return;
	}
	if (x->get) {
		/* the optional stream: 405 means the server has none; others end it */
		if (res != CURLE_OK || status != 200)
			h->listening = status == 405 ? 1 : 0;
		else
			h->listening = 0;
		if (status == 405)
			h->listening = 1;	/* never ask again this session */
		return;
	}
	if (res != CURLE_OK) {
		snprintf(why, sizeof why, "%s", x->over ? "sent a message over the size limit" :
		    curl_easy_strerror(res));
		/* unreachable is not an answer: a failed start, whatever was asked */
		push(h, HEV_FAIL, x->uid, x->init ? 1 : 0, NULL, 0, why);
		return;
	}
	if (x->init == 2 && status != 200) {
		/* server/discover refused: the caller falls back to initialize */
		snprintf(why, sizeof why, "answered HTTP %ld to server/discover", status);
		push(h, HEV_FAIL, x->uid, 2, NULL, 0, why);
		return;
	}
	if (status == 404 && h->sid[0] && !x->init) {
		push(h, HEV_EXPIRED, x->uid, 0, x->body, x->bodyn, "session expired (404)");
		return;
	}
	if (x->init == 1 && !h->legacy && (status == 400 || status == 404 || status == 405)) {
		/* no Streamable HTTP here: try the legacy HTTP+SSE transport */
		msg_warn("upstream answered HTTP %ld to initialize; trying the legacy HTTP+SSE transport", status);
		h->legacy = 1;
		if (legacy_post(h, x->body, x->bodyn, x->uid, 1) < 0)
			push(h, HEV_FAIL, x->uid, 1, NULL, 0, "could not open the legacy event stream");
		return;
	}
	if (status != 200 && status != 202) {
		snprintf(why, sizeof why, "answered HTTP %ld", status);
		push(h, HEV_FAIL, x->uid, x->init, NULL, 0, why);
		return;
	}
	if (x->init == 1 && x->sid[0])
		memcpy(h->sid, x->sid, sizeof h->sid);
	if (h->legacy)
		return;		/* the answer comes on the event stream */
	if (!x->sse && x->resp.len)
		push(h, HEV_MSG, 0, 0, x->resp.p, x->resp.len, NULL);
	if (x->sse && !x->init)
		done_stream(h, x);
	else
		push(h, HEV_DONE, x->uid, x->init, NULL, 0, NULL);
}

int
http_up_resume(struct http_up *h, uint64_t uid, const char *last_id, long retry_ms)
{
	if (h->modern || h->legacy || !h->sid[0] || h->nresume == MAX_RESUME || strlen(last_id) > SSE_ID_MAX)
		return -1;
	if (retry_ms < 0)
		retry_ms = RESUME_DEFAULT_MS;
	h->resume[h->nresume].uid = uid;
	h->resume[h->nresume].due = clock_ms(CLOCK_MONOTONIC) + (retry_ms > RESUME_MAX_MS ? RESUME_MAX_MS : retry_ms);
	snprintf(h->resume[h->nresume].id, sizeof h->resume[0].id, "%s", last_id);
	h->nresume++;
	return 0;
}

/* Start the resumptions that are due; the ms until the next one (-1: none). */
static int
resume_due(struct http_up *h)
{
	int64_t now = clock_ms(CLOCK_MONOTONIC), next = -1;

	for (int i = 0; i < h->nresume;) {
		if (h->resume[i].due > now) {
			if (next < 0 || h->resume[i].due - now < next)
				next = h->resume[i].due - now;
			i++;
			continue;
		}
		if (start(h, NULL, 0, h->resume[i].uid, 0, 1, h->resume[i].id) < 0)
			push(h, HEV_FAIL, h->resume[i].uid, 0, NULL, 0, "could not resume an event stream");
		h->resume[i] = h->resume[--h->nresume];
	}
	return next < 0 ? -1 : next > 60000 ? 60000 : (int)next;
}

int
http_up_sending(const struct http_up *h)
{
	int n = 0;

	for (int i = 0; i < MAX_XFER; i++)
		if (h->x[i] && !h->x[i]->get && h->x[i]->uid == 0 && !h->x[i]->init)
			n++;
	return n;
}

int
http_up_wait(struct http_up *h, struct pollfd *pf, int n, int timeout_ms)
{
	static struct curl_waitfd w[256];
	CURLMsg *msg;
	int running, left, i;

	if ((left = resume_due(h)) >= 0 && left < timeout_ms)
		timeout_ms = left;
	for (i = 0; i < n && i < 256; i++) {
		w[i].fd = pf[i].fd;
		w[i].events = (short)pf[i].events;
		w[i].revents = 0;
	}
	if (curl_multi_wait(h->m, w, (unsigned)i, timeout_ms, NULL) != CURLM_OK)
		return -1;
	for (i = 0; i < n && i < 256; i++)
		pf[i].revents = w[i].revents;
	resume_due(h);
	curl_multi_perform(h->m, &running);
	while ((msg = curl_multi_info_read(h->m, &left)) != NULL) {
		struct xfer *x = NULL;
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (!x)
			continue;
		done(h, x, msg->data.result);
		for (i = 0; i < MAX_XFER; i++)
			if (h->x[i] == x)
				h->x[i] = NULL;
		xfer_free(x);
	}
	/* messages that waited for the legacy endpoint (not from a callback) */
	if (h->legacy && h->endpoint[0] && h->ndefer) {
		for (i = 0; i < h->ndefer; i++) {
			if (start(h, h->defer[i].msg, h->defer[i].n, h->defer[i].uid, h->defer[i].init, 0, NULL) < 0)
				push(h, HEV_FAIL, h->defer[i].uid, h->defer[i].init, NULL, 0, "could not be sent to");
			free(h->defer[i].msg);
		}
		h->ndefer = 0;
		curl_multi_perform(h->m, &running);
	}
	return 0;
}
