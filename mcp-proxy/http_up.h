/* http_up: a Streamable HTTP upstream over libcurl (multi interface). */
#ifndef MCP_HTTP_UP_H
#define MCP_HTTP_UP_H
#include <poll.h>
#include <stddef.h>
#include <stdint.h>

struct http_config {
	const char *url;
	const char *token;	/* NULL: no Authorization header */
	const char *cacert;	/* NULL: the system CA bundle */
	size_t max_msg;
};

enum http_ev_kind {
	HEV_MSG,	/* a message from the upstream: data[0..n); uid: the request on whose answer stream it came (0: another stream) */
	HEV_FAIL,	/* the POST of request uid (0: not a request) failed: why */
	HEV_EXPIRED,	/* 404 on a session: data is the message to send again */
	HEV_DONE,	/* the POST of request uid is complete (or the GET resuming it);
			 * resumable: its event stream had an id, last_id and retry say
			 * how to resume it (http_up_resume) */
};

struct http_ev {
	enum http_ev_kind kind;
	uint64_t uid;
	int init;
	char *data;
	size_t n;
	char why[96];
	int resumable;
	char last_id[256];
	long retry;		/* ms, -1: none given */
};

struct http_up;

/* 1 when url is https://..., or http:// to a loopback host (127.0.0.1,
 * [::1], localhost): a bearer token never crosses a network in clear. */
int http_url_ok(const char *url);
struct http_up *http_up_new(const struct http_config *cfg);
void http_up_free(struct http_up *h);
/* POST one message. uid: the request's upstream id, or 0. init: 1 when it
 * is the initialize request (its answer carries the session id), 2 when it
 * is the server/discover probe (sent as 2026-07-28; any HTTP status but
 * 200 is reported as HEV_FAIL with init 2, never as a legacy server). */
int http_up_post(struct http_up *h, const char *msg, size_t n, uint64_t uid, int init);
/* The negotiated protocol version, sent as MCP-Protocol-Version. */
void http_up_set_version(struct http_up *h, const char *v, size_t n);
/* 2026-07-28 from now on: no session; MCP-Protocol-Version, Mcp-Method and
 * Mcp-Name (derived from each body) and params._meta on every request;
 * notifications and responses are not posted. */
void http_up_set_modern(struct http_up *h, int on);
/* Abort every transfer and forget the session. */
void http_up_reset(struct http_up *h);
/* Resume the event stream of request uid in retry_ms (-1: the default,
 * 1 s): a GET with Last-Event-ID last_id, whose events are handed back as
 * that request's. Returns -1 when it cannot be scheduled (no session). */
int http_up_resume(struct http_up *h, uint64_t uid, const char *last_id, long retry_ms);
/* Open the GET stream for server-initiated messages (once per session). */
void http_up_listen(struct http_up *h);
/* How many notifications and responses are still being posted. */
int http_up_sending(const struct http_up *h);
/* Wait for our descriptors and curl's, then run transfers. */
int http_up_wait(struct http_up *h, struct pollfd *pf, int n, int timeout_ms);
/* The next event, or 0 when none. The caller frees ev->data. */
int http_up_next(struct http_up *h, struct http_ev *ev);

#endif
