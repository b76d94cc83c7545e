/* refusals_feed: the broker's records as corral reads them back. */
#include <string.h>

#include "refusals.h"
#include "tap.h"

static struct refusals rs;

static void
feed(const char *s)
{
	refusals_feed(&rs, s, strlen(s));
}

int
main(void)
{
	char line[REFUSAL_LINE_MAX + 2];

	feed("refused t=10 kind=connect dest=127.0.0.1:5432 why=loopback pid=7 exe=/usr/bin/psql comm=psql\n"
	    "refused t=11 kind=sendto dest=[fd00::1]:53 why=private pid=8 exe= comm=dig\n");
	is_int(rs.n, 2, "two records");
	is_str(rs.r[0].dest, "127.0.0.1:5432", "the first's destination");
	is_str(rs.r[1].why, "private", "the second's reason");
	is_str(rs.r[1].comm, "dig", "... and its name");
	feed("dropped n=4 t=12\ndropped n=2 t=12\n");
	is_int(rs.dropped, 4, "the largest dropped count");
	feed("garbage\nrefused t=1 kind=connect dest=a b why=x pid=1 exe= comm=\n\n");
	is_int(rs.n, 2, "lines that are not records are not kept");
	is_int(rs.bad, 3, "... and counted");
	for (int i = 0; i < REFUSALS_MAX + 5; i++)
		feed("refused t=13 kind=connect dest=1.2.3.4:1 why=port pid=9 exe= comm=\n");
	is_int(rs.n, REFUSALS_MAX, "kept up to REFUSALS_MAX");
	is_int(rs.more, 7, "... the rest counted");
	memset(line, 'a', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	feed(line);
	is_int(rs.bad, 4, "an over-long line is not a record");
	return done_testing();
}
