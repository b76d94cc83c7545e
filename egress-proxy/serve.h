/* serve: one client connection of egress-proxy, from request to audit. */
#ifndef EGRESS_SERVE_H
#define EGRESS_SERVE_H
#include <signal.h>
#include <stddef.h>

#include "hostname.h"

#define EGRESS_MAX_ALLOW 256

struct egress {
	char allow[EGRESS_MAX_ALLOW][HOST_MAX];	/* normalized patterns */
	size_t nallow;
	int deny_private;
	int audit_fd;		/* -1: no audit log */
};

/* Set by SIGTERM: a connection ends, and its audit line is written. */
extern volatile sig_atomic_t egress_stop;

/* Decide on the normalized host (0 listed, -1 not). */
int egress_listed(const struct egress *g, const char *host);
/* Serve client socket c to its end (in a process of its own). */
void egress_serve(const struct egress *g, int c);

#endif
