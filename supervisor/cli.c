#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "browser.h"
#include "cli.h"
#include "fdio.h"
#include "msg.h"
#include "num.h"
#include "profile.h"
#include "resolve.h"
#include "trustpol.h"

void
usage_run(int fd)
{
	fprintf(fd == 1 ? stdout : stderr, "usage: corral run [-p POLICY] [-a AGENT] [-w WORKSPACE] [--full-setup] [--no-network]\n"
	    "                  [--worktree | --in-place] [--from-head] [--profiles FILE]\n"
	    "                  [--test-cacert FILE] [--quiet] [--allow-osc N] [--env PROJECT]\n"
	    "                  [--] CMD [ARG...]\n");
}

int
runopts_parse(int argc, char **argv, struct runopts *o)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "agent", required_argument, NULL, 'a' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "full-setup", no_argument, NULL, 'F' },
		{ "no-network", no_argument, NULL, 'N' },
		{ "worktree", no_argument, NULL, 'T' },
		{ "in-place", no_argument, NULL, 'I' },
		{ "from-head", no_argument, NULL, 'H' },
		{ "profiles", required_argument, NULL, 'P' },
		{ "test-cacert", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "allow-osc", required_argument, NULL, 'O' },
		{ "env", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof *o);
	o->git = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:a:w:h", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o->policy_file = optarg; break;
		case 'a': o->agent = optarg; break;
		case 'w': o->workspace = optarg; break;
		case 'F': o->full_setup = 1; break;
		case 'N': o->no_network = 1; break;
		case 'T': o->git = GIT_WORKTREE; break;
		case 'I': o->git = GIT_INPLACE; break;
		case 'H': o->from_head = 1; break;
		case 'P': o->profiles_file = optarg; break;
		case 'C': o->test_cacert = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'O':
			if (num_parse_int(optarg, 0, 65535, &o->allow_osc[o->nallow_osc]) != 0 ||
			    o->nallow_osc >= 16) {
				msg_usage("--allow-osc %.16s: want an OSC number from 0 to 65535, at most 16 of them", optarg);
				return -1;
			}
			o->nallow_osc++;
			break;
		case 'E': o->env_project = optarg; break;
		case 'h':
			usage_run(1);
			return msg_stdout_done() == 0 ? 1 : -1;
		default: {
			char cmd[32];
			snprintf(cmd, sizeof cmd, "corral %.16s", argv[0]);
			msg_badopt(c, argc, argv, cmd);
			return -1;
		}
		}
	}
	if (optind >= argc) {
		msg_usage("no command given");
		usage_run(2);
		return -1;
	}
	if (o->agent && !prof_name_ok(o->agent)) {
		msg_usage("agent name \"%.64s\": want %s", o->agent, PROF_NAME_RULE);
		return -1;
	}
	if (o->env_project && !prof_name_ok(o->env_project)) {
		msg_usage("project name \"%.64s\": want %s", o->env_project, PROF_NAME_RULE);
		return -1;
	}
	o->cmd = argv + optind;
	return 0;
}

int
policy_load_file(const char *path, struct policy *p)
{
	return policy_load_src(path, p, NULL);
}

int
policy_load_src(const char *path, struct policy *p, struct polsrc *src)
{
	struct json_err pe;
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		msg_fatal_sys("unable to open policy %s", path);
		return -2;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		msg_fatal("policy %s is not a regular file", path);
		close(fd);
		return -2;
	}
	if ((buf = malloc(POLICY_MAX_LEN + 1)) == NULL) {
		close(fd);
		msg_fatal("out of memory");
		return -2;
	}
	n = fd_read_bounded(fd, buf, POLICY_MAX_LEN);
	close(fd);
	if (n < 0) {
		if (errno == EFBIG)
			msg_fatal("policy %s is larger than %d bytes", path, POLICY_MAX_LEN);
		else
			msg_fatal_sys("unable to read policy %s", path);
		free(buf);
		return -2;
	}
	if (policy_parse(buf, (size_t)n, p, &pe) < 0) {
		if (pe.line)
			msg_fatal("policy %s:%d:%d: %s", path, pe.line, pe.col, pe.msg);
		else
			msg_fatal("policy %s: %s", path, pe.msg);
		free(buf);
		return -1;
	}
	if (src) {	/* trust: what trustpol_check judges is what was parsed */
		src->set = 1;
		snprintf(src->path, sizeof src->path, "%s", path);
		trustpol_hash(buf, (size_t)n, src->sha);
		src->st = st;
	}
	free(buf);
	return 0;
}

