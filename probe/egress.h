/* egress: probe's check of the IP broker (issue 14), inside its child. */
#ifndef PROBE_EGRESS_H
#define PROBE_EGRESS_H
#include "judge.h"

/* After the boundary (--filter-ip): the attempts of the "egress" check
 * into ob, outside_port being the parent's loopback listener. */
void probe_egress(int outside_port, struct probe_obs *ob);

#endif
