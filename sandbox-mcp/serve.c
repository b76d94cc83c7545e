#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fdio.h"
#include "mounts.h"
#include "mcpmeta.h"
#include "serve.h"
#include "sess.h"
#include "store.h"
#include "tools.h"
#include "version.h"
#include "snap.h"

#define SERVER_INFO "{\"name\":\"sandbox-mcp\",\"version\":\"" CORRAL_VERSION "\"}"

int
serve_prepare(struct sbx *s, char *err, size_t errn)
{
	config_free(&s->cfg);
	if (config_load(s->cfgpath, s->home[0] ? s->home : NULL, &s->cfg, err, errn) < 0)
		return -1;
	/* a file this server read and now cannot find was deleted or moved:
	 * never quietly run on the defaults it replaced */
	if (s->cfg.source[0])
		s->cfg_seen = 1;
	else if (s->cfg_seen)
		return sbx_err(err, errn, "config %s: the file this server read is gone; refusing to fall back to the embedded defaults (put it back, or restart the server to run on the defaults)",
		    s->cfgpath);
	if (mount_roots_check(s, err, errn) < 0)
		return -1;
	snap_reap_idle(s);
	return 0;
}

static void
result(struct buf *out, const struct rpc_msg *m, const char *res)
{
	const char *id;
	size_t idn;

	rpc_raw(m, m->id, &id, &idn);
	rpc_result(out, id, idn, res, strlen(res));
}

static void
error(struct buf *out, const struct rpc_msg *m, int code, const char *msg)
{
	const char *id = NULL;
	size_t idn = 0;

	if (m->id >= 0)
		rpc_raw(m, m->id, &id, &idn);
	rpc_error(out, id, idn, code, msg);
}

/* initialize: 2025-11-25, or the client's version when it is one we speak */
static void
initialize(struct buf *out, const struct rpc_msg *m)
{
	static const char *const known[] = { "2025-11-25", "2025-06-18", "2025-03-26", NULL };
	const char *v = REV_2025_11_25;
	char res[512];
	int p = m->params >= 0 ? json_get(m->js, m->t, m->params, "protocolVersion") : -1;

	for (int i = 0; p >= 0 && known[i]; i++)
		if (json_eq(m->js, &m->t[p], known[i]))
			v = known[i];
	snprintf(res, sizeof res, "{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":{}},"
	    "\"serverInfo\":" SERVER_INFO ",\"instructions\":\"Call create_session first; every other tool works on the current session (or session_id).\"}", v);
	result(out, m, res);
}

static void
discover(struct buf *out, const struct rpc_msg *m)
{
	result(out, m, "{\"supportedVersions\":[\"" REV_2026_07_28 "\",\"" REV_2025_11_25 "\"],"
	    "\"capabilities\":{\"tools\":{}},\"_meta\":{\"io.modelcontextprotocol/serverInfo\":" SERVER_INFO "},"
	    "\"resultType\":\"complete\"}");
}

static void
tool_result(struct buf *out, const struct rpc_msg *m, const char *text, size_t n, const char *structured, int is_error)
{
	struct buf b = { 0 };

	buf_adds(&b, "{\"content\":[{\"type\":\"text\",\"text\":");
	json_quote_buf(&b, text, n);
	buf_adds(&b, "}]");
	if (structured) {
		buf_adds(&b, ",\"structuredContent\":");
		buf_adds(&b, structured);
	}
	buf_adds(&b, is_error ? ",\"isError\":true" : ",\"isError\":false");
	buf_adds(&b, ",\"resultType\":\"complete\"}");
	if (b.p)
		result(out, m, b.p);
	else
		error(out, m, RPC_INTERNAL_ERROR, "out of memory");
	buf_free(&b);
}

