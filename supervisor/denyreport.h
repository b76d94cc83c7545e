/* denyreport: what the run says about the boundary's refusals. */
#ifndef CORRAL_DENYREPORT_H
#define CORRAL_DENYREPORT_H
#include <stdint.h>

#include "audit.h"
#include "denials.h"

/* Each denial into the audit log (access, path or port, pid, executable:
 * never contents or environment values); when CMD failed (code != 0) and
 * some came in the last seconds before exit_ms, the first few on stderr
 * with the ways forward, unless quiet. */
void denials_report(const struct denials *ds, int code, int64_t exit_ms, struct audit *au, int quiet);

#endif
