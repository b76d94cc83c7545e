/* The policy's "limits": the size parser, every key through policy_parse,
 * each bad value refused at its position with its message, and how the
 * limits that need no cgroup are enforced (limits_decide). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "policy.h"
#include "reslimit.h"
#include "tap.h"

static struct policy P;
static struct json_err E;

static int
parse(const char *s)
{
	policy_free(&P);
	policy_init(&P);
	return policy_parse(s, strlen(s), &P, &E);
}

/* size: limits_size_parse(s) must give want (0) or fail with errno e */
static void
size(const char *s, uint64_t want, int e)
{
	uint64_t v = 12345;
	int r;

	errno = 0;
	r = limits_size_parse(s, &v);
	if (e == 0)
		ok(r == 0 && v == want, "size \"%s\" is %llu", s, (unsigned long long)want);
	else
		ok(r == -1 && errno == e && v == 12345, "size \"%s\" refused (%s), nothing written", s,
		    e == ERANGE ? "ERANGE" : "EINVAL");
}

/* bad: the policy must be refused at 1:col with exactly msg */
static void
bad(const char *js, int col, const char *msg)
{
	int r = parse(js);

	ok(r == -1 && E.line == 1 && E.col == col && strcmp(E.msg, msg) == 0, "%s: refused at 1:%d: %s", js, col, msg);
	if (!(r == -1 && E.line == 1 && E.col == col && strcmp(E.msg, msg) == 0))
		diag("r=%d got %d:%d \"%s\"", r, E.line, E.col, E.msg);
}

