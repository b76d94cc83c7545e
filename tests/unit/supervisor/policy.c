/* The policy parser: the default, every key, every wrong type, positions. */
#include <stdlib.h>
#include <string.h>

#include "policy.h"
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

/* err: parse must fail at line:col with a message containing want */
static void
bad(const char *js, int line, int col, const char *want)
{
	int r = parse(js);

	ok(r == -1 && E.line == line && E.col == col && strstr(E.msg, want) != NULL,
	    "refused at %d:%d: %s", line, col, want);
	if (!(r == -1 && E.line == line && E.col == col && strstr(E.msg, want)))
		diag("r=%d got %d:%d \"%s\"", r, E.line, E.col, E.msg);
}

int
main(void)
{
	struct policy d;
	struct json_err de;

	/* the embedded default */
	is_int(policy_default(&d, &de), 0, "the embedded default parses");
	is_str(d.workspace, ".", "default workspace: the current directory");
	ok(d.git == GIT_WORKTREE && d.path_exec && d.devices && d.proc && d.scope, "default: git worktree, PATH, devices, /proc, scoping");
	is_int(d.net, NET_OPEN, "default network: open");
	ok(!d.userns, "default: no new user namespaces");
	is_int(d.exec.n, 5, "default exec: five system trees");
	is_str(d.exec.v[2], "/lib*", "default exec globs /lib*");
	is_int(d.read.n + d.write.n, 0, "default grants nothing else");
	ok(d.agent == NULL && !d.full_setup, "default: agent inferred, sign-in only");
	is_str(d.min_tier, "full", "default minimum tier: full");
	is_int(d.nmcp, 0, "default: no MCP servers");

	/* a file applies over the default key by key */
	{
		const char *f = "{\"network\": \"none\", \"exec\": [\"/opt/tool\"]}";
		is_int(policy_parse(f, strlen(f), &d, &de), 0, "a file over the default");
	}
	is_int(d.net, NET_NONE, "network none");
	ok(d.exec.n == 6 && strcmp(d.exec.v[0], "/usr") == 0 && strcmp(d.exec.v[5], "/opt/tool") == 0,
	    "exec: the file's entry added after the default's");
	ok(d.git == GIT_WORKTREE && d.proc, "absent keys keep the default");
	policy_free(&d);

	/* "-ENTRY" takes one of the default's away; a repeated entry is one */
	is_int(policy_default(&d, &de), 0, "the default again");
	{
		const char *f = "{\"exec\": [\"-/sbin\", \"/usr\", \"~/bin\", \"-/lib*\", \"~/bin\"], \"write\": [\"/o\", \"-/o\"]}";
		is_int(policy_parse(f, strlen(f), &d, &de), 0, "removals and repeats parse");
	}
	ok(d.exec.n == 4 && strcmp(d.exec.v[0], "/usr") == 0 && strcmp(d.exec.v[1], "/bin") == 0 &&
	    strcmp(d.exec.v[2], "/etc") == 0 && strcmp(d.exec.v[3], "~/bin") == 0,
	    "exec: /sbin and /lib* taken away, /usr and ~/bin once");
	is_int(d.write.n, 0, "write: added, then taken away in order");
	policy_free(&d);

	/* git_deps adds to the default's too; "-*" takes every entry before it */
	is_int(policy_default(&d, &de), 0, "the default again");
	is_int(d.git_deps.n, 5, "git_deps: the default's five");
	{
		const char *f = "{\"git_deps\": [\"lib/deps\", \"-target\", \"node_modules\"]}";
		is_int(policy_parse(f, strlen(f), &d, &de), 0, "git_deps: an entry added, one taken away");
	}
	ok(d.git_deps.n == 5 && strcmp(d.git_deps.v[0], "node_modules") == 0 && strcmp(d.git_deps.v[3], "vendor/bundle") == 0 &&
	    strcmp(d.git_deps.v[4], "lib/deps") == 0, "git_deps: the default's but target, lib/deps after them, node_modules once");
	{
		const char *f = "{\"git_deps\": [\"-*\"], \"exec\": [\"-*\", \"/opt\"]}";
		is_int(policy_parse(f, strlen(f), &d, &de), 0, "\"-*\" parses");
	}
	ok(d.git_deps.n == 0 && d.exec.n == 1 && strcmp(d.exec.v[0], "/opt") == 0,
	    "\"-*\": none of the default's (git_deps empty; exec only what follows it)");
	policy_free(&d);
	is_int(policy_default(&d, &de), 0, "the default again");
	{
		const char *f = "{\"git_deps\": []}";
		ok(policy_parse(f, strlen(f), &d, &de) < 0 && strstr(de.msg, "\"git_deps\": [] adds nothing to the default's 5 entries") &&
		    strstr(de.msg, "or all with \"-*\""), "git_deps: [] is an error naming \"-*\"");
	}
	policy_free(&d);
	is_int(policy_default(&d, &de), 0, "the default again");
	{
		const char *f = "{\"git_deps\": [\"-lib\"]}";
		ok(policy_parse(f, strlen(f), &d, &de) < 0 && strstr(de.msg, "\"-lib\" takes away nothing"),
		    "git_deps: taking away what is not there is an error");
	}
	policy_free(&d);
	is_int(policy_default(&d, &de), 0, "the default again");
	{
		const char *f = "{\"git_deps\": [\"-../x\"]}";
		ok(policy_parse(f, strlen(f), &d, &de) < 0 && strstr(de.msg, "must be a relative path beneath the repository"),
		    "git_deps: a removal is checked like an entry");
	}
	policy_free(&d);

	/* every key */
	is_int(parse("{\"version\": 1, \"workspace\": \"/w\", \"git_protect\": false,"
	    "\"read\": [\"/r\", \"~/notes\"], \"exec\": [\"/x*\"], \"write\": [\"/out\"],"
	    "\"path_exec\": false, \"devices\": false, \"proc\": false,"
	    "\"network\": {\"connect\": [443, 80], \"bind\": [8080]}, \"scope\": false,"
	    "\"env\": {\"keep\": [\"EDITOR\"], \"set\": {\"A\": \"1\", \"B_2\": \"x y\"}, \"files\": [\"~/.corral.env\"]},"
	    "\"agent\": \"claude\", \"full_setup\": true, \"minimum_tier\": \"fs+net\","
	    "\"mcp\": {\"fs\": {\"command\": [\"node\", \"srv.js\"], \"tools\": [\"read_file\"], \"env_keep\": [\"X\"]},"
	    "         \"gh\": {\"url\": \"https://mcp.example/mcp\", \"tools\": [\"a\", \"b\"], \"credential_file\": \"~/.gh-token\"}}}"),
	    0, "every key parses");
	is_str(P.workspace, "/w", "workspace");
	ok(P.git == GIT_OFF && !P.path_exec && !P.devices && !P.proc && !P.scope, "booleans");
	ok(P.read.n == 2 && strcmp(P.read.v[1], "~/notes") == 0, "read");
	ok(P.net == NET_PORTS && P.connect.n == 2 && P.connect.v[1] == 80 && P.bind.n == 1 && P.bind.v[0] == 8080, "ports");
	ok(P.env_set.n == 2 && strcmp(P.env_set.v[1], "B_2=x y") == 0, "env.set as NAME=VALUE");
	ok(P.env_keep.n == 1 && P.env_files.n == 1, "env.keep, env.files");
	ok(strcmp(P.agent, "claude") == 0 && P.full_setup && strcmp(P.min_tier, "fs+net") == 0, "agent, full_setup, tier");
	ok(P.nmcp == 2 && P.mcp[0].command.n == 2 && P.mcp[1].url && P.mcp[1].tools.n == 2 &&
	    strcmp(P.mcp[1].credential_file, "~/.gh-token") == 0, "mcp servers");
	is_int(parse("{\"network\": {\"allow\": [\"a.test\", \"*.b.test\", \"198.51.100.1\", \"b\xc3\xbc.test\"], "
	    "\"deny_private\": true, \"allow_loopback\": [5432]}}"), 0, "network allow");
	ok(P.net == NET_ALLOW && P.allow.n == 4 && P.deny_private && P.allow_loopback.n == 1 &&
	    P.allow_loopback.v[0] == 5432, "allow, deny_private, allow_loopback");
	is_int(parse("{\"network\": \"open-unfiltered\"}"), 0, "open-unfiltered");
	ok(P.net == NET_UNFILTERED && P.allow.n == 0 && !P.deny_private, "... replaces what was there");
	is_int(parse("{\"network\": {\"mode\": \"open-unfiltered\", \"allow_loopback\": [1]}}"), 0, "mode in the object");
	ok(P.net == NET_UNFILTERED && P.allow_loopback.n == 1, "... with allow_loopback");
	is_int(parse("{\"network\": {\"deny_private\": true}}"), 0, "an object without a mode: open");
	ok(P.net == NET_OPEN && P.deny_private, "... with deny_private");
	is_int(parse("{\"network\": {\"connect\": [], \"allow\": [\"a\"]}}"), -1, "connect and allow: refused");
	is_int(parse("{\"network\": {\"allow\": [\"*\"]}}"), -1, "a bare * is not a name");
	is_int(parse("{\"network\": {\"allow\": [\"a\"], \"mode\": \"open\"}}"), -1, "allow and mode: refused");
	is_int(parse("{\"network\": \"closed\"}"), -1, "an unknown mode");
	is_int(parse("{\"network\": {\"mode\": \"none\", \"deny_private\": true}}"), -1, "none with deny_private");
	is_int(parse("{\"agent\": null}"), 0, "agent null: inferred");
	is_int(parse("{}"), 0, "an empty object is a policy");

	/* unknown keys, at every level, with their position */
	bad("{\"netwrk\": \"open\"}", 1, 2, "unknown key \"netwrk\" in the policy");
	bad("{\n  \"network\": {\"connect\": [1], \"bnd\": [2]}\n}", 2, 31, "unknown key \"bnd\" in \"network\"");
	bad("{\"env\": {\"keep\": [], \"sets\": {}}}", 1, 22, "unknown key \"sets\" in \"env\"");
	bad("{\"mcp\": {\"s\": {\"command\": [\"x\"], \"tools\": [\"t\"], \"cred\": \"/x\"}}}", 1, 50, "unknown key \"cred\"");

	/* wrong types */
	bad("{\"read\": \"/usr\"}", 1, 10, "\"read\" must be an array of strings, not a string");
	bad("{\"read\": [\"/a\",\n 7]}", 2, 2, "\"read\" entries must be strings, not a number");
	bad("{\"git_protect\": \"yes\"}", 1, 17, "\"git_protect\" must be a boolean, not a string");
	bad("{\"git\": \"shared\"}", 1, 9, "\"git\" must be \"worktree\", \"in-place\" or \"off\"");
	is_int(parse("{\"git\": \"in-place\"}"), 0, "git in-place");
	is_int(P.git, GIT_INPLACE, "... parsed");
	is_int(parse("{\"git\": \"off\"}"), 0, "git off");
	is_int(P.git, GIT_OFF, "... parsed");
	bad("{\"scope\": 1}", 1, 11, "\"scope\" must be a boolean, not a number");
	bad("{\"userns\": \"yes\"}", 1, 12, "\"userns\" must be a boolean, not a string");
	bad("{\"network\": \"closed\"}", 1, 13, "\"network\" must be \"open\", \"none\"");
	bad("{\"network\": [80]}", 1, 13, "\"network\" must be \"open\", \"none\" or an object, not an array");
	bad("{\"network\": {\"connect\": [0]}}", 1, 26, "port 0 is out of range");
	bad("{\"network\": {\"connect\": [65536]}}", 1, 26, "port 65536 is out of range");
	bad("{\"network\": {\"connect\": [\"443\"]}}", 1, 26, "entries must be integers, not a string");
	bad("{\"network\": {\"connect\": [4.5]}}", 1, 26, "entries must be integers");
	bad("{\"env\": {\"set\": {\"A\": 1}}}", 1, 23, "\"env.set\" must be a string, not a number");
	bad("{\"env\": {\"set\": {\"1A\": \"x\"}}}", 1, 18, "\"1A\" is not a valid environment variable name");
	bad("{\"env\": {\"keep\": [\"A-B\"]}}", 1, 19, "\"A-B\" is not a valid environment variable name");
	bad("{\"agent\": \"Claude Code\"}", 1, 11, "\"agent\" \"Claude Code\" must be a lowercase letter or digit, then");
	bad("{\"minimum_tier\": \"max\"}", 1, 18, "\"minimum_tier\" \"max\" is not one of fs, fs+net, full");
	bad("{\"version\": 2}", 1, 13, "policy version 2 is not supported");
	bad("{\"workspace\": \"\"}", 1, 15, "\"workspace\" is empty");
	bad("[]", 1, 1, "the policy must be an object, not an array");
	bad("{\"mcp\": {\"s\": {\"tools\": [\"t\"]}}}", 1, 15, "needs exactly one of \"command\" and \"url\"");
	bad("{\"mcp\": {\"s\": {\"url\": \"ftp://x\", \"tools\": [\"t\"]}}}", 1, 15, "url must be http:// or https://");
	bad("{\"mcp\": {\"s\": {\"url\": \"https://x\"}}}", 1, 15, "needs \"tools\"");
	bad("{\"mcp\": {\"a b\": {\"url\": \"https://x\", \"tools\": [\"t\"]}}}", 1, 10, "server name \"a b\"");

	/* removals */
	is_int(parse("{\"exec\": []}"), 0, "\"exec\": [] over an empty list: nothing to keep, no error");
	is_int(policy_default(&d, &de), 0, "the default again");
	is_int(policy_parse("{\"exec\": []}", 12, &d, &de), -1, "\"exec\": [] over the default's: an error");
	ok(de.line == 1 && de.col == 10 && strstr(de.msg, "\"exec\": [] adds nothing to the default's 5 entries") != NULL,
	    "... which says a list adds and how to take away: %s", de.msg);
	policy_free(&d);
	bad("{\"exec\": [\"-/opt\"]}", 1, 11, "\"-/opt\" takes away nothing: the default's \"exec\" has no \"/opt\"");
	bad("{\"exec\": [\"-\"]}", 1, 11, "\"exec\": empty entry");
	bad("{\"read\": [\"-x\"]}", 1, 11, "path \"x\" is not absolute");
	bad("{\"env\": {\"keep\": [\"-A\"]}}", 1, 19, "\"-A\" takes away nothing");

	/* paths */
	bad("{\"exec\": [\"usr\"]}", 1, 11, "path \"usr\" is not absolute");
	bad("{\"write\": [\"\"]}", 1, 12, "\"write\": empty entry");
	bad("{\"read\": [\"/a*/b\"]}", 1, 11, "may only appear in the last component");
	bad("{\"read\": [\"/a\\nb\"]}", 1, 11, "holds a control character");
	bad("{\"read\": [\"~root/x\"]}", 1, 11, "is not absolute");

	/* duplicates and syntax */
	bad("{\"scope\": true, \"scope\": false}", 1, 17, "duplicate key \"scope\" in the policy");
	bad("{\"env\": {\"set\": {\"A\": \"1\", \"\\u0041\": \"2\"}}}", 1, 28, "duplicate key \"A\" in \"env.set\"");
	bad("{\n  \"read\": [\n", 3, 1, "not valid JSON");
	bad("{\"read\": [] x", 1, 13, "not valid JSON");
	ok(parse("{\"read\": [01]}") == -1 && strstr(E.msg, "not valid JSON") != NULL, "a bad number is not JSON");
	ok(parse("") == -1, "empty input refused");
	{
		/* 65 levels: one past the cap, refused before jsmn runs; 64 parse */
		char deep[200];
		memset(deep, '[', 65);
		memset(deep + 65, ']', 65);
		deep[130] = '\0';
		ok(parse(deep) == -1 && strstr(E.msg, "nested deeper than 64 levels") != NULL, "65 levels: too deep, said so");
		deep[64] = '\0';
		memset(deep, '[', 64);
		memset(deep + 64, ']', 64);
		deep[128] = '\0';
		ok(parse(deep) == -1 && strstr(E.msg, "nested deeper") == NULL, "64 levels: not refused for depth (an array is not a policy)");
	}

	/* tiers */
	ok(policy_tier_rank("fs") < policy_tier_rank("fs+net") && policy_tier_rank("fs+net") < policy_tier_rank("full"),
	    "tiers are ordered");
	is_int(policy_tier_rank("nope"), -1, "unknown tier");
	policy_free(&P);
	/* if_present: the default's system trees, granted where they exist;
	 * a tree a file names (in any list, or taken away) is not among them */
	{
		const char *f = "{\"exec\": [\"/usr\", \"/opt/x\"], \"read\": [\"/sbin\"], \"write\": []}";
		int usr = 0, sbin = 0;

		is_int(policy_default(&d, &de), 0, "default");
		is_int(d.if_present.n, 5, "the default's five exec trees are granted if present");
		is_int(policy_parse(f, strlen(f), &d, &de), 0, "a file naming /usr and /sbin");
		is_int(d.if_present.n, 3, "... those two are no longer if present");
		for (size_t i = 0; i < d.if_present.n; i++) {
			usr |= strcmp(d.if_present.v[i], "/usr") == 0;
			sbin |= strcmp(d.if_present.v[i], "/sbin") == 0;
		}
		ok(!usr && !sbin, "... neither /usr nor /sbin");
		policy_free(&d);
		is_int(d.if_present.n, 0, "freed");
		policy_init(&d);
		is_int(policy_parse(f, strlen(f), &d, &de), 0, "a file alone");
		is_int(d.if_present.n, 0, "... nothing is if present");
		policy_free(&d);
	}
	return done_testing();
}