static void
call(struct sbx *s, struct buf *out, const struct rpc_msg *m)
{
	char name[64], err[SBX_ERR_MAX] = "";
	const struct tool *t;
	struct targs a = { m->js, m->t, -1 };
	struct jw w = { 0 };
	int nm = m->params >= 0 ? json_get(m->js, m->t, m->params, "name") : -1, ar, rc;

	if (nm < 0 || m->t[nm].type != JSMN_STRING || json_str(m->js, &m->t[nm], name, sizeof name) < 0 ||
	    (t = tool_find(name)) == NULL) {
		error(out, m, RPC_INVALID_PARAMS, "Unknown tool");
		return;
	}
	ar = json_get(m->js, m->t, m->params, "arguments");
	if (ar == -2 || (ar >= 0 && m->t[ar].type != JSMN_OBJECT)) {
		error(out, m, RPC_INVALID_PARAMS, "arguments must be an object");
		return;
	}
	a.obj = ar;
	/* an argument the tool does not take is a mistake the caller must see
	 * (a drun argument sandbox-mcp lacks would otherwise be ignored) */
	for (int i = 0, k = ar + 1; ar >= 0 && i < m->t[ar].size; i++, k = json_next(m->t, k + 1))
		if (!tool_takes(t, m->js, &m->t[k])) {
			char msg[400];
			snprintf(msg, sizeof msg, "Invalid params: %s takes no argument \"%.*s\" (tools/list gives its arguments)",
			    name, m->t[k].end - m->t[k].start > 64 ? 64 : m->t[k].end - m->t[k].start, m->js + m->t[k].start);
			error(out, m, RPC_INVALID_PARAMS, msg);
			return;
		}
	/* the store's lock, across servers and workers: one call at a time
	 * works on the store, one at a time on a session (sess_pick); a long
	 * call on its own session gives the store's up once it holds that */
	while (flock(s->lockfd, LOCK_EX) < 0 && errno == EINTR)
		;
	s->store_locked = 1;
	if (serve_prepare(s, err, sizeof err) < 0) {
		rc = -1;
	} else {
		/* long, and on their own session only */
		s->store_release = strcmp(name, "session_bash") == 0 || strcmp(name, "session_package_install") == 0 ||
		    strcmp(name, "session_extract_text") == 0 || strcmp(name, "session_fetch") == 0;
		jw_open(&w, '{');
		rc = t->fn(s, &a, &w, err, sizeof err);
		jw_close(&w, '}');
		s->store_release = 0;
	}
	if (s->store_locked)
		flock(s->lockfd, LOCK_UN);
	s->store_locked = 0;
	if (rc < 0) {
		char msg[SBX_ERR_MAX + 64];
		int n = snprintf(msg, sizeof msg, "sandbox-mcp: %s: %s", name, err[0] ? err : "failed");
		tool_result(out, m, msg, (size_t)n, NULL, 1);
	} else if (w.err) {
		error(out, m, RPC_INTERNAL_ERROR, "out of memory");
	} else {
		tool_result(out, m, w.b.p, w.b.len, w.b.p, 0);
	}
	buf_free(&w.b);
}

void
serve_line(struct sbx *s, const char *line, size_t len, struct buf *out)
{
	static struct rpc_toks tk;
	struct rpc_msg m;
	int rc = rpc_parse(line, len, &tk, &m);

	if (rc < 0) {
		error(out, &m, rc, rc == RPC_PARSE_ERROR ? "Parse error" :
		    rc == RPC_INVALID_REQUEST ? "Invalid Request" : "Internal error");
		return;
	}
	if (m.kind != RPC_REQUEST)
		return;		/* notifications and answers: nothing to say */
	if (rpc_is(&m, "initialize"))
		initialize(out, &m);
	else if (rpc_is(&m, "server/discover"))
		discover(out, &m);
	else if (rpc_is(&m, "ping"))
		result(out, &m, "{}");
	else if (rpc_is(&m, "tools/list")) {
		const char *l = tools_list_json();
		if (l)
			result(out, &m, l);
		else
			error(out, &m, RPC_INTERNAL_ERROR, "out of memory");
	} else if (rpc_is(&m, "tools/call"))
		call(s, out, &m);
	else
		error(out, &m, RPC_METHOD_NOT_FOUND, "Method not found");
}

int
serve_stdio(struct sbx *s, int in, int outfd)
{
	struct buf rd = { 0 }, out = { 0 };
	char chunk[65536];

	for (;;) {
		ssize_t n = read(in, chunk, sizeof chunk);
		char *nl;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf_free(&rd);
			return -1;
		}
		if (n == 0)
			break;
		if (buf_add(&rd, chunk, (size_t)n) < 0)
			return -1;
		while (rd.len && (nl = memchr(rd.p, '\n', rd.len)) != NULL) {
			size_t l = (size_t)(nl - rd.p);
			out.len = 0;
			if (l > 0 && !(l == 1 && rd.p[0] == '\r'))
				serve_line(s, rd.p, l && rd.p[l - 1] == '\r' ? l - 1 : l, &out);
			buf_consume(&rd, l + 1);
			if (out.len && fd_write_all(outfd, out.p, out.len) < 0) {
				buf_free(&rd);
				buf_free(&out);
				return -1;
			}
		}
		if (rd.len > SERVE_LINE_MAX) {
			static const char e[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"message too large\"}}\n";
			fd_write_all(outfd, e, sizeof e - 1);
			buf_free(&rd);
			buf_free(&out);
			return -1;
		}
	}
	buf_free(&rd);
	buf_free(&out);
	return 0;
}
