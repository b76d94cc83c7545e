/* request: an HTTP proxy request head, parsed and rewritten. Pure.
 *
 * "CONNECT host:port HTTP/1.x" (a tunnel, for HTTPS) or an absolute-form
 * "METHOD http://host[:port]/path HTTP/1.x" (plain HTTP), x 0 or 1. The
 * host is normalized (lib/hostname.h); a URL with credentials (user@host)
 * is refused, and so is a head with a bare CR or LF, a method or header
 * name that is not a token, a control byte in the target or a header
 * value, or a folded header line. For absolute-form the head is rewritten for the origin server:
 * origin-form target, Host from the URL, Proxy-* and Connection headers
 * dropped, "Connection: close" added. Nothing from the head is kept but
 * the host and the port. */
#ifndef EGRESS_REQUEST_H
#define EGRESS_REQUEST_H
#include <stddef.h>
#include <stdint.h>

#include "hostname.h"

#define EREQ_MAX_HEAD 16384

struct ereq {
	int connect;		/* 1: CONNECT (tunnel) */
	char host[HOST_MAX];	/* normalized */
	enum host_kind kind;
	uint16_t port;
	size_t head_len;	/* bytes of buf the head took */
	size_t out_len;		/* absolute-form: the rewritten head in out */
};

/* Parse buf[0..len). 0: complete (r filled, out holds the rewritten head
 * for absolute-form, at most outn bytes); 1: incomplete, read more; -1:
 * refused, *why a one-line reason (static text). */
int ereq_parse(const char *buf, size_t len, struct ereq *r, char *out, size_t outn,
    const char **why);

#endif
