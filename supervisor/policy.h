/*
 * policy: what one corral run grants, and its pure JSON parser.
 *
 * A policy file is applied key by key over the embedded default: a list
 * (read, exec, write, env.keep, env.files) adds its entries to the
 * default's, and "-ENTRY" takes one of the default's away; any other key
 * that is present replaces the default's value, an absent key keeps it.
 */
#ifndef CORRAL_POLICY_H
#define CORRAL_POLICY_H
#include "gitmode.h"
#include "json.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reslimit.h"

enum { POLICY_MAX_LEN = 1 << 20, POLICY_MAX_TOKENS = 16384, POLICY_MAX_PORTS = 64,
	POLICY_MAX_ITEMS = 256, POLICY_MAX_MCP = 16 };

/* open: address rules (no metadata, no outside loopback service); ports:
 * the same plus TCP ports; allow: only corral's HTTP proxy, which allows
 * the listed names; unfiltered: the network as it is (a warning). */
enum net_mode { NET_OPEN, NET_NONE, NET_PORTS, NET_ALLOW, NET_UNFILTERED };
/* a git workspace: the agent's own checkout, the user's checkout over a
 * private repository, or the real .git (see corral(1)) */

struct strlist {
	char **v;
	size_t n;
};

struct portlist {
	uint16_t v[POLICY_MAX_PORTS];
	size_t n;
};

struct mcp_server {
	char *name;
	struct strlist command;		/* stdio upstream: argv */
	char *url;			/* or a remote Streamable HTTP upstream */
	struct strlist tools;		/* exact-name allowlist */
	char *credential_file;		/* upstream bearer token, a 0600 file */
	struct strlist env_keep;	/* names kept for a stdio upstream */
	struct strlist resources;	/* resource URI prefixes (none: no resources) */
	struct strlist prompts;		/* prompt names (none: no prompts) */
	int browser;			/* the attempt's browser (browser.c): command built by the plan */
};

/* The browser's tools when "browser" names none: reading and driving pages;
 * not file uploads, code run in the MCP server, saved state or recordings. */
#define BROWSER_TOOLS "browser_navigate", "browser_navigate_back", "browser_snapshot", \
	"browser_click", "browser_type", "browser_press_key", "browser_hover", "browser_select_option", \
	"browser_fill_form", "browser_wait_for", "browser_tabs", "browser_take_screenshot", \
	"browser_console_messages", "browser_network_requests", "browser_evaluate", \
	"browser_handle_dialog", "browser_resize", "browser_close"

/* "browser": the attempt's own headless Chromium behind mcp-proxy (browser.c) */
struct browser_opts {
	int on;
	struct strlist tools;		/* the allowlist (none given: BROWSER_TOOLS) */
	char *package;			/* the @playwright/mcp directory (NULL: the default) */
};

struct policy {
	char *workspace;		/* NULL: the current directory */
	enum git_mode git;		/* "git"; the old "git_protect": false is GIT_OFF */
	struct strlist git_deps;	/* "git_deps": dependency directories linked read-only */
	struct strlist read, exec, write; /* "~/x" is under the real home; a '*' in the last component globs */
	int path_exec;			/* every directory on PATH: read + execute */
	int devices;			/* the usable devices in /dev */
	int proc;			/* /proc read-only */
	enum net_mode net;
	struct portlist connect, bind;	/* NET_PORTS */
	struct strlist allow;		/* NET_ALLOW: names, "*.NAME", IP literals */
	struct portlist allow_loopback;	/* outside loopback services the agent may reach */
	int deny_private;		/* RFC 1918, CGNAT, ULA refused too */
	int scope;			/* IPC scoping (signals, abstract sockets) */
	int userns;			/* new user namespaces allowed (confine --userns) */
	struct strlist env_keep;	/* names kept from the caller, past the baseline */
	struct strlist env_set;		/* NAME=VALUE, non-secret settings */
	struct strlist env_files;	/* NAME=VALUE files (0600): secrets go here */
	char *env_project;		/* corral env: released once per attempt (NULL: none) */
	char *agent;			/* NULL: inferred from the command */
	int full_setup;
	char *min_tier;			/* probe --require */
	struct mcp_server mcp[POLICY_MAX_MCP];
	size_t nmcp;
	struct limits limits;		/* "limits": resource limits (limits.h); 0: none */
	struct browser_opts browser;
	/* The embedded default's "exec" trees no policy file named: granted
	 * where they exist, left out (a note of explain and doctor) where they
	 * do not (a FROM scratch image has no /usr). A tree a policy names is
	 * refused when missing. */
	struct strlist if_present;
};

/* What explain and doctor say of "userns": true. */
#define POLICY_USERNS_WARNING "the policy allows new user namespaces (\"userns\": true): " \
	"inside one the agent holds every capability, and with them the kernel code " \
	"behind most local privilege escalations (Landlock and seccomp still apply)"

/* The embedded default policy as JSON (what `corral policy default` prints). */
extern const char policy_default_json[];
/* ... its "minimum_tier": the highest, so that what a run without a policy
 * file asks of probe is known before the policy is parsed (run.c) */
#define POLICY_DEFAULT_TIER "full"

/* Reset p to all-empty (no grants). */
void policy_init(struct policy *p);
/* Apply buf[0..len) over p (see above). Pure: no I/O. Returns 0, or -1 with
 * err filled (position of the offending token) and p left in an undefined but
 * freeable state. */
int policy_parse(const char *buf, size_t len, struct policy *p, struct json_err *err);
/* policy_init, then the embedded default. Returns 0 (or -1: a bug). */
int policy_default(struct policy *p, struct json_err *err);
void policy_free(struct policy *p);
/* p as a policy file (JSON, every key): what corral policy check prints. */
void policy_print(FILE *f, const struct policy *p);

/* Known probe tiers, weakest first; -1 when unknown. */
int policy_tier_rank(const char *tier);

#endif
