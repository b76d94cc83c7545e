/* Shell quoting and the chain builder: exact argv, steps by absolute path. */
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "plan.h"
#include "resolve.h"
#include "tap.h"

static const char *
q(const char *s, int vars)
{
	static char buf[512];

	if (sh_quote(s, vars, buf, sizeof buf) < 0)
		return "(overflow)";
	return buf;
}

static char *
join(const struct argv *a, size_t from, size_t to)
{
	static char buf[8192];
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = from; i < to && o < sizeof buf - 1; i++)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i > from ? " " : "", a->v[i]);
	return buf;
}

int
main(void)
{
	struct policy pol;
	struct json_err pe;
	struct plan pl;
	struct argv a = { 0 };
	char *cmd[] = { "claude", "--print", "it's done", NULL };
	char small[4];
	size_t ei, ci, xi;

	/* quoting */
	is_str(q("/usr/bin/env", 0), "/usr/bin/env", "safe words stay bare");
	is_str(q("", 0), "''", "the empty word");
	is_str(q("a b", 0), "'a b'", "spaces quoted");
	is_str(q("it's", 0), "'it'\\''s'", "a single quote");
	is_str(q("'", 0), "\\'", "only a single quote");
	is_str(q("$HOME `x` \"y\" \\z", 0), "'$HOME `x` \"y\" \\z'", "expansions stay literal");
	is_str(q("a\nb", 0), "'a\nb'", "newline inside quotes");
	is_str(q("HOME=" SHVAR("ATTEMPT_DIR") "/home", 1), "'HOME='\"$ATTEMPT_DIR\"'/home'", "a variable inside a word");
	is_str(q(SHVAR("ATTEMPT"), 1), "\"$ATTEMPT\"", "a variable alone");
	is_str(q("x" SHVAR("A") "it's", 1), "'x'\"$A\"'it'\\''s'", "variable then a quote");
	is_str(q(SHVAR("A"), 0), "'\001A\002'", "markers are literal without vars");
	is_int(sh_quote("abcdef", 0, small, sizeof small), -1, "overflow is an error, never a cut word");

	/* the chain, from a hand-made plan */
	is_int(policy_default(&pol, &pe), 0, "default policy");
	memset(&pl, 0, sizeof pl);
	pl.pol = &pol;
	strcpy(pl.stepdir, "/opt/corral/libexec/corral");
	strcpy(pl.store, "/home/u/.local/state/corral");
	strcpy(pl.trees, pl.store);	/* no runtime directory: the trees in the store */
	strcpy(pl.home, "/home/u");
	strcpy(pl.workspace, "/src/proj");
	strcpy(pl.agent, "claude");
	strcpy(pl.path, "/usr/bin:/bin");
	pl.signin = 1;
	pl.git = 1;
	av_push(&pl.gw.objects, "/src/proj/.git/objects");
	/* the stable checkout gitws_plan names (gitws_slot_path) */
	strcpy(pl.gw.work, "/home/u/.local/state/corral/git/co/00c0ffee00c0ffee.0/proj");
	av_push(&pl.ex, "/usr");
	av_push(&pl.ex, "/etc");
	pl.cmd = cmd;
	pl.attempt = "0123abcd";
	pl.attempt_dir = "/home/u/.local/state/corral/a0123456789";

	is_int(step_chain(&pl, &a, &ei, &ci, &xi), 0, "chain builds");
	is_str(join(&a, 0, ei), "/opt/corral/libexec/corral/keeper --pty --",
	    "keeper first, by absolute path: a terminal of its own, no limit set");
	is_str(a.v[ei], "/opt/corral/libexec/corral/env-filter", "env-filter by absolute path");
	is_str(join(&a, ei, ci),
	    "/opt/corral/libexec/corral/env-filter --baseline -s PATH=/usr/bin:/bin"
	    " -p HOME=/home/u/.local/state/corral/a0123456789/home"
	    " -p TMPDIR=/home/u/.local/state/corral/a0123456789/tmp"
	    " -p XDG_CONFIG_HOME=/home/u/.local/state/corral/a0123456789/config"
	    " -p XDG_CACHE_HOME=/home/u/.local/state/corral/a0123456789/home/.cache"
	    " -p XDG_DATA_HOME=/home/u/.local/state/corral/a0123456789/home/.local/share"
	    " -p XDG_STATE_HOME=/home/u/.local/state/corral/a0123456789/home/.local/state"
	    " -p PWD=/home/u/.local/state/corral/git/co/00c0ffee00c0ffee.0/proj --",
	    "env-filter layers: baseline, PATH, pins");
	is_str(a.v[ci], "/opt/corral/libexec/corral/confine", "confine by absolute path");
	is_str(a.v[xi - 1], "--", "confine's rules end with --");
	is_str(join(&a, xi, a.n), "claude --print it's done", "the command, untouched");
	ok(a.v[a.n] == NULL, "NULL-terminated");
	{
		char *c = join(&a, ci, xi);
		ok(strstr(c, " -x /usr -x /etc ") != NULL, "system trees read+exec");
		ok(strstr(c, " -r /proc ") != NULL, "/proc read-only");
		ok(strstr(c, " --dev ") != NULL, "usable devices");
		ok(strstr(c, " --own-pty ") != NULL, "its own ptys (the broker)");
		ok(strstr(c, " --own-unix ") != NULL, "its own unix sockets (the broker)");
		ok(strstr(c, " --own-shm ") != NULL, "its own shm objects (the broker)");
		ok(strstr(c, " --ctty ") != NULL && strstr(c, " --tty ") == NULL, "its own terminal: keeper's pty, no path");
		ok(strstr(c, " -W /home/u/.local/state/corral/git/co/00c0ffee00c0ffee.0/proj -r /home/u/.local/state/corral/git/0123abcd/base -r /src/proj/.git/objects ") != NULL &&
		    strstr(c, " -W /src/proj ") == NULL, "git worktree: the attempt's checkout, the base's and the real objects read-only, not the workspace");
		ok(strstr(c, " -W /home/u/.local/state/corral/a0123456789/home ") != NULL, "attempt home writable");
		ok(strstr(c, "/tmp ") != NULL && strstr(c, "/config ") != NULL, "attempt tmp and config writable");
		ok(strstr(c, "--no-network") == NULL && strstr(c, "--no-scope") == NULL, "network open, scoping on");
		ok(strstr(c, "/home/u ") == NULL, "the real home is not granted");
	}
	av_free(&a);

	/* network none, ports, no scope, no git protection, policy env */
	pol.net = NET_NONE;
	pol.scope = 0;
	pol.git = GIT_OFF;
	pol.limits.v[LIM_PROCS] = 64;
	pol.limits.v[LIM_MEMORY] = 512ULL << 20;
	pol.limits.v[LIM_WALL] = 60;
	pl.pid_fd = 7;
	strcpy(pl.agent_ws, "/src/proj");
	is_int(step_chain(&pl, &a, &ei, &ci, &xi), 0, "chain builds (variant)");
	is_str(join(&a, 0, ei), "/opt/corral/libexec/corral/keeper --memory 536870912 --processes 64"
	    " --wall-seconds 60 --pty --chdir /src/proj --pid-fd 7 --", "keeper: the limits, its terminal, the checkout, the pid");
	pl.pid_fd = 0;
	pl.agent_ws[0] = '\0';
	memset(&pol.limits, 0, sizeof pol.limits);
	{
		char *c = join(&a, ci, xi);
		ok(strstr(c, " --no-network ") != NULL, "--no-network");
		ok(strstr(c, " --no-scope ") != NULL, "--no-scope");
		ok(strstr(c, " -W /src/proj ") != NULL && strstr(c, "/git/0123abcd") == NULL, "git off: a plain workspace grant");
	}
	av_free(&a);
	pol.net = NET_PORTS;
	pol.connect.v[0] = 443;
	pol.connect.n = 1;
	pol.bind.v[0] = 8080;
	pol.bind.n = 1;
	is_int(step_chain(&pl, &a, &ei, &ci, &xi), 0, "chain builds (ports)");
	ok(strstr(join(&a, ci, xi), " --connect 443 --bind 8080 ") != NULL, "ports");
	is_str(plan_tier(&pl), "full", "minimum tier stays full");
	av_free(&a);
	free(pol.min_tier);
	pol.min_tier = NULL;
	is_str(plan_tier(&pl), "fs+net", "ports need fs+net");
	pol.scope = 1;
	is_str(plan_tier(&pl), "full", "scoping needs full");
	pol.git = GIT_WORKTREE;
	pl.git = 0;
	is_int(step_chain(&pl, &a, &ei, &ci, &xi), 0, "chain builds (no repository)");
	ok(strstr(join(&a, ci, xi), " -W /src/proj ") != NULL, "a workspace without .git: a plain grant");
	av_free(&a);

	/* the other steps */
	is_int(step_probe(&pl, &a), 0, "probe");
	is_str(join(&a, 0, a.n), "/opt/corral/libexec/corral/probe --require full", "probe --require TIER");
	av_free(&a);
	step_create(&pl, &a);
	is_str(join(&a, 0, a.n), "/opt/corral/libexec/corral/home-stage create --state /home/u/.local/state/corral"
	    " --attempt 0123abcd --agent claude --workspace /src/proj --session-store /opt/corral/libexec/corral/session-store"
	    " --begin --signin claude", "create with a sign-in: it records the id corral chose (--begin), no process beside");
	av_free(&a);
	pl.signin = 0;
	strcpy(pl.nosignin, "/home/u/.local/state/corral/nosignin-claude.json");
	step_create(&pl, &a);
	ok(strstr(join(&a, 0, a.n), " --full-setup --profiles /home/u/.local/state/corral/nosignin-claude.json") != NULL,
	    "create without a sign-in: the override profile");
	{
		char doc[512];
		ok(plan_nosignin_json(&pl, doc, sizeof doc) > 0 && strstr(doc, "\"claude\": {") && strstr(doc, "\"full_setup\": []"),
		    "the override profile names the agent and grants nothing");
	}
	av_free(&a);
	step_finish(&pl, NULL, NULL, NULL, &a);
	is_str(join(&a, 0, a.n), "/opt/corral/libexec/corral/home-stage finish --session-store /opt/corral/libexec/corral/session-store /home/u/.local/state/corral/a0123456789", "finish");
	av_free(&a);
	step_finish(&pl, "3", "linux", "full", &a);
	is_str(join(&a, 0, a.n), "/opt/corral/libexec/corral/home-stage finish --session-store /opt/corral/libexec/corral/session-store"
	    " --end 0123abcd --status 3 --platform linux --tier full /home/u/.local/state/corral/a0123456789",
	    "finish --end: the attempt's end recorded by the same process");
	av_free(&a);
	step_finish(&pl, "125", NULL, NULL, &a);
	ok(strstr(join(&a, 0, a.n), " --end 0123abcd --status 125 /home/") != NULL, "finish --end without a proof: no platform, no tier");
	av_free(&a);
	step_end(&pl, "3", "linux", "full", &a);
	is_str(join(&a, 0, a.n), "/opt/corral/libexec/corral/session-store --store /home/u/.local/state/corral end 0123abcd"
	    " --status 3 --platform linux --tier full", "end");
	av_free(&a);

	/* the attempt trees on the runtime directory: each step is told */
	strcpy(pl.trees, "/run/user/1000/corral");
	step_create(&pl, &a);
	ok(strstr(join(&a, 0, a.n), " --begin --trees /run/user/1000/corral") != NULL, "create makes the tree there, and reaps the trees there too");
	av_free(&a);
	step_finish(&pl, NULL, NULL, NULL, &a);
	ok(strstr(join(&a, 0, a.n), " finish --state /home/u/.local/state/corral ") != NULL, "finish is told the store");
	av_free(&a);
	strcpy(pl.trees, pl.store);

	/* path_within */
	ok(path_within("/home/u/x", "/home/u"), "inside");
	ok(path_within("/home/u", "/home/u"), "equal");
	ok(!path_within("/home/user", "/home/u"), "a prefix is not a parent");
	ok(path_within("/anything", "/"), "/ holds everything");

	plan_free(&pl);
	policy_free(&pol);
	av_free(&pl.gw.objects);
	return done_testing();
}
