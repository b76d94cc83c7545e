/* browser: the "browser" MCP server's command and its attempt directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "browser.h"
#include "fdio.h"
#include "msg.h"
#include "proctree.h"

int
browser_add(struct policy *p, char *why, size_t whyn)
{
	struct mcp_server *m;

	if (!p->browser.on)
		return 0;
	for (size_t i = 0; i < p->nmcp; i++)
		if (strcmp(p->mcp[i].name, "browser") == 0)
			return snprintf(why, whyn, "\"mcp\" names a server \"browser\", the name of the "
			    "policy's \"browser\""), -1;
	if (p->nmcp >= POLICY_MAX_MCP)
		return snprintf(why, whyn, "\"mcp\" and \"browser\" make more than %d servers", POLICY_MAX_MCP), -1;
	m = &p->mcp[p->nmcp];
	memset(m, 0, sizeof *m);
	m->browser = 1;
	if ((m->name = strdup("browser")) == NULL ||
	    (m->tools.v = calloc(p->browser.tools.n, sizeof *m->tools.v)) == NULL)
		goto nomem;
	for (; m->tools.n < p->browser.tools.n; m->tools.n++)
		if ((m->tools.v[m->tools.n] = strdup(p->browser.tools.v[m->tools.n])) == NULL)
			goto nomem;
	p->nmcp++;
	return 0;
nomem:
	for (size_t k = 0; k < m->tools.n; k++)
		free(m->tools.v[k]);
	free(m->tools.v);
	free(m->name);
	memset(m, 0, sizeof *m);
	return snprintf(why, whyn, "out of memory"), -1;
}

void
browser_package(const struct plan *pl, char *out, size_t cap)
{
	if (pl->pol->browser.package)
		snprintf(out, cap, "%s", pl->pol->browser.package);
	else if (snprintf(out, cap, "%s/browser/node_modules/@playwright/mcp", pl->stepdir) >= (int)cap)
		out[0] = '\0';	/* too long: browser_prepare finds nothing there */
}

/* The node_modules directory holding the package and its dependencies
 * (playwright, playwright-core): .../node_modules/@playwright/mcp. */
static void
modules_dir(const char *pkg, char *out, size_t cap)
{
	char *s;

	snprintf(out, cap, "%s", pkg);
	for (int up = 0; up < 2 && (s = strrchr(out, '/')) != NULL && s != out; up++)
		*s = '\0';
	s = strrchr(out, '/');
	if (s == NULL || strcmp(s + 1, "node_modules") != 0)
		snprintf(out, cap, "%s", pkg);	/* another layout: the package alone */
}

