/* The broker's refusal record: escaping of what the agent chose, bounds,
 * and a parser that takes only what the formatter writes. */
#include <string.h>

#include "refusal.h"
#include "tap.h"

static int
roundtrip(const struct refusal *r, struct refusal *back)
{
	char line[REFUSAL_LINE_MAX + 1];
	int n = refusal_format(r, line, sizeof line);

	if (n <= 0 || line[n - 1] != '\n')
		return -1;
	return refusal_parse(line, (size_t)n - 1, back);
}

int
main(void)
{
	struct refusal r, b;
	char out[64], line[REFUSAL_LINE_MAX + 1], big[400];
	static const char evil[] = "/tmp/a b\n\x1b[31m%\"x";
	int n;

	is_int(refusal_escape("abc", 3, out, sizeof out), 3, "plain bytes stay");
	refusal_escape(evil, sizeof evil - 1, out, sizeof out);
	is_str(out, "/tmp/a%20b%0A%1B[31m%25\"x", "blank, newline, ESC and %% are %%XX");
	refusal_escape("\0ab", 3, out, sizeof out);
	is_str(out, "%00ab", "a NUL byte (an abstract name) is %%00");
	refusal_escape("abcdef", 6, out, 4);
	is_str(out, "abc", "cut to the room given");
	refusal_escape("a\n\n", 3, out, 6);
	is_str(out, "a%0A", "a %%XX is never split");

	memset(&r, 0, sizeof r);
	r.when_ms = 1796126332638;
	strcpy(r.kind, "connect");
	strcpy(r.dest, "127.0.0.1:51559");
	strcpy(r.why, "loopback");
	r.pid = 23645;
	strcpy(r.exe, "/usr/bin/python3.11");
	strcpy(r.comm, "python3");
	n = refusal_format(&r, line, sizeof line);
	is_str(line, "refused t=1796126332638 kind=connect dest=127.0.0.1:51559 why=loopback pid=23645 exe=/usr/bin/python3.11 comm=python3\n",
	    "the record's line");
	ok(n > 0 && roundtrip(&r, &b) == 0 && memcmp(&r, &b, sizeof r) == 0, "parsed back the same");
	r.exe[0] = r.comm[0] = '\0';
	ok(roundtrip(&r, &b) == 0 && b.exe[0] == '\0' && b.comm[0] == '\0', "an unknown exe and comm are empty");
	strcpy(r.dest, "unix:/a b");
	ok(refusal_format(&r, line, sizeof line) < 0, "an unescaped value is never written");
	refusal_escape(evil, sizeof evil - 1, r.dest, sizeof r.dest);
	ok(roundtrip(&r, &b) == 0 && strcmp(b.dest, r.dest) == 0 && !strpbrk(b.dest, " \n\x1b"),
	    "an escaped agent-chosen path goes through, one line");

	memset(big, 'A', sizeof big);
	refusal_escape(big, REFUSAL_RAW_DEST, r.dest, sizeof r.dest);
	refusal_escape("\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
	    "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
	    "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", REFUSAL_RAW_EXE, r.exe,
	    sizeof r.exe);
	refusal_escape("\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", 16, r.comm, sizeof r.comm);
	strcpy(r.kind, "sendmmsg");
	strcpy(r.why, "unix-dgram");
	r.pid = 1 << 30;
	n = refusal_format(&r, line, sizeof line);
	ok(n > 0 && n <= REFUSAL_LINE_MAX, "the longest record fits the bound (%d bytes)", n);
	ok(strlen(r.exe) == 3 * REFUSAL_RAW_EXE, "an executable's path of %d bytes escaped whole", REFUSAL_RAW_EXE);

	memset(&r, 0, sizeof r);
	r.dropped = 64;
	r.when_ms = 5;
	n = refusal_format(&r, line, sizeof line);
	is_str(line, "dropped n=64 t=5\n", "the dropped line");
	ok(roundtrip(&r, &b) == 0 && b.dropped == 64 && b.when_ms == 5, "parsed back");

	static const char *const bad[] = {
		"", "refused", "refused ", "hello t=1",
		"refused t=1 kind=connect dest=1.2.3.4:5 why=port pid=1 exe= comm= extra=1",
		"refused t=1 kind=connect dest=1.2.3.4:5 why=port pid=1 exe=",
		"refused t=1 kind=connect dest= why=port pid=1 exe= comm=",
		"refused t=-1 kind=connect dest=a why=port pid=1 exe= comm=",
		"refused t=1 kind=connect dest=a why=port pid=x exe= comm=",
		"refused t=1 kind=connect dest=a%2 why=port pid=1 exe= comm=",
		"refused t=1 kind=connect dest=a%zz why=port pid=1 exe= comm=",
		"refused t=1 kind=connect dest=a\x1b why=port pid=1 exe= comm=",
		"refused t=1 kind=connect  dest=a why=port pid=1 exe= comm=",
		"refused t=1 why=port kind=connect dest=a pid=1 exe= comm=",
		"dropped n=0 t=1", "dropped n=1", "dropped n=1 t=1 x=2",
		"refused t=99999999999999999999 kind=c dest=a why=p pid=1 exe= comm=",
		NULL
	};
	for (int i = 0; bad[i]; i++)
		ok(refusal_parse(bad[i], strlen(bad[i]), &b) == -1, "not a record: \"%s\"", bad[i]);
	ok(refusal_parse("refused t=1 kind=c dest=a why=p pid=1 exe= comm=\0x", 50, &b) == -1,
	    "a NUL byte: not a record");
	return done_testing();
}