int
policy_load(const struct runopts *o, struct policy *p)
{
	return policy_load_from(o, p, NULL);
}

int
policy_load_from(const struct runopts *o, struct policy *p, struct polsrc *src)
{
	struct json_err pe;

	if (policy_default(p, &pe) < 0) {
		msg_fatal("embedded policy: %d:%d: %s", pe.line, pe.col, pe.msg);
		return -1;
	}
	if (o->policy_file && policy_load_src(o->policy_file, p, src) < 0) {
		msg_hint("check it with: corral policy check %s", o->policy_file);
		return -1;
	}
	if (o->workspace) {
		free(p->workspace);
		if ((p->workspace = strdup(o->workspace)) == NULL)
			return msg_fatal("out of memory"), -1;
	}
	if (o->agent) {
		free(p->agent);
		if ((p->agent = strdup(o->agent)) == NULL)
			return msg_fatal("out of memory"), -1;
	}
	if (o->full_setup)
		p->full_setup = 1;
	if (o->git >= 0)
		p->git = (enum git_mode)o->git;
	if (o->no_network) {
		p->net = NET_NONE;
		p->connect.n = p->bind.n = 0;
	}
	return 0;
}

int
plan_load(const struct runopts *o, char *const envp[], struct policy *pol, struct plan *pl,
    int quiet_warnings)
{
	memset(pl, 0, sizeof *pl);
	return plan_load_early(o, envp, pol, pl, quiet_warnings, NULL, NULL);
}

int
plan_load_early(const struct runopts *o, char *const envp[], struct policy *pol, struct plan *pl,
    int quiet_warnings, int (*early)(struct plan *, void *), void *arg)
{
	/* static (a process loads one plan): written from their first
	 * bytes, where -fstack-clash-protection touched their 4 pages on
	 * entry, under every walk of the plan */
	static char hint[256], warn[4096], why[PATH_MAX * 3 + 256];
	char *l, *e;
	struct polsrc src;

	/* pl is zero already (plan_load's memset, corral run's static state):
	 * a memset of its 79 KB here faulted in 19 pages the plan never
	 * writes */
	memset(&src, 0, sizeof src);
	if (policy_load_from(o, pol, &src) < 0)
		return -1;
	pl->gw.from_head = o->from_head;
	pl->fresh = o->fresh;
	pl->env_project = o->env_project ? o->env_project : pol->env_project;
	pl->env_fd = 3;	/* explain's; corral run's pipe replaces it */
	pl->gate_fd = 4;	/* likewise */
	pl->allow_osc = o->allow_osc;
	pl->nallow_osc = o->nallow_osc;
	if (early) {
		/* plan_resolve keeps this step directory */
		pl->pol = pol;
		/* unless resolved already (corral run's proof before the policy) */
		if (!pl->stepdir[0] && resolve_stepdir(pl->stepdir, sizeof pl->stepdir) < 0) {
			msg_fatal("cannot find the step programs (/proc/self/exe): %s", strerror(errno));
			return -1;
		}
		if (early(pl, arg) < 0)
			return -1;
	}
	if (plan_resolve(pl, pol, envp, o->cmd, why, sizeof why, hint, sizeof hint, warn, sizeof warn) < 0) {
		/* an untrusted policy is refused as such, whatever else it asks */
		if (trustpol_check(&src, pl) < 0)
			return -1;
		msg_fatal("%s", why);
		if (*hint)
			msg_hint("%s", hint);
		return -1;
	}
	/* trust (trustpol.c): a policy the agent could have written is refused */
	if (trustpol_check(&src, pl) < 0)
		return -1;
	/* the profiles and the test CA go to home-stage (create and finish), by real path */
	if (trustpol_extra(o->profiles_file, "profiles", pl, pl->profiles) < 0 ||
	    trustpol_extra(o->test_cacert, "test CA", pl, pl->test_cacert) < 0)
		return -1;
	/* "browser": its MCP server, beside the policy's (browser.c) */
	if (browser_add(pol, why, sizeof why) < 0) {
		msg_fatal("%s", why);
		msg_hint("change the policy's \"browser\" or \"mcp\" (see corral(1), BROWSER)");
		return -1;
	}
	for (l = warn; !quiet_warnings && *l; l = e + 1) {
		if ((e = strchr(l, '\n')) == NULL)
			break;
		*e = '\0';
		msg_warn("%s", l);
	}
	return 0;
}
