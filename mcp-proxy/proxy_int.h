/*
 * proxy_int: the state the event loop shares between its parts.
 *   proxy.c     the loop: build, one poll round, recycle, timers
 *   upstream.c  the upstream's life cycle (spawn, fail, back off) and handshake
 *   upmsg.c     messages from the upstream, dispatched to clients
 *   client.c    messages from a client, checked and dispatched upstream
 *   conn.c      downstream connections: queueing answers, close, accept
 *   http_down.c the downstream HTTP endpoint's framing (lib/httpd)
 *   lines.c     newline-delimited framing, bounded, and flushing
 *   pend.c      the table of requests in flight upstream
 *   audit.c     the audit line
 */
#ifndef MCP_PROXY_INT_H
#define MCP_PROXY_INT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "httpconn.h"
#include "launcher.h"
#include "proxy.h"
#include "rpc.h"

/* Malformed upstream messages reported per start; the rest are dropped
 * silently (garbage comes by the line). */
enum { MALFORMED_SAID = 10 };

/* How often one request's event stream is resumed (GET, Last-Event-ID)
 * after it ended without the answer. */
enum { MAX_RESUMES = 5 };

enum { MAX_CONN = 64, MAX_PEND = 512, MAX_SREQ = 64, MAX_TASKS = 256, CHUNK = 65536 };

enum ckind { C_STDIO, C_UNIX, C_HTTP };

enum pkind { K_FREE, K_INTERNAL_INIT, K_INIT_WAIT, K_DISC_WAIT, K_LIST, K_CALL, K_OTHER };

struct conn {
	int used, in, out, eof, discard;
	enum ckind kind;
	struct buf rd, wr;
	struct httpc h;		/* kind C_HTTP: one request at a time, its deadlines
				 * (lib/httpconn); got and closing serve every kind */
};

/* K_LIST: which listing, filtered to which allowlist */
enum lkind { L_TOOLS, L_RESOURCES, L_TEMPLATES, L_PROMPTS, L_TASKS };

struct pend {
	enum pkind kind;
	enum lkind list;
	uint64_t uid;		/* id upstream */
	int conn;
	char *cid;		/* the client's id, raw JSON */
	size_t cidn;
	char *ptok;		/* progress token, raw JSON */
	size_t ptokn;
	char tool[TOOL_NAME_MAX + 1];
	int64_t deadline;
	int held;		/* queued until the upstream is ready */
	char *msg;		/* the held message */
	size_t msgn;
	int resumes;		/* times its event stream was resumed */
};

struct sreq {			/* a request from the upstream to a client */
	int used, conn;
	uint64_t did;		/* id downstream */
	char *uid;		/* the upstream's id, raw JSON */
	size_t uidn;
};

enum { UP_DOWN, UP_RUNNING };

enum { ERA_UNKNOWN, ERA_MODERN, ERA_LEGACY };

struct proxy {
	const struct proxy_config *cfg;
	struct conn conn[MAX_CONN];
	struct pend pend[MAX_PEND];
	struct sreq sreq[MAX_SREQ];
	uint64_t next_uid, next_did;
	struct rpc_toks tk;
	struct buf tmp;
	/* upstream */
	int state, ready, in, out, discard;
	pid_t pid;
	struct launcher la;	/* starts and ends a stdio upstream */
	struct buf rd, wr;
	struct http_up *http;	/* NULL: a stdio upstream */
	int expired_once;
	int64_t retry_at, backoff, last_rx;
	char *init_params, *init_result;
	size_t init_paramsn;
	uint64_t init_owner;	/* the K_INIT_WAIT whose client's params those are (0: ours) */
	int reinit;		/* the next handshake follows a restart */
	int era, probing;	/* ERA_*; a server/discover probe is in flight */
	char *caps;		/* the upstream's capabilities, raw JSON */
	char *task[MAX_TASKS];	/* task ids allowed tools/calls created (unescaped) */
	int ntask;
	int lunix, lhttp, http_port;
	int stopping;
	const char *over_p;	/* the start of a line over the size limit */
	size_t over_n;
	int malformed;		/* malformed upstream messages reported since it started */
	uint64_t via_uid;	/* the request whose HTTP answer stream carries this message (0: none) */
};

