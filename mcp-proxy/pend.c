/* pend: the table of requests in flight upstream, and their stand-in answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpmeta.h"
#include "proxy_int.h"

const char EMPTY_TOOLS[] = "{\"tools\":[]}";
#include "version.h"

struct pend *
pend_new(struct proxy *p, enum pkind kind, int c, const char *cid, size_t cidn)
{
	for (int i = 0; i < MAX_PEND; i++) {
		struct pend *e = &p->pend[i];
		if (e->kind != K_FREE)
			continue;
		memset(e, 0, sizeof *e);
		if (cid && (e->cid = dupn(cid, cidn)) == NULL)
			return NULL;
		e->cidn = cidn;
		e->kind = kind;
		e->conn = c;
		e->uid = p->next_uid++;
		e->deadline = now_ms() + p->cfg->timeout_ms;
		return e;
	}
	return NULL;
}

void
pend_free(struct pend *e)
{
	free(e->cid);
	free(e->ptok);
	free(e->msg);
	memset(e, 0, sizeof *e);
}

struct pend *
pend_by_uid(struct proxy *p, uint64_t uid)
{
	for (int i = 0; i < MAX_PEND; i++)
		if (p->pend[i].kind != K_FREE && p->pend[i].uid == uid)
			return &p->pend[i];
	return NULL;
}

/* Answer a request the upstream will not: zero tools for a listing, a
 * stand-in handshake, an error for anything else. */
void
pend_fail(struct proxy *p, struct pend *e, int code, const char *text, const char *outcome)
{
	char res[256];

	switch (e->kind) {
	case K_LIST:
		conn_result(p, e->conn, e->cid, e->cidn, list_empty(e->list));
		break;
	case K_INIT_WAIT:
		snprintf(res, sizeof res, "{\"protocolVersion\":\"" REV_2025_11_25 "\",\"capabilities\":"
		    "{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"mcp-proxy\","
		    "\"version\":\"%s\"}}", CORRAL_VERSION);
		conn_result(p, e->conn, e->cid, e->cidn, res);
		break;
	case K_DISC_WAIT:
		discover_answer(p, e->conn, e->cid, e->cidn);
		break;
	case K_CALL:
		audit(p, e->tool, strlen(e->tool), outcome);
		/* fall through */
	case K_OTHER:
		conn_error(p, e->conn, e->cid, e->cidn, code, text);
		break;
	default:
		break;
	}
	pend_free(e);
}

/* A request held for the handshake that did not finish within its
 * timeout: an error saying so, whatever was asked (a listing too: zero
 * tools from an upstream still starting would read as "it has none"). */
void
pend_unready(struct proxy *p, struct pend *e)
{
	if (e->kind == K_CALL)
		audit(p, e->tool, strlen(e->tool), "timeout");
	conn_error(p, e->conn, e->cid, e->cidn, RPC_UPSTREAM_TIMEOUT,
	    "upstream not ready: its handshake did not finish within the timeout");
	pend_free(e);
}
