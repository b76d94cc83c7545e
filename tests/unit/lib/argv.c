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
	{
		/* av_pushcat: av_pushf's "%s%s..." without the format */
		struct argv x = { 0 }, y = { 0 };
		static char big[AV_PUSHF_MAX + 1];
		memset(big, 'a', AV_PUSHF_MAX);
		av_pushcat(&x, "granted: ", "/a b", "", " (x)", (char *)NULL);
		av_pushf(&x, "%s%s%s%s", "granted: ", "/a b", "", " (x)");
		av_pushcat(&x, (char *)NULL);
		ok(!x.err && x.n == 3 && strcmp(x.v[0], x.v[1]) == 0 && strcmp(x.v[0], "granted: /a b (x)") == 0 &&
		    x.v[2][0] == '\0' && x.v[3] == NULL, "av_pushcat joins as av_pushf");
		av_pushcat(&y, big, (char *)NULL);
		ok(y.err && y.n == 0, "... and refuses as it does what is AV_PUSHF_MAX long");
		av_free(&x);
		av_free(&y);
	}
	return done_testing();
}
