/* The snapshot's state parser: what runfiles snapshot writes parses back
 * the same; a malformed or cut state is refused with its line, never a
 * crash (regressions from fuzz/runfiles/state.c). */
#include <stdlib.h>
#include <string.h>

#include "rf.h"
#include "tap.h"

static int
parse(const char *s, char *why, size_t cap)
{
	struct rf_state st;
	int r = rf_state_parse(s, strlen(s), &st, why, cap);

	if (r == 0)
		rf_state_free(&st);
	return r;
}

int
main(void)
{
	static const char good[] =
	    "corral-runfiles 1\n"
	    "h .githooks\n"
	    "d 0 0 1 2 3 4 5 6 7 8 \n"
	    "s sub\n"
	    "f 5 3 0 0 0000000000000000000000000000000000000000000000000000000000000000 .envrc\n"
	    "d 0 1 1 9 3 4 5 6 7 2 sub\n"
	    "f -1 3 1 0 0000000000000000000000000000000000000000000000000000000000000000 a\\x0ab\n"
	    "t\n"
	    "end\n";
	static const struct { const char *in, *why; } bad[] = {
		{ "corral-runfiles 1\nh\n\n", "line 2: malformed" },	/* fuzz: a record letter alone */
		{ "corral-runfiles 1\ns\nend\n", "line 2: malformed" },
		{ "corral-runfiles 1\ns x\nend\n", "line 2: malformed" },	/* a name before a directory */
		{ "corral-runfiles 1\nd 0 0 1 2 3 4 5 6 7 8 \nf 99 1 0 0 0000000000000000000000000000000000000000000000000000000000000000 x\nend\n",
		    "line 3: malformed" },					/* no such rule */
		{ "corral-runfiles 1\nd 0 0 1 2 3 4 5 6 7 8 \ns a/b\nend\n", "line 3: malformed" },
		{ "corral-runfiles 1\nd 0 0 1 2 3 4 5 6 7 8 \\x00\nend\n", "line 2: malformed" },
		{ "corral-runfiles 1\nd 0 0 1 2 3 4 5 6 7 8 \\x4\nend\n", "line 2: malformed" },
		{ "corral-runfiles 1\nd 0 0 1 2 3 4 5 6 7 8 \n", "line 2: cut short (no end line)" },
		{ "corral-runfiles 1\nend\nt\n", "line 2: data after the end" },
		{ "corral-runfiles 2\nend\n", "line 1: not a runfiles state (version 1)" },
	};
	struct rf_state st, again;
	char why[256], *out;
	size_t len;

	ok(rf_state_parse(good, strlen(good), &st, why, sizeof why) == 0, "a state parses");
	is_int(st.nd, 2, "two directories");
	is_str(st.hooks, ".githooks", "its hooks path");
	is_int(st.d[0].ns, 1, "the root's one subdirectory");
	is_str(st.f[0].rel, ".envrc", "the root's file");
	is_str(st.f[1].rel, "sub/a\nb", "a name escaped, with its directory");
	is_int(st.f[1].rule, -1, "core.hooksPath's rule");
	is_int(st.d[1].racy, 1, "racy kept");
	is_int(st.truncated, 1, "partial kept");
	ok(rf_state_format(&st, &out, &len) == 0 && len == strlen(good) && memcmp(out, good, len) == 0,
	    "formatted back, byte for byte");
	ok(rf_state_parse(out, len, &again, why, sizeof why) == 0, "and parses again");
	free(out);
	rf_state_free(&again);
	rf_state_free(&st);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		is_int(parse(bad[i].in, why, sizeof why), -1, "refused: %s", bad[i].why);
		is_str(why, bad[i].why, "... with its line");
	}
	return done_testing();
}
