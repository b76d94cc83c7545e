/* browser: the attempt's headless Chromium, driven by @playwright/mcp, as
 * the MCP upstream "browser" behind mcp-proxy: outside the agent's
 * boundary, inside a confine of its own (see corral(1), BROWSER). */
#ifndef CORRAL_BROWSER_H
#define CORRAL_BROWSER_H
#include <stdio.h>

#include "plan.h"

#define BROWSER_CHROMIUM "/usr/bin/chromium"
#define BROWSER_NODE "/usr/bin/node"
/* what Playwright MCP is told beyond its flags (Chromium's zygote hangs
 * under confine's filter; --no-sandbox: see corral(1)) */
#define BROWSER_CONFIG_FMT "{\"browser\":{\"launchOptions\":{\"args\":[\"--no-zygote\"%s%s%s]}}}\n"

/* With "browser": add the MCP server "browser" to p (its command is built by
 * step_browser). 0; -1 with why filled when the policy cannot have one. */
int browser_add(struct policy *p, char *why, size_t whyn);
/* The browser's package directory (the policy's, or beside the steps). */
void browser_package(const struct plan *pl, char *out, size_t cap);
/* mcp-proxy's upstream command: confine (its own rules) -> env -> node
 * Playwright MCP -> Chromium. Pure. */
int step_browser(const struct plan *pl, struct argv *a);
/* Playwright MCP's config.json (BROWSER_CONFIG_FMT; with a domain
 * allowlist, Chromium's --proxy-server at egress-proxy) into out: its
 * length, -1 when it does not fit. Pure. */
int browser_config(const struct plan *pl, char *out, size_t cap);
/* corral run: ATTEMPT/browser/{profile,tmp,out} and its config, after
 * checking that Chromium, node and the package are there. 0, or -1 after
 * a fatal message and a hint. */
int browser_prepare(const struct plan *pl);
/* Where the agent's confine records the addresses its program binds or
 * listens on (--listeners), which the browser's reaches (--loopback-from):
 * in the attempt directory, which neither can write. */
#define BROWSER_LISTENERS "listeners"
/* corral run, before the chain: that file made, open for appending and
 * inherited; 0 when there is none to make (no browser, or an agent
 * network without the address broker: "none", "unfiltered"), -1 with
 * errno. */
int browser_listeners(const struct plan *pl);
/* corral doctor: one line on the browser (off, refused here and why, or
 * what runs). */
void browser_report(FILE *f, const char *pre, const struct plan *pl);
/* After the proxies and egress-proxy have ended: kill and reap every child
 * left to corral (the browser's re-parented processes). */
void browser_end(void);

#endif
