/* corral run's MCP servers: a proxy each, outside the boundary, on a
 * loopback port with a per-attempt token; the agent finds them in
 * $CORRAL_MCP_CONFIG (an "mcpServers" document, 0600). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "argv.h"
#include "browser.h"
#include "execenv.h"
#include "fdio.h"
#include "json.h"
#include "mcp.h"
#include "msg.h"
#include "num.h"
#include "rnd.h"
#include "procspawn.h"

/* The proxies' environment: PATH and HOME, and the names the policy keeps
 * for a stdio upstream (mcp-proxy passes on only those given with -e). */
static char **
mcp_env(char *const envp[], const struct mcp_server *m, struct argv *store)
{
	const char *v = env_get(envp, "PATH");

	av_pushf(store, "PATH=%s", v ? v : "/usr/bin:/bin");
	if ((v = env_get(envp, "HOME")) != NULL)
		av_pushf(store, "HOME=%s", v);
	for (size_t k = 0; k < m->env_keep.n; k++)
		if ((v = env_get(envp, m->env_keep.v[k])) != NULL)
			av_pushf(store, "%s=%s", m->env_keep.v[k], v);
	return store->err ? NULL : store->v;
}

/* The same environment for corral explain's script: env -i, then PATH,
 * HOME and the kept names taken from the script's own environment (by
 * reference: no value is printed), so mcp-proxy starts there exactly as
 * under corral run, with no proxy variable or anything else. */
int
mcp_env_prefix(const struct mcp_server *m, char *out, size_t cap)
{
	size_t len = 0;
	int n = snprintf(out, cap, "env -i PATH=\"${PATH:-/usr/bin:/bin}\" ${HOME+\"HOME=$HOME\"} ");

	if (n < 0 || (size_t)n >= cap)
		return errno = ENAMETOOLONG, -1;
	len = (size_t)n;
	for (size_t k = 0; k < m->env_keep.n; k++) {
		const char *v = m->env_keep.v[k];	/* a policy name: [A-Za-z_][A-Za-z0-9_]* */
		n = snprintf(out + len, cap - len, "${%s+\"%s=$%s\"} ", v, v, v);
		if (n < 0 || (size_t)n >= cap - len)
			return errno = ENAMETOOLONG, -1;
		len += (size_t)n;
	}
	return 0;
}

/* mcp-proxy prints exactly http://127.0.0.1:PORT/mcp as its first line. */
static int
url_port(const char *url)
{
	char port[6];
	size_t k = strncmp(url, "http://127.0.0.1:", 17) == 0 ? strspn(url + 17, "0123456789") : 0;
	int pn;

	if (k == 0 || k >= sizeof port || strcmp(url + 17 + k, "/mcp") != 0)
		return errno = EPROTO, -1;
	memcpy(port, url + 17, k);
	port[k] = '\0';
	if (num_parse_int(port, 1, 65535, &pn) < 0)
		return errno = EPROTO, -1;
	return pn;
}

/* Start proxy i (it dies with corral); read its URL. The port, or -1. */
static int
start_proxy(struct mcpset *set, const struct plan *pl, size_t i, char *const envp[],
    char *url, size_t urln)
{
	struct argv a = { 0 }, e = { 0 };
	struct spawned sp;
	char **env;
	size_t got = 0;
	ssize_t n;
	int r;

	if (step_mcp(pl, i, &a) < 0 || (env = mcp_env(envp, &pl->pol->mcp[i], &e)) == NULL) {
		av_free(&a);
		av_free(&e);
		return errno = ENOMEM, -1;
	}
	r = spawn_start(a.v, env, SPAWN_CAPTURE | SPAWN_DEATHSIG, &sp);
	av_free(&a);
	av_free(&e);
	if (r < 0)
		return -1;
	set->p[set->n].pid = sp.pid;
	set->p[set->n].out = sp.out;
	set->n++;
	while (got + 1 < urln) {
		n = read(sp.out, url + got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || url[got] == '\n')
			break;
		got++;
	}
	url[got] = '\0';
	return url_port(url);
}

