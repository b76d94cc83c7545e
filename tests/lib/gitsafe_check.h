/* gitsafe_check: does one git call (its argument vector and environment,
 * as a runner built them) carry every entry of lib/gitsafe, with no later
 * -c or variable of the same key undoing one? Header-only, for the unit
 * tests of each runner. */
#ifndef CORRAL_GITSAFE_CHECK_H
#define CORRAL_GITSAFE_CHECK_H
#include <string.h>
#include <strings.h>

#include "gitsafe.h"
#include "tap.h"

static void
gitsafe_check(const char *who, char *const av[], char *const ev[], const char *first_arg)
{
	size_t a;

	/* the -c settings end where the caller's own arguments begin */
	for (a = 1; av[a] && strcmp(av[a], first_arg) != 0; a++)
		;
	ok(av[a] != NULL, "%s: the call's own arguments are there (%s)", who, first_arg);
	for (size_t i = 0; gitsafe_cfg[i]; i++) {
		size_t k = strcspn(gitsafe_cfg[i], "="), at = 0, later = 0;
		for (size_t j = 1; j < a; j++)
			if (strcmp(av[j - 1], "-c") == 0) {
				if (strcmp(av[j], gitsafe_cfg[i]) == 0)
					at = j;
				else if (at && strncasecmp(av[j], gitsafe_cfg[i], k) == 0 && av[j][k] == '=')
					later = j;
			}
		ok(at && !later, "%s: -c %s", who, gitsafe_cfg[i]);
	}
	for (size_t i = 0; gitsafe_env[i]; i++) {
		size_t k = strcspn(gitsafe_env[i], "=") + 1, n = 0, same = 0;
		for (size_t j = 0; ev[j]; j++)
			if (strncmp(ev[j], gitsafe_env[i], k) == 0)
				n++, same += strcmp(ev[j], gitsafe_env[i]) == 0;
		ok(n == 1 && same == 1, "%s: %s", who, gitsafe_env[i]);
	}
}

#endif
