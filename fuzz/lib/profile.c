/* Profiles documents and sign-in files are attacker-shaped input (the agent
 * writes its own sign-in): any bytes give a clean answer, never a crash. */
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

static struct profiles ps;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	char err[256], acct[PROF_ACCOUNT_MAX];
	int64_t secs;
	int i;

	profiles_defaults(&ps);
	(void)profiles_parse(buf, size, &ps, err, sizeof err);
	for (i = 0; i < ps.n; i++) {
		(void)prof_expiry(&ps.p[i].expiry, buf, size, &secs, err, sizeof err);
		(void)prof_account(&ps.p[i].account, buf, size, acct, sizeof acct, err, sizeof err);
	}
	return 0;
}