int
step_browser(const struct plan *pl, struct argv *a)
{
	const struct policy *p = pl->pol;
	const char *d = pl->attempt_dir;
	char pkg[PATH_MAX], nm[PATH_MAX];

	browser_package(pl, pkg, sizeof pkg);
	modules_dir(pkg, nm, sizeof nm);
	av_pushf(a, "%s/confine", pl->stepdir);
	/* the system trees, node's modules, its own directory; nothing of the
	 * home or the workspace */
	av_push(a, "-x");
	av_push(a, "/usr");
	static const char *const opt[] = { "/bin", "/lib", "/lib64", "/sbin" };
	for (size_t i = 0; i < sizeof opt / sizeof *opt; i++) {
		av_push(a, "-o");
		av_push(a, "-x");
		av_push(a, opt[i]);
	}
	av_push(a, "-r");
	av_push(a, "/etc");
	av_push(a, "-r");
	av_push(a, "/proc");
	av_push(a, "-o");
	av_push(a, "-r");
	av_push(a, "/sys");
	av_push(a, "-r");
	av_push(a, nm);
	av_push(a, "-w");
	av_pushf(a, "%s/browser", d);
	av_push(a, "--dev");
	av_push(a, "--own-unix");	/* Chromium's singleton socket, in its profile */
	switch (p->net) {
	case NET_NONE:
		av_push(a, "--no-network");
		break;
	case NET_ALLOW:
		/* the listed names through egress-proxy (Chromium's
		 * --proxy-server, browser_prepare), nothing else remote;
		 * loopback, which Chromium does not send to a proxy, is its
		 * own and the agent's servers, as below */
		av_push(a, "--no-remote");
		av_push(a, "--loopback");
		av_push(a, pl->egress_port);
		if (p->deny_private)
			av_push(a, "--deny-private");
		av_push(a, "--loopback-from");
		av_pushf(a, "%s/" BROWSER_LISTENERS, d);
		break;
	case NET_PORTS:
		for (size_t i = 0; i < p->connect.n; i++) {
			av_push(a, "--connect");
			av_pushf(a, "%u", p->connect.v[i]);
		}
		/* fall through */
	default:
		/* the address rules, also where the agent's network is
		 * unfiltered: no metadata, no loopback service but its own
		 * and the agent's (its dev server), which the agent's broker
		 * records (browser_listeners) */
		av_push(a, "--filter-ip");
		if (p->deny_private)
			av_push(a, "--deny-private");
		av_push(a, "--loopback-from");
		av_pushf(a, "%s/" BROWSER_LISTENERS, d);
		break;
	}
	av_push(a, "--");
	av_push(a, "/usr/bin/env");
	av_push(a, "-i");
	av_push(a, "-C");
	av_pushf(a, "%s/browser", d);
	av_push(a, "PATH=/usr/bin:/bin");
	av_pushf(a, "HOME=%s/browser", d);
	/* relative: Chromium's singleton socket in an attempt's TMPDIR would
	 * pass the 108 bytes of a unix socket path */
	av_push(a, "TMPDIR=tmp");
	/* never a browser of its own */
	av_push(a, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1");
	av_push(a, BROWSER_NODE);
	av_pushf(a, "%s/cli.js", pkg);
	av_push(a, "--headless");
	av_push(a, "--no-sandbox");
	av_push(a, "--executable-path");
	av_push(a, BROWSER_CHROMIUM);
	av_push(a, "--user-data-dir");
	av_pushf(a, "%s/browser/profile", d);
	av_push(a, "--output-dir");
	av_pushf(a, "%s/browser/out", d);
	av_push(a, "--config");
	av_pushf(a, "%s/browser/config.json", d);
	return a->err ? -1 : 0;
}

int
browser_config(const struct plan *pl, char *out, size_t cap)
{
	int n;

	/* with a domain allowlist Chromium sends every request but
	 * loopback's to egress-proxy: an argument of its own, not
	 * Playwright's "proxy", which would send loopback there too (where
	 * the agent's dev server is refused) */
	if (pl->pol->net == NET_ALLOW)
		n = snprintf(out, cap, BROWSER_CONFIG_FMT, ",\"--proxy-server=http://127.0.0.1:",
		    pl->egress_port, "\"");
	else
		n = snprintf(out, cap, BROWSER_CONFIG_FMT, "", "", "");
	return n < 0 || (size_t)n >= cap ? -1 : n;
}

int
browser_prepare(const struct plan *pl)
{
	static const char *const sub[] = { "profile", "tmp", "out" };
	char pkg[PATH_MAX], cli[PATH_MAX + 8], cfg[256];
	int afd, bfd = -1, r = -1, n;

	browser_package(pl, pkg, sizeof pkg);
	snprintf(cli, sizeof cli, "%s/cli.js", pkg);
	if (access(BROWSER_CHROMIUM, X_OK) < 0 || access(BROWSER_NODE, X_OK) < 0 || access(cli, R_OK) < 0) {
		const char *what = access(BROWSER_CHROMIUM, X_OK) < 0 ? BROWSER_CHROMIUM :
		    access(BROWSER_NODE, X_OK) < 0 ? BROWSER_NODE : cli;
		msg_fatal_sys("the policy asks for a browser, but %s is not there", what);
		msg_hint("install Debian's chromium and nodejs, and @playwright/mcp@0.0.83 in %s "
		    "(or name its directory in \"browser\": {\"package\": ...})", pkg);
		return -1;
	}
	afd = open(pl->attempt_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (afd < 0 || mkdirat(afd, "browser", 0700) < 0 ||
	    (bfd = openat(afd, "browser", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		goto out;
	for (size_t i = 0; i < sizeof sub / sizeof *sub; i++)
		if (mkdirat(bfd, sub[i], 0700) < 0)
			goto out;
	if ((n = browser_config(pl, cfg, sizeof cfg)) < 0 ||
	    file_write_atomic(bfd, "config.json", cfg, (size_t)n, 0600) < 0)
		goto out;
	r = 0;
out:
	if (r < 0)
		msg_fatal_sys("unable to prepare %s/browser", pl->attempt_dir);
	if (bfd >= 0)
		close(bfd);
	if (afd >= 0)
		close(afd);
	return r;
}

int
browser_listeners(const struct plan *pl)
{
	int afd, fd;

	/* the agent's broker records only where it filters addresses */
	if (!pl->pol->browser.on || pl->pol->net == NET_NONE || pl->pol->net == NET_UNFILTERED)
		return 0;
	afd = open(pl->attempt_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (afd < 0)
		return -1;
	/* inherited by the chain: confine's broker alone keeps it */
	fd = openat(afd, BROWSER_LISTENERS, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	close(afd);
	if (fd >= 0 && fd < 3) {
		close(fd);
		return errno = EBADF, -1;
	}
	return fd;
}

void
browser_report(FILE *f, const char *pre, const struct plan *pl)
{
	const char *need[3];
	char pkg[PATH_MAX], cli[PATH_MAX + 8];
	size_t i;

	if (!pl->pol->browser.on) {
		fprintf(f, "%s%-22s off (no \"browser\" in the policy: nothing of it starts)\n", pre, "browser");
		return;
	}
	browser_package(pl, pkg, sizeof pkg);
	snprintf(cli, sizeof cli, "%s/cli.js", pkg);
	need[0] = BROWSER_CHROMIUM;
	need[1] = BROWSER_NODE;
	need[2] = cli;
	for (i = 0; i < 3 && access(need[i], i < 2 ? X_OK : R_OK) == 0; i++)
		;
	if (i < 3)
		fprintf(f, "%s%-22s refused here: %s is not there (mk/deps --browser, mk/npm, or "
		    "\"browser\": {\"package\": ...})\n", pre, "browser", need[i]);
	else
		fprintf(f, "%s%-22s %s driven by %s, outside the boundary in a confine of its own "
		    "(system trees, its package, ATTEMPT/browser); loopback: its own and the agent's "
		    "servers only\n", pre, "browser", BROWSER_CHROMIUM, pkg);
}

void
browser_end(void)
{
	/* corral is a subreaper: what escaped mcp-proxy's launcher (which
	 * ends the browser's tree itself) came back here */
	proc_sweep();
}
