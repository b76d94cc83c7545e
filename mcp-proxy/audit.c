/* audit: one JSON line per tools/call (tool name and outcome only), one
 * per message the proxy refused or dropped for its method, and one per
 * upstream notification dropped for the resource URI it names. */
#include <string.h>

#include "auditline.h"
#include "msg.h"
#include "proxy_int.h"

static void
line_out(struct proxy *p, const char *method, const char *key, const char *tool, size_t tooln, const char *outcome)
{
	struct auditline a;

	if (p->cfg->audit_fd < 0)
		return;
	al_start(&a);
	if (method)
		al_strn(&a, "method", method, strnlen(method, 128));
	if (tool)
		al_strn(&a, key, tool, tooln > 128 ? 128 : tooln);	/* a refused name can be anything: bound it */
	al_str(&a, "outcome", outcome);
	if (al_write(&a, p->cfg->audit_fd) < 0)
		msg_warn_sys("unable to write the audit log");
}

void
audit(struct proxy *p, const char *tool, size_t tooln, const char *outcome)
{
	line_out(p, NULL, "tool", tool, tooln, outcome);
}

void
audit_method(struct proxy *p, const char *method, const char *tool, size_t tooln, const char *outcome)
{
	line_out(p, method, "tool", tool, tooln, outcome);
}

void
audit_uri(struct proxy *p, const char *method, const char *uri, size_t urin, const char *outcome)
{
	line_out(p, method, "uri", uri, urin, outcome);
}
