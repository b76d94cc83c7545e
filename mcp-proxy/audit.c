/* audit: one JSON line per tools/call (tool name and outcome only), one
 * per message the proxy refused or dropped for its method, and one per
 * upstream notification dropped for the resource URI it names. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fdio.h"
#include "json.h"
#include "msg.h"
#include "proxy_int.h"

static void
line_out(struct proxy *p, const char *method, const char *key, const char *tool, size_t tooln, const char *outcome)
{
	char line[1280], q[600], mq[600], ts[32];
	struct timespec now;
	struct tm tm;
	int qn = 0, mn = 0, n;

	if (p->cfg->audit_fd < 0)
		return;
	if (tooln > 128)
		tooln = 128;	/* a refused name can be anything: bound it */
	if (tool && (qn = json_quote(tool, tooln, q, sizeof q)) < 0)
		return;
	if (method && (mn = json_quote(method, strnlen(method, 128), mq, sizeof mq)) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(line, sizeof line, "{\"time\":\"%s\"%s%.*s%s%s%s%.*s,\"outcome\":\"%s\"}\n", ts,
	    method ? ",\"method\":" : "", mn, mq, tool ? ",\"" : "", tool ? key : "", tool ? "\":" : "", qn, q,
	    outcome);
	if (n > 0 && (size_t)n < sizeof line && fd_write_all(p->cfg->audit_fd, line, (size_t)n) < 0)
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
