/* audit: one JSON line per tools/call, name and outcome only. */
#include <stdio.h>
#include <time.h>

#include "fdio.h"
#include "json.h"
#include "msg.h"
#include "proxy_int.h"

void
audit(struct proxy *p, const char *tool, size_t tooln, const char *outcome)
{
	char line[1024], q[600], ts[32];
	struct timespec now;
	struct tm tm;
	int qn, n;

	if (p->cfg->audit_fd < 0)
		return;
	if (tooln > 128)
		tooln = 128;	/* a refused name can be anything: bound it */
	if ((qn = json_quote(tool, tooln, q, sizeof q)) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(line, sizeof line, "{\"time\":\"%s\",\"tool\":%.*s,\"outcome\":\"%s\"}\n",
	    ts, qn, q, outcome);
	if (n > 0 && (size_t)n < sizeof line && fd_write_all(p->cfg->audit_fd, line, (size_t)n) < 0)
		msg_warn_sys("unable to write the audit log");
}
