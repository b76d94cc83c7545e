#include <string.h>

#include "gitcfg.h"
#include "tap.h"

static int
user(const char *s, char *n, char *e)
{
	n[0] = e[0] = '\0';
	return gitcfg_user(s, strlen(s), n, e);
}

int
main(void)
{
	char n[GITCFG_VALUE_MAX], e[GITCFG_VALUE_MAX], out[1024];

	ok(user("[user]\n\tname = Ada Lovelace\n\temail = ada@x\n", n, e) == 0, "plain");
	is_str(n, "Ada Lovelace", "name");
	is_str(e, "ada@x", "email");
	user("[User]\nNAME=\"Ada \\\"Q\\\" L\" # c\nemail = a@b ; c\n", n, e);
	is_str(n, "Ada \"Q\" L", "quoted with escapes, case-insensitive keys and section, comment");
	is_str(e, "a@b", "trailing comment dropped");
	user("[user]\nname = A\n[core]\nname = B\n[user \"sub\"]\nname = C\n", n, e);
	is_str(n, "A", "only [user], not other sections or subsections");
	user("[user]\nname = A\n[user]\nname = B\n", n, e);
	is_str(n, "B", "last one wins");
	user("[user]\nname = \"A\\nB\"\nemail = x\n", n, e);
	is_str(n, "", "a value with a newline escape is skipped");
	is_str(e, "x", "others still read");
	ok(user("[user]\nname = \"unterminated\n", n, e) < 0, "unterminated quote refused");
	ok(user("[user\nname = a\n", n, e) < 0, "unterminated section refused");
	user("[credential]\n\thelper = store\n[include]\n\tpath = x\n", n, e);
	ok(n[0] == '\0' && e[0] == '\0', "nothing but user is read");
	is_int(gitcfg_format("A \"B\"", "a@b", out, sizeof out), 40, "format length");
	is_str(out, "[user]\n\tname = \"A \\\"B\\\"\"\n\temail = \"a@b\"\n", "format quotes");
	is_int(gitcfg_format("", "", out, sizeof out), 0, "nothing to write");
	is_int(gitcfg_format("n", "", out, sizeof out), 19, "name only");
	return done_testing();
}
