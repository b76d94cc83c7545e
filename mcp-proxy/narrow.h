/*
 * narrow: what mcp-proxy keeps once it is set up (listeners bound, tokens
 * read, the audit log open, the launcher forked). It parses bytes the
 * agent controls and holds the upstream credential, so it then gives up,
 * the way doas pledges:
 *   - privileges: no_new_privs, every capability, core dumps (lib/sandbox);
 *   - the filesystem: a Landlock ruleset granting nothing for a stdio
 *     upstream (the launcher, outside it, starts the upstream), and for
 *     --url only reading /etc/resolv.conf, /etc/hosts and the CA file;
 *   - the network: no new socket but by accept for a stdio upstream; for
 *     --url TCP connect to the URL's port (and 53, DNS over TCP) only;
 *   - signals and ptrace beyond its own domain (Landlock scoping);
 *   - system calls: lib/sandbox's filter, and no execve or execveat at all.
 * Every descriptor it holds then stays open; none is added by a path.
 * (lib/selfnarrow applies it, as for egress-proxy.)
 */
#ifndef MCP_NARROW_H
#define MCP_NARROW_H
#include "proxy.h"

/* 0, or -1 with a one-line reason in why (cap bytes). */
int narrow(const struct proxy_config *cfg, char *why, size_t cap);

#endif
