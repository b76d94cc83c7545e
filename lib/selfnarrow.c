/* selfnarrow: see selfnarrow.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "compat.h"
#include "selfnarrow.h"

static int
narrow(struct sb_policy *pol, int exec_ok, char *why, size_t cap)
{
	struct sb_error e;

#if CORRAL_ASAN
	/* the sanitizer build reads /proc/self/maps when it reports leaks */
	sb_policy_add_path(pol, "/proc", SB_R, 0);
#endif
	/* every descriptor it holds stays open: none listed, none closed */
	pol->keep_all = 1;
	pol->noexec = !exec_ok;
	if (sb_apply(pol, &e) != 0) {
		snprintf(why, cap, "%s", e.msg);
		return -1;
	}
	return 0;
}

int
selfnarrow(struct sb_policy *pol, char *why, size_t cap)
{
	return narrow(pol, 0, why, cap);
}

int
selfnarrow_exec(struct sb_policy *pol, char *why, size_t cap)
{
	return narrow(pol, 1, why, cap);
}
