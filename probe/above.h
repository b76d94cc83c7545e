/* above: a check's attempts made again outside the boundary, under the
 * caller's own filters alone (struct probe_above in judge.h). */
#ifndef PROBE_ABOVE_H
#define PROBE_ABOVE_H
#include <stddef.h>

#include "judge.h"
#include "probe.h"

/* Pure: "Seccomp:" and "Seccomp_filters:" of a /proc/PID/status text; -1
 * for a field that is absent or malformed. */
void probe_seccomp_parse(const char *status, size_t len, int *mode, int *filters);
/* For every check whose only failures are its refused controls
 * (probe_control_refused): one child, no boundary, makes its attempts
 * again and reports them into oc[i].above, with this process's seccomp
 * mode. Nothing is run when no check needs it. A failure leaves above.ran
 * 0: the check stays unproven. */
void probe_above(const struct probe_ctx *ctx, struct probe_outcome *oc, int timeout_ms);

#endif
