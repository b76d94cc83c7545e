/* denyreport: what the run says about the boundary's refusals. */
#ifndef CORRAL_DENYREPORT_H
#define CORRAL_DENYREPORT_H
#include <stdint.h>

#include "audit.h"
#include "denials.h"
#include "plan.h"
#include "refusals.h"

/* Each denial into the audit log (access, path or port, pid, executable:
 * never contents or environment values); when CMD failed (code != 0) and
 * some came in the last seconds before exit_ms, the first few on stderr
 * with the ways forward, unless quiet. */
void denials_report(const struct denials *ds, int code, int64_t exit_ms, struct audit *au, int quiet);
/* The same for the seccomp broker's refusals (refusals.h): each into the
 * audit log (call, destination, reason, pid, executable, name); when CMD
 * failed soon after some, the first few with what would allow each (the
 * policy line and key corral why --connect names), or that nothing can. */
void refusals_report(const struct refusals *rs, const struct plan *pl, int code, int64_t exit_ms,
    struct audit *au, int quiet);

#endif
