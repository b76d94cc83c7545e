/* sandbox_broker: pathname unix sockets for --unix (see sandbox.h). */
#include <errno.h>
#include "sandbox.h"
#include "sandbox_int.h"

int
sb_broker_start(const struct sb_policy *p, struct sb_error *e)
{
	(void)p;
	return sb_fail(e, SB_E_UNSUPPORTED, EOPNOTSUPP, "drop --unix",
	    "--unix is not supported by this build (Landlock ABI %d)", e->abi);
}
