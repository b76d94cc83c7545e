/* netplan: the policy's "network" as confine and env-filter options, and
 * the egress-proxy step (see plan.h). Pure.
 *
 *   open             confine --filter-ip [--deny-private] --loopback P...
 *   {"connect": ..}  confine --connect P... --bind P... and the same
 *   {"allow": ..}    egress-proxy outside, on a loopback port; confine
 *                    --no-remote --loopback PROXY; env-filter --proxy PROXY
 *   none             confine --no-network
 *   open-unfiltered  nothing (the network as it is)
 * The --loopback ports: "allow_loopback" and the MCP proxies'. */
#include "plan.h"

static void
loopbacks(const struct plan *pl, struct argv *a)
{
	const struct policy *p = pl->pol;
	size_t i;

	if (p->deny_private)
		av_push(a, "--deny-private");
	for (i = 0; i < p->allow_loopback.n; i++) {
		av_push(a, "--loopback");
		av_pushf(a, "%u", p->allow_loopback.v[i]);
	}
	for (i = 0; i < p->nmcp; i++) {
		av_push(a, "--loopback");
		av_push(a, pl->mcp_port[i]);
	}
}

void
plan_net_confine(const struct plan *pl, struct argv *a)
{
	const struct policy *p = pl->pol;
	size_t i;

	switch (p->net) {
	case NET_UNFILTERED:
		break;
	case NET_NONE:
		av_push(a, "--no-network");
		break;
	case NET_OPEN:
		av_push(a, "--filter-ip");
		loopbacks(pl, a);
		break;
	case NET_PORTS:
		for (i = 0; i < p->connect.n; i++) {
			av_push(a, "--connect");
			av_pushf(a, "%u", p->connect.v[i]);
		}
		/* the MCP proxies' loopback ports */
		for (i = 0; i < p->nmcp; i++) {
			av_push(a, "--connect");
			av_push(a, pl->mcp_port[i]);
		}
		for (i = 0; i < p->bind.n; i++) {
			av_push(a, "--bind");
			av_pushf(a, "%u", p->bind.v[i]);
		}
		av_push(a, "--filter-ip");
		loopbacks(pl, a);
		break;
	case NET_ALLOW:
		av_push(a, "--no-remote");
		av_push(a, "--loopback");
		av_push(a, pl->egress_port);
		loopbacks(pl, a);
		break;
	}
}

void
plan_net_env(const struct plan *pl, struct argv *a)
{
	if (pl->pol->net != NET_ALLOW)
		return;
	av_push(a, "--proxy");
	av_push(a, pl->egress_port);
}

int
step_egress(const struct plan *pl, struct argv *a)
{
	const struct policy *p = pl->pol;

	av_pushf(a, "%s/egress-proxy", pl->stepdir);
	av_push(a, "--audit");
	av_pushf(a, "%s/audit/%s.jsonl", pl->store, pl->attempt);
	if (p->deny_private)
		av_push(a, "--deny-private");
	for (size_t i = 0; i < p->allow.n; i++) {
		av_push(a, "--allow");
		av_push(a, p->allow.v[i]);
	}
	return a->err ? -1 : 0;
}