/* A per-attempt token in ATTEMPT/NAME (0600, new). */
static int
write_token(int afd, const char *name, char tok[65])
{
	int fd;

	if (rnd_hex(tok, 32) < 0)
		return -1;
	fd = openat(afd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fd_write_all(fd, tok, 64) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Append to the document; -1 when it would not fit. */
static int
doc_add(char *doc, size_t docn, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int
doc_add(char *doc, size_t docn, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(doc + *len, docn - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= docn - *len)
		return errno = ENAMETOOLONG, -1;
	*len += (size_t)n;
	return 0;
}

static void
audit_proxy(struct audit *au, const struct mcp_server *m, const char *port)
{
	audit_start(au, "mcp-proxy");
	audit_str(au, "server", m->name);
	audit_strs(au, "tools", m->tools.v, m->tools.n);
	audit_str(au, "upstream", m->url ? "http" : "stdio");
	audit_str(au, "port", port);
	audit_end(au);
}

int
mcp_start(struct mcpset *set, struct plan *pl, struct audit *au, char *const envp[])
{
	const struct policy *p = pl->pol;
	/* each entry is bounded (name 512 quoted, url 256, token 64) */
	enum { DOCN = 16 + POLICY_MAX_MCP * 1024 };
	char url[256], tok[65] = "", q[512], name[96], *doc;
	int afd = -1, cfd = -1, dfd = -1, port, r = -1;
	size_t i, len = 0;

	if (p->nmcp == 0)
		return 0;
	if ((doc = malloc(DOCN)) == NULL)
		return msg_fatal("out of memory"), -1;
	afd = open(pl->attempt_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cfd = afd < 0 ? -1 : openat(afd, "config", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0 || (mkdirat(cfd, "corral", 0700) < 0 && errno != EEXIST) ||
	    (dfd = openat(cfd, "corral", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		msg_fatal_sys("unable to prepare %s/config/corral", pl->attempt_dir);
		goto out;
	}
	doc_add(doc, DOCN, &len, "{\"mcpServers\":{");
	for (i = 0; i < p->nmcp; i++) {
		const struct mcp_server *m = &p->mcp[i];
		snprintf(name, sizeof name, "mcp-%s.token", m->name);
		if (write_token(afd, name, tok) < 0) {
			msg_fatal_sys("unable to write %s/%s", pl->attempt_dir, name);
			goto out;
		}
		if (m->browser && browser_prepare(pl) < 0)
			goto out;
		if ((port = start_proxy(set, pl, i, envp, url, sizeof url)) < 0) {
			msg_fatal("mcp-proxy for MCP server %s did not start", m->name);
			msg_hint("its own message above says why");
			goto out;
		}
		snprintf(pl->mcp_port[i], sizeof pl->mcp_port[i], "%d", port);
		json_quote(m->name, strlen(m->name), q, sizeof q);
		if (doc_add(doc, DOCN, &len, "%s%s:{\"type\":\"http\",\"url\":\"%s\","
		    "\"headers\":{\"Authorization\":\"Bearer %s\"}}", i ? "," : "", q, url, tok) < 0) {
			msg_fatal("the MCP configuration does not fit in %d bytes", (int)DOCN);
			goto out;
		}
		audit_proxy(au, m, pl->mcp_port[i]);
	}
	if (doc_add(doc, DOCN, &len, "}}\n") < 0) {
		msg_fatal("the MCP configuration does not fit in %d bytes", (int)DOCN);
		goto out;
	}
	if (file_write_atomic(dfd, "mcp.json", doc, len, 0600) < 0) {
		msg_fatal_sys("unable to write %s/config/corral/mcp.json", pl->attempt_dir);
		goto out;
	}
	r = 0;
out:
	explicit_bzero(tok, sizeof tok);
	explicit_bzero(doc, DOCN);
	free(doc);
	if (dfd >= 0)
		close(dfd);
	if (cfd >= 0)
		close(cfd);
	if (afd >= 0)
		close(afd);
	return r;
}

void
mcp_stop(struct mcpset *set)
{
	int ws;

	for (size_t i = 0; i < set->n; i++) {
		kill(set->p[i].pid, SIGTERM);
		while (waitpid(set->p[i].pid, &ws, 0) < 0 && errno == EINTR)
			;
		close(set->p[i].out);
	}
	set->n = 0;
}
