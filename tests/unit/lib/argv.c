#include <string.h>

#include "argv.h"
#include "tap.h"

int
main(void)
{
	char p[] = "prog", v[] = "create", o[] = "--state", s[] = "/x";
	char *a1[] = { p, v, o, s, NULL }, *a2[] = { p, o, s, NULL }, *a3[] = { p, NULL };
	char **av = a1;
	int ac = 4;
	const char *verb = av_verb(&ac, &av);

	is_str(verb, "create", "the verb is taken");
	is_int(ac, 3, "one argument fewer");
	is_str(av[0], "prog", "argv[0] moves up over the verb");
	is_str(av[1], "--state", "the options follow");
	av = a2;
	ac = 3;
	ok(av_verb(&ac, &av) == NULL, "an option first: no verb");
	ok(ac == 3 && av == a2, "nothing moved");
	av = a3;
	ac = 1;
	ok(av_verb(&ac, &av) == NULL && ac == 1, "no argument: no verb");
	return done_testing();
}
