/* narrow: the walker gives up everything but reading the tree it walks
 * (and the git configs that name core.hooksPath) before it reads a byte
 * of it (lib/selfnarrow): no file to write or create (its state goes to a
 * descriptor opened before), no exec, no network, no capability. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rf.h"
#include "selfnarrow.h"

int
rf_narrow(const char *root, char *const *ro, size_t nro, char *why, size_t cap)
{
	static struct sb_policy pol;
	static int used;

	/* once per process (snapshot, report): the static policy is still
	 * all zero, and only its defaults need writing (sb_policy_init's
	 * memset faulted in all four of its pages) */
	if (used++)
		sb_policy_init(&pol);
	else
		sb_policy_defaults(&pol);
	pol.net = SB_NET_NONE;
	if (sb_policy_add_path(&pol, root, SB_R, 0) < 0) {
		snprintf(why, cap, "%s: %s", root, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < nro; i++)
		if (sb_policy_add_path(&pol, ro[i], SB_R, SB_OPTIONAL) < 0) {
			snprintf(why, cap, "%s: %s", ro[i], strerror(errno));
			return -1;
		}
	return selfnarrow(&pol, why, cap);
}
