/* corral why: what the run's boundary would give each path or destination,
 * the rule behind it, and the policy line that would grant what it denies. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "msg.h"
#include "num.h"
#include "profile.h"
#include "verdict.h"

static void
usage_why(FILE *f)
{
	fprintf(f, "usage: corral why [-p POLICY] [-a AGENT] [-w WORKSPACE] PATH...\n"
	    "       corral why [-p POLICY] [-a AGENT] [-w WORKSPACE] --connect HOST:PORT\n"
	    "Exit: 0 granted, 1 denied, 2 usage or system error.\n");
}

/* realpath of the longest existing prefix of path, the rest appended (a
 * file not yet created is judged by where it would be). */
static int
resolve_as_run(const char *path, char *out)
{
	char buf[PATH_MAX], rest[PATH_MAX] = "", *sl;

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return errno = ENAMETOOLONG, -1;
	while (realpath(buf, out) == NULL) {
		if (errno != ENOENT || (sl = strrchr(buf, '/')) == NULL)
			return -1;
		char r2[PATH_MAX];
		if (snprintf(r2, sizeof r2, "%s%s", sl, rest) >= (int)sizeof r2)
			return errno = ENAMETOOLONG, -1;
		memcpy(rest, r2, strlen(r2) + 1);
		if (sl == buf)
			buf[1] = '\0';
		else
			*sl = '\0';
	}
	if (strlen(out) + strlen(rest) >= PATH_MAX)
		return errno = ENAMETOOLONG, -1;
	if (strcmp(out, "/") == 0 && rest[0])
		out[0] = '\0';	/* "/" + "/x" is "/x" */
	strcat(out, rest);
	return 0;
}

/* 1 when dir is one of the caller's PATH directories (symlinks resolved). */
static int
on_path(const char *dir, char *const envp[])
{
	const char *path = NULL;
	char one[PATH_MAX], real[PATH_MAX];

	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	for (const char *p = path; p && *p; ) {
		size_t l = strcspn(p, ":");
		if (l && l < sizeof one) {
			snprintf(one, sizeof one, "%.*s", (int)l, p);
			if (realpath(one, real) && strcmp(real, dir) == 0)
				return 1;
		}
		p += l + (p[l] == ':');
	}
	return 0;
}

/* What real asks of the boundary, and where a line would grant it (at): a
 * path not yet made is made in its nearest existing directory. */
static enum need
need_of(const char *real, char *const envp[], char *at, size_t n)
{
	struct stat st;
	char *sl;

	snprintf(at, n, "%s", real);
	if (stat(real, &st) < 0) {
		while ((sl = strrchr(at, '/')) != NULL) {
			sl[sl == at] = '\0';	/* "/x" is made in "/" */
			if (sl == at || stat(at, &st) == 0)
				break;
		}
		return NEED_WRITE;
	}
	if (S_ISSOCK(st.st_mode))
		return NEED_SOCKET;
	if ((S_ISREG(st.st_mode) && (st.st_mode & 0111)) || (S_ISDIR(st.st_mode) && on_path(real, envp)))
		return NEED_EXEC;
	return NEED_READ;
}

static int
say(const char *what, const struct verdict *v)
{
	static const char tail[] = "in a policy file (corral run -p FILE; corral policy check FILE)";

	printf("%s: %s: %s\n", what, v->net ? (v->acc ? "allowed" : "denied") : access_name(v->acc), v->rule);
	if (v->short_of_need) {
		printf("  to %s: %s %s\n", v->verb, v->grant, tail);
		return 1;
	}
	if (v->acc != ACC_NONE)
		return 0;
	if (v->never)
		printf("  nothing a policy says can grant it\n");
	else if (v->grant[0])
		printf("  to %s: %s %s\n", v->verb ? v->verb : "grant it", v->grant, tail);
	return 1;
}

static int
connect_arg(const char *arg, char *host, size_t hn, unsigned *port)
{
	const char *c = strrchr(arg, ':');
	int pn;

	if (c == NULL || c == arg || (size_t)(c - arg) >= hn || num_parse_int(c + 1, 1, 65535, &pn) < 0)
		return -1;
	/* [v6]:port */
	if (arg[0] == '[' && c[-1] == ']')
		snprintf(host, hn, "%.*s", (int)(c - arg - 2), arg + 1);
	else
		snprintf(host, hn, "%.*s", (int)(c - arg), arg);
	*port = (unsigned)pn;
	return 0;
}

int
cmd_why(int argc, char **argv, char **envp)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "agent", required_argument, NULL, 'a' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "connect", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *shell_cmd[] = { (char *)"sh", NULL }, real[PATH_MAX], at[PATH_MAX], host[256];
	enum need need;
	const char *conn = NULL;
	struct runopts o;
	struct policy pol;
	struct plan pl;
	struct verdict v;
	unsigned port = 0;
	int c, denied = 0;

	msg_init("corral");
	memset(&o, 0, sizeof o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:a:w:h", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o.policy_file = optarg; break;
		case 'a': o.agent = optarg; break;
		case 'w': o.workspace = optarg; break;
		case 'c': conn = optarg; break;
		case 'h':
			usage_why(stdout);
			return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, "corral why");
			return EXIT_USAGE;
		}
	}
	if ((conn == NULL) == (optind == argc)) {
		msg_usage(conn ? "--connect takes no PATH beside it" : "no PATH given");
		msg_hint("corral why --help");
		return EXIT_USAGE;
	}
	if (conn && connect_arg(conn, host, sizeof host, &port) < 0) {
		msg_usage("--connect %.64s: want HOST:PORT (port 1 to 65535)", conn);
		return EXIT_USAGE;
	}
	if (o.agent && !prof_name_ok(o.agent)) {
		msg_usage("agent name \"%.64s\": want %s", o.agent, PROF_NAME_RULE);
		return EXIT_USAGE;
	}
	o.cmd = shell_cmd;
	policy_init(&pol);
	if (plan_load(&o, envp, &pol, &pl, 1) < 0) {
		plan_free(&pl);
		policy_free(&pol);
		return EXIT_USAGE;
	}
	if (conn) {
		verdict_connect(&pl, host, port, &v);
		denied = say(conn, &v);
	}
	for (int i = optind; i < argc; i++) {
		if (resolve_as_run(argv[i], real) < 0) {
			msg_fatal_sys("unable to resolve %s", argv[i]);
			denied = -1;
			continue;
		}
		need = need_of(real, envp, at, sizeof at);
		verdict_path(&pl, real, need, at, &v);
		if (strcmp(real, argv[i]) != 0)
			printf("%s -> %s\n", argv[i], real);
		if (say(real, &v) && denied >= 0)
			denied = 1;
	}
	plan_free(&pl);
	policy_free(&pol);
	if (msg_stdout_done() < 0 || denied < 0)
		return EXIT_USAGE;
	return denied ? EXIT_NO : 0;
}
