/* egress: the attempt's egress-proxy (policy "network": {"allow": [...]}),
 * outside the boundary, on a loopback port. */
#ifndef CORRAL_EGRESS_H
#define CORRAL_EGRESS_H
#include "audit.h"
#include "plan.h"
#include "procspawn.h"

struct egressproc {
	struct spawned sp;	/* pid -1: none */
};

/* Under NET_ALLOW start egress-proxy, read its URL, fill pl->egress_port;
 * otherwise nothing. 0, or -1 after a fatal message. */
int egress_start(struct egressproc *e, struct plan *pl, struct audit *au, char *const envp[]);
/* SIGTERM it, wait for it. */
void egress_stop(struct egressproc *e);

#endif