int
main(void)
{
	struct lim_how hw[LIM_N];
	struct limits l;

	size("0", 0, 0);
	size("4096", 4096, 0);
	size("64K", 64ULL << 10, 0);
	size("512M", 512ULL << 20, 0);
	size("2G", 2ULL << 30, 0);
	size("3T", 3ULL << 40, 0);
	size("18446744073709551615", UINT64_MAX, 0);
	size("18446744073709551616", 0, ERANGE);
	size("16777216T", 0, ERANGE);
	size("16777215T", 16777215ULL << 40, 0);
	size("", 0, EINVAL);
	size("M", 0, EINVAL);
	size("-1", 0, EINVAL);
	size(" 5", 0, EINVAL);
	size("5 ", 0, EINVAL);
	size("5m", 0, EINVAL);
	size("5MB", 0, EINVAL);
	size("5KK", 0, EINVAL);
	size("1.5G", 0, EINVAL);
	size("0x10", 0, EINVAL);

	/* every key, in both forms where a size may be a string */
	is_int(parse("{\"limits\": {\"memory\": \"512M\", \"processes\": 64, \"cpu_seconds\": 30, "
	    "\"wall_seconds\": 600, \"open_files\": 256, \"file_size\": \"1G\"}}"), 0, "every limit parses");
	ok(P.limits.v[LIM_MEMORY] == 512ULL << 20 && P.limits.v[LIM_PROCS] == 64 && P.limits.v[LIM_CPU] == 30 &&
	    P.limits.v[LIM_WALL] == 600 && P.limits.v[LIM_NOFILE] == 256 && P.limits.v[LIM_FSIZE] == 1ULL << 30,
	    "... each with its value");
	is_int(parse("{\"limits\": {\"memory\": 1048576, \"file_size\": 4096}}"), 0, "sizes as plain numbers of bytes");
	ok(P.limits.v[LIM_MEMORY] == 1048576 && P.limits.v[LIM_FSIZE] == 4096, "... are bytes");
	is_int(parse("{\"limits\": {\"memory\": null, \"processes\": null}}"), 0, "null: no limit");
	ok(P.limits.v[LIM_MEMORY] == 0 && P.limits.v[LIM_PROCS] == 0, "... none set");
	is_int(parse("{\"limits\": {}}"), 0, "an empty limits object");
	is_int(parse("{\"limits\": {\"processes\": 4194304}}"), 0, "processes up to the kernel's PID_MAX_LIMIT");
	is_int(parse("{}"), 0, "no limits key");
	ok(P.limits.v[LIM_MEMORY] == 0 && P.limits.v[LIM_PROCS] == 0 && P.limits.v[LIM_WALL] == 0, "... no limit by default");

	/* each bad value: its exact message, at the value */
	bad("{\"limits\": 5}", 12, "\"limits\" must be an object, not a number");
	bad("{\"limits\": {\"disk\": 1}}", 13, "unknown key \"disk\" in \"limits\"");
	bad("{\"limits\": {\"memory\": \"12Q\"}}", 23, "\"limits.memory\" must be a positive size such as 512M (K, M, G, T)");
	bad("{\"limits\": {\"memory\": \"0\"}}", 23, "\"limits.memory\" must be at least 1, not 0");
	bad("{\"limits\": {\"memory\": 0}}", 23, "\"limits.memory\" must be at least 1, not 0");
	bad("{\"limits\": {\"memory\": \"18446744073709551616\"}}", 23, "\"limits.memory\" is too large (at most 16 EiB)");
	bad("{\"limits\": {\"memory\": \"a size far longer than any size could be\"}}", 23,
	    "\"limits.memory\" must be a positive size such as 512M (K, M, G, T)");
	bad("{\"limits\": {\"memory\": true}}", 23, "\"limits.memory\" must be a positive integer or a size string, not a boolean");
	bad("{\"limits\": {\"file_size\": \"99999999999T\"}}", 26, "\"limits.file_size\" is too large (at most 16 EiB)");
	bad("{\"limits\": {\"file_size\": [1]}}", 26, "\"limits.file_size\" must be a positive integer or a size string, not an array");
	bad("{\"limits\": {\"processes\": -1}}", 26, "\"limits.processes\" must be at least 1, not -1");
	bad("{\"limits\": {\"processes\": 0}}", 26, "\"limits.processes\" must be at least 1, not 0");
	bad("{\"limits\": {\"processes\": \"8\"}}", 26, "\"limits.processes\" must be a positive integer, not a string");
	bad("{\"limits\": {\"processes\": 1.5}}", 26, "\"limits.processes\" must be a positive integer, not 1.5");
	bad("{\"limits\": {\"processes\": 99999999999999999999}}", 26,
	    "\"limits.processes\" must be a positive integer, not 99999999999999999999");
	bad("{\"limits\": {\"processes\": 4194305}}", 26,
	    "\"limits.processes\" must be at most 4194304 (the kernel's largest number of processes), not 4194305");
	bad("{\"limits\": {\"cpu_seconds\": true}}", 28, "\"limits.cpu_seconds\" must be a positive integer, not a boolean");
	bad("{\"limits\": {\"cpu_seconds\": -3}}", 28, "\"limits.cpu_seconds\" must be at least 1, not -3");
	bad("{\"limits\": {\"wall_seconds\": 0}}", 29, "\"limits.wall_seconds\" must be at least 1, not 0");
	bad("{\"limits\": {\"wall_seconds\": {}}}", 29, "\"limits.wall_seconds\" must be a positive integer, not an object");
	bad("{\"limits\": {\"open_files\": []}}", 27, "\"limits.open_files\" must be a positive integer, not an array");
	bad("{\"limits\": {\"open_files\": 1e3}}", 27, "\"limits.open_files\" must be a positive integer, not 1e3");

	/* the limits no cgroup carries: how, on any machine */
	memset(&l, 0, sizeof l);
	l.v[LIM_CPU] = 10;
	l.v[LIM_WALL] = 20;
	l.v[LIM_NOFILE] = 30;
	l.v[LIM_FSIZE] = 40;
	is_int(limits_decide(&l, hw), 0, "cpu, wall, files, file size: never a refusal");
	ok(hw[LIM_CPU].m == LM_RLIMIT && strstr(hw[LIM_CPU].what, "RLIMIT_CPU") != NULL, "cpu_seconds: RLIMIT_CPU");
	ok(hw[LIM_WALL].m == LM_TIMER && strstr(hw[LIM_WALL].what, "124") != NULL, "wall_seconds: the keeper's timer, status 124");
	ok(hw[LIM_NOFILE].m == LM_RLIMIT && strstr(hw[LIM_NOFILE].what, "RLIMIT_NOFILE") != NULL, "open_files: RLIMIT_NOFILE");
	ok(hw[LIM_FSIZE].m == LM_RLIMIT && strstr(hw[LIM_FSIZE].what, "RLIMIT_FSIZE") != NULL, "file_size: RLIMIT_FSIZE");
	ok(hw[LIM_MEMORY].m == LM_NONE && hw[LIM_PROCS].m == LM_NONE, "memory and processes unset: nothing");
	policy_free(&P);
	return done_testing();
}
