/* lib/auditline: the one audit record of corral, egress-proxy and
 * mcp-proxy: the time first, in seconds to the millisecond, fields quoted
 * by the one quoter, one line per write, and a record too long for its
 * buffer replaced whole, never torn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditline.h"
#include "tap.h"

static char got[40000];

static ssize_t
drain(int fd)
{
	ssize_t n = read(fd, got, sizeof got - 1);

	got[n > 0 ? n : 0] = '\0';
	return n;
}

int
main(void)
{
	static struct auditline a;
	char *const list[] = { "A", "B\"", NULL };
	static char big[20000];
	int p[2];
	char *end;
	unsigned long sec;
	time_t t0, t1;

	if (pipe(p) < 0)
		return 1;
	t0 = time(NULL);
	al_start(&a);
	t1 = time(NULL);
	al_str(&a, "step", "egress");
	al_strn(&a, "tool", "ab\0cd", 5);
	al_int(&a, "port", 443);
	al_strs(&a, "names", list, 2);
	is_int(al_write(&a, p[1]), 0, "written");
	drain(p[0]);
	ok(strncmp(got, "{\"time\":", 8) == 0, "the time first");
	sec = strtoul(got + 8, &end, 10);
	ok(end[0] == '.' && strspn(end + 1, "0123456789") == 3 && end[4] == ',', "seconds to the millisecond: %.24s", got);
	ok(got[8] != '0' && (time_t)sec >= t0 && (time_t)sec <= t1, "... the seconds of the clock when it began");
	is_str(end + 4, ",\"step\":\"egress\",\"tool\":\"ab\\u0000cd\",\"port\":443,\"names\":[\"A\",\"B\\\"\"]}\n",
	    "the fields, quoted, one line");

	memset(big, 'x', sizeof big - 1);
	al_start(&a);
	al_str(&a, "step", "git");
	al_str(&a, "path", big);
	is_int(al_write(&a, p[1]), 0, "a record too long is still written");
	drain(p[0]);
	ok(strncmp(got, "{\"time\":", 8) == 0 && strstr(got, "}\n") == got + strlen(got) - 2, "... as one whole line");
	ok(strstr(got, ",\"step\":\"audit\",\"error\":\"line too long\"}") != NULL && strchr(got, 'x') == NULL,
	    "... that says so and holds none of it");
	big[8000] = '\0';
	al_start(&a);
	al_str(&a, "path", big);
	al_write(&a, p[1]);
	drain(p[0]);
	ok(strlen(got) > 8000 && strstr(got, "line too long") == NULL, "control: a long record that fits is kept");
	return done_testing();
}
