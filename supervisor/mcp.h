/* mcp: the policy's MCP servers, one mcp-proxy each, outside the boundary. */
#ifndef CORRAL_MCP_H
#define CORRAL_MCP_H
#include <sys/types.h>

#include "audit.h"
#include "plan.h"

struct mcpset {
	struct {
		pid_t pid;
		int out;	/* its stdout, held open while it runs */
	} p[POLICY_MAX_MCP];
	size_t n;
};

/* Start a proxy for each server of pl->pol on a loopback port with a
 * per-attempt token (ATTEMPT/mcp-NAME.token, 0600), fill pl->mcp_port, and
 * write ATTEMPT/config/corral/mcp.json (an "mcpServers" document, 0600)
 * for the agent. 0, or -1 after a fatal message; started proxies stay in
 * set for mcp_stop. */
/* The shell prefix that gives mcp-proxy server m the environment corral
 * run gives it (for corral explain's script). */
int mcp_env_prefix(const struct mcp_server *m, char *out, size_t cap);
int mcp_start(struct mcpset *set, struct plan *pl, struct audit *au, char *const envp[]);
/* SIGTERM each proxy, wait for it. */
void mcp_stop(struct mcpset *set);

#endif
