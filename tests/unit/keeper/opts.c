/* keeper's options: the limits (each through limits_set, as corral's
 * policy values are printed by limits_argv and read back here), the wall
 * clock in seconds with up to three decimals, and each bad value refused
 * with 125 before anything runs. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "argv.h"
#include "keeper.h"
#include "reslimit.h"
#include "tap.h"

static int
parse(struct keeper_opts *o, int *st, const char *a1, const char *a2, const char *a3, const char *a4)
{
	char *argv[8] = { "keeper", (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL, NULL, NULL };
	int argc = 1;

	while (argv[argc])
		argc++;
	return keeper_opts_parse(argc, argv, o, st);
}

static void
wall(const char *s, uint64_t want, int e)
{
	uint64_t ms = 7;
	int r;

	errno = 0;
	r = keeper_wall_parse(s, &ms);
	if (e) {
		ok(r < 0 && errno == e, "wall %s: refused (errno %d)", s, errno);
	} else {
		is_int(r, 0, "wall %s: accepted", s);
		is_int((long long)ms, (long long)want, "wall %s: %llu ms", s, (unsigned long long)want);
	}
}

int
main(void)
{
	struct keeper_opts o;
	struct limits l;
	struct argv a = { 0 };
	int st = -1;

	wall("1", 1000, 0);
	wall("0.5", 500, 0);
	wall("2.250", 2250, 0);
	wall("0.001", 1, 0);
	wall("3600", 3600000, 0);
	wall("0", 0, ERANGE);
	wall("0.000", 0, ERANGE);
	wall("1.2345", 0, EINVAL);
	wall("1.", 0, EINVAL);
	wall(".5", 0, EINVAL);
	wall("-1", 0, EINVAL);
	wall("1e3", 0, EINVAL);
	wall("1.5x", 0, EINVAL);
	wall("31708800", 0, ERANGE);	/* over a year */

	/* every limit corral's policy can hold, printed and read back */
	memset(&l, 0, sizeof l);
	l.v[LIM_MEMORY] = 512ULL << 20;
	l.v[LIM_PROCS] = 64;
	l.v[LIM_CPU] = 30;
	l.v[LIM_WALL] = 60;
	l.v[LIM_NOFILE] = 256;
	l.v[LIM_FSIZE] = 4096;
	limits_argv(&l, &a);
	is_str(a.n ? a.v[0] : "", "--memory", "limits_argv: keeper's option names");
	{
		char *argv[32] = { "keeper" };
		int argc = 1;
		for (size_t i = 0; i < a.n && argc < 28; i++)
			argv[argc++] = a.v[i];
		argv[argc++] = "--";
		argv[argc++] = "true";
		argv[argc] = NULL;
		is_int(keeper_opts_parse(argc, argv, &o, &st), 0, "keeper reads what limits_argv printed (%zu words)", a.n);
		is_int((long long)o.lim.v[LIM_MEMORY], (long long)(512ULL << 20), "... memory");
		is_int((long long)o.lim.v[LIM_PROCS], 64, "... processes");
		is_int((long long)o.lim.v[LIM_CPU], 30, "... cpu seconds");
		is_int((long long)o.wall_ms, 60000, "... the wall clock, in ms");
		is_int((long long)o.lim.v[LIM_WALL], 0, "... which is keeper's own timer, not an rlimit");
		is_int((long long)o.lim.v[LIM_NOFILE], 256, "... open files");
		is_int((long long)o.lim.v[LIM_FSIZE], 4096, "... file size");
		is_str(o.argv[0], "true", "... the program after --");
	}
	av_free(&a);

	is_int(parse(&o, &st, "--memory", "2G", "true", NULL), 0, "--memory 2G");
	is_int((long long)o.lim.v[LIM_MEMORY], (long long)(2ULL << 30), "... 2 GiB");
	is_int(parse(&o, &st, "--processes", "4194304", "true", NULL), 0, "--processes at the kernel's largest");
	is_int(parse(&o, &st, "--pty", "--allow-osc", "52", "true"), 0, "--pty --allow-osc 52");
	ok(o.pty == 1 && o.nallow_osc == 1 && o.allow_osc[0] == 52, "... recorded");
	is_int(parse(&o, &st, "--pid-fd", "9", "--chdir", "/w"), -1, "no program after the options: refused");
	is_int(st, 125, "... 125");

	/* refusals: -1, status 125 */
	{
		static const char *const bad[][2] = {
			{ "--memory", "0" }, { "--memory", "12Q" }, { "--memory", "-1" },
			{ "--processes", "0" }, { "--processes", "4194305" }, { "--cpu-seconds", "x" },
			{ "--open-files", "" }, { "--file-size", "18446744073709551616" },
			{ "--wall-seconds", "0" }, { "--allow-osc", "65536" }, { "--pid-fd", "2" },
			{ "--chdir", "rel" }, { "--cgroup", "rel" },
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			st = 0;
			is_int(parse(&o, &st, bad[i][0], bad[i][1], "true", NULL), -1, "%s %s: refused", bad[i][0], bad[i][1]);
			is_int(st, 125, "... status 125");
		}
	}
	return done_testing();
}