extern const char EMPTY_TOOLS[];

/* proxy.c */
int64_t now_ms(void);
char *dupn(const char *s, size_t n);

/* audit.c */
void audit(struct proxy *p, const char *tool, size_t tooln, const char *outcome);
/* A refused or dropped message: its method (unescaped), the tool it names
 * (NULL: none) and the outcome. */
void audit_method(struct proxy *p, const char *method, const char *tool, size_t tooln, const char *outcome);
/* A notification dropped for the resource URI it names. */
void audit_uri(struct proxy *p, const char *method, const char *uri, size_t urin, const char *outcome);

/* conn.c */
void http_head(struct conn *k, int status, const char *ctype, size_t clen, int has_len);
void http_status(struct conn *k, int status);
void conn_send(struct proxy *p, int c, const char *s, size_t n);
void conn_reply(struct proxy *p, int c, const char *s, size_t n);
void conn_error(struct proxy *p, int c, const char *id, size_t idn, int code, const char *text);
void conn_result(struct proxy *p, int c, const char *id, size_t idn, const char *res);
void broadcast(struct proxy *p, const char *s, size_t n);
int conn_pending(struct proxy *p, int c);
/* Cancel what client c has in flight (upstream too); conn_close also
 * frees its slot. */
void conn_cancel(struct proxy *p, int c);
void conn_close(struct proxy *p, int c);
int conn_new(struct proxy *p, int fd, enum ckind kind);

/* http_down.c */
void http_read(struct proxy *p, int c);
/* An HTTP connection was accepted: make room among the unproven ones. */
void http_make_room(struct proxy *p);
/* When HTTP connection k must give its slot back (0: not HTTP, or an
 * answer is due to it). */
int64_t http_due(const struct proxy *p, const struct conn *k);

/* pend.c */
struct pend *pend_new(struct proxy *p, enum pkind kind, int c, const char *cid, size_t cidn);
void pend_free(struct pend *e);
struct pend *pend_by_uid(struct proxy *p, uint64_t uid);
void pend_fail(struct proxy *p, struct pend *e, int code, const char *text, const char *outcome);
void pend_unready(struct proxy *p, struct pend *e);

/* upstream.c */
void up_send(struct proxy *p, const char *s, size_t n, uint64_t uid, int init);
void up_kill(struct proxy *p);
void up_close(struct proxy *p);
void up_fail(struct proxy *p, const char *why);
void up_spawn(struct proxy *p);
void up_gone(struct proxy *p, const char *pipe_why);
void start_handshake(struct proxy *p);
void probe_failed(struct proxy *p, const char *why);
void up_ready(struct proxy *p);
void discover_answer(struct proxy *p, int c, const char *cid, size_t cidn);
void keep_caps(struct proxy *p, const struct rpc_msg *m, int r);
void up_discovered(struct proxy *p, const struct rpc_msg *m);
void http_events(struct proxy *p);

/* client.c */
/* 1 when task id v[0..n) was created by an allowed tools/call. */
int task_known(const struct proxy *p, const char *v, size_t n);
void task_add(struct proxy *p, const char *v, size_t n);
/* The listing lk filtered (see toolallow.h), or its empty form. */
int list_filter_kind(struct proxy *p, enum lkind lk, const struct rpc_msg *m, const char *id, size_t idn,
    struct buf *out);
const char *list_empty(enum lkind lk);
void client_line(struct proxy *p, int c, const char *line, size_t len);

/* upmsg.c */
void up_line(struct proxy *p, const char *line, size_t len);
/* The upstream sent a message over the size limit, beginning s[0..n):
 * the request it answers (by the "id" there) gets an error at once. */
void up_oversized(struct proxy *p, const char *s, size_t n);

/* lines.c */
enum { FEED_OK, FEED_EOF, FEED_ERR };
int feed(struct proxy *p, int fd, struct buf *rd, int *discard, size_t max,
    void (*fn)(struct proxy *, int, const char *, size_t), int who);
void client_feed_line(struct proxy *p, int c, const char *line, size_t len);
void up_feed_line(struct proxy *p, int who, const char *line, size_t len);
int flush(int fd, struct buf *b);

#endif
