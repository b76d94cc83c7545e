/* sandbox-mcp's pure parts: the configuration parser, workspace path
 * checks, checkpoint and session labels, the lossy JSON writer. */
#include <stdlib.h>
#include <string.h>

#include "../../../sandbox-mcp/ckpt.h"
#include "../../../sandbox-mcp/config.h"
#include "../../../sandbox-mcp/copy.h"
#include "../../../sandbox-mcp/jw.h"
#include "../../../sandbox-mcp/sess.h"
#include "../../../sandbox-mcp/toml.h"
#include "../../../sandbox-mcp/tree.h"
#include "../../../sandbox-mcp/wspath.h"
#include "runrules.h"
#include "tap.h"

static struct config c;
static struct json_err e;

static int
parse(const char *s)
{
	config_free(&c);
	config_defaults(&c);
	return config_parse(s, strlen(s), &c, &e);
}

int
main(void)
{
	char err[256];
	struct buf b = { 0 };

	/* configuration */
	is_int(parse("{}"), 0, "an empty object: the defaults");
	is_int(c.max_sessions, 16, "default max_sessions");
	is_int(c.package_install_enabled, 0, "package install off by default");
	is_int(parse("{\"max_sessions\": 3, \"domain_allowlist\": [\"*.a.test\"], \"export_root\": \"/x\"}"), 0, "keys parsed");
	ok(c.max_sessions == 3 && c.domain_allowlist.n == 1 && strcmp(c.export_root, "/x") == 0, "values kept");
	is_int(parse("{\"max_sessions\": 0}"), -1, "max_sessions 0 refused");
	is_int(parse("{\"bogus\": 1}"), -1, "an unknown key refused");
	is_int(e.line * 100 + e.col, 102, "at its line and column");
	is_int(parse("{\"max_sessions\": 1, \"max_sessions\": 2}"), -1, "a key given twice refused");
	is_int(parse("{\n\"a\": [1,]\n}"), -1, "a trailing comma refused");
	is_int(e.line, 2, "trailing comma: its line");
	is_int(parse("[]"), -1, "not an object refused");
	is_int(parse("{\"export_root\": \"relative\"}"), -1, "a relative export_root refused");
	is_int(parse("{\"mount_overlay_paths\": [\"a/b\"]}"), -1, "an overlay with a slash refused");
	is_int(parse("{\"package_install_network\": \"open\"}"), -1, "package_install_network other than open-unfiltered refused");
	is_int(parse("{\"package_install_allow_loopback\": [4873, 8080]}"), 0, "package_install_allow_loopback: ports");
	is_int(c.package_install_allow_loopback.n * 100000 + c.package_install_allow_loopback.v[1], 208080, "... both kept");
	is_int(parse("{\"package_install_allow_loopback\": [0]}"), -1, "package_install_allow_loopback: port 0 refused");
	is_int(parse("{\"package_install_allow_loopback\": [65536]}"), -1, "... 65536 refused");
	is_int(parse("{\"package_install_allow_loopback\": [\"4873\"]}"), -1, "... a string refused");
	is_int(parse("{\"package_install_allow_loopback\": 4873}"), -1, "... not an array refused");
	is_int(parse("{}") == 0 && c.package_install_allow_loopback.n == 0, 1, "... none by default");
	is_int(parse("{\"snapshot_on_close\": 1}"), -1, "a number for a boolean refused");
	is_int(parse("{\"env_allowlist\": [\"A\\u0001\"]}"), -1, "a control character refused");
	is_int(parse("{\"export_root\": null}"), 0, "null for a string: unset");
	ok(c.export_root == NULL, "export_root unset");
	config_free(&c);

	/* workspace paths */
	is_int(ws_path_check("a/b.txt", err, sizeof err), 0, "a plain relative path");
	is_int(ws_path_check(".hidden/x", err, sizeof err), 0, "a dot file");
	is_int(ws_path_check("a..b", err, sizeof err), 0, "dots inside a name");
	const char *bad[] = { "", "/etc", "..", "../x", "a/..", "a/../b", ".", "./a", "a//b", "a/", "a\tb", NULL };
	for (int i = 0; bad[i]; i++)
		is_int(ws_path_check(bad[i], err, sizeof err), -1, "refused: \"%s\"", bad[i]);

	/* labels */
	ok(ckpt_label_ok("v1.0_rc-2"), "a checkpoint label");
	ok(!ckpt_label_ok("a..b") && !ckpt_label_ok(".a") && !ckpt_label_ok("-a") && !ckpt_label_ok("a.lock") &&
	    !ckpt_label_ok("a/b") && !ckpt_label_ok("a:b") && !ckpt_label_ok(""), "checkpoint labels git would misread refused");
	ok(sess_label_ok("my:session+1") && !sess_label_ok("a b") && !sess_label_ok(""), "session labels");
	ok(sess_id_ok("0123456789abcdef") && !sess_id_ok("0123456789ABCDEF") && !sess_id_ok("../x"), "session ids");

	/* the lossy JSON writer */
	json_quote_buf(&b, "a\"\\\n\x01\xff\xc3\xa9", 8);
	is_str(b.p, "\"a\\\"\\\\\\n\\u0001\xef\xbf\xbd\xc3\xa9\"", "escapes, invalid UTF-8 as U+FFFD, valid kept");
	buf_free(&b);
	json_quote_buf(&b, "\xed\xa0\x80", 3);
	is_str(b.p, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "an encoded surrogate is invalid, byte by byte");
	buf_free(&b);

	/* checkpoint names: .git kept as data, injectively */
	{
		char o[64];
		tree_escape(".git", o, sizeof o);
		is_str(o, ".sbx-esc-.git", ".git is escaped");
		tree_escape(".GiT", o, sizeof o);
		is_str(o, ".sbx-esc-.GiT", "in any letter case");
		tree_escape(".sbx-esc-x", o, sizeof o);
		is_str(o, ".sbx-esc-.sbx-esc-x", "a name that looks escaped is escaped again");
		tree_escape("x.git", o, sizeof o);
		is_str(o, "x.git", "other names as they are");
		ok(tree_escape(".git", o, 10) < 0, "too long for out: refused, not cut");
	}

	/* the run-file table, as export uses it */
	ok(runrules_match(".envrc") >= 0 && runrules_match("a/.envrc") < 0, "anchored: .envrc at the root only");
	ok(runrules_match_deep("a/b/.envrc") >= 0 && runrules_match_deep("x/.vscode/tasks.json") >= 0,
	    "deep: at any depth");
	ok(runrules_match_deep("src/main.c") < 0 && runrules_match_deep("a/envrc") < 0, "deep: ordinary files are not");
	ok(runrules_is_dotgit(".GIT") && runrules_is_dotgit(".git") && !runrules_is_dotgit(".github"), ".git in any case");

	/* links an install keeps: inside the tree only */
	ok(copy_link_inside("../tinypkg/cli.js", 1) && copy_link_inside("x/y", 0) && copy_link_inside("../../a", 2),
	    "links: leading .. within the depth, then names: kept");
	ok(!copy_link_inside("../x", 0) && !copy_link_inside("../../x", 1), "links: more .. than the depth: refused");
	ok(!copy_link_inside("/etc/passwd", 5) && !copy_link_inside("", 1), "links: absolute or empty: refused");
	ok(!copy_link_inside("a/../../x", 1) && !copy_link_inside("a/..", 1), "links: .. after a name: refused");
	ok(!copy_link_inside("./x", 1) && !copy_link_inside("a//b", 1) && !copy_link_inside("..", 1) &&
	    !copy_link_inside("../", 1), "links: . or an empty component, or only ..: refused");

	/* drun's config.toml, the subset */
	{
		static const char *const good[][2] = {
			{ "# c\n\nmax_sessions = 5 # n\n", "{\"max_sessions\":5}" },
			{ "a = \"x\\ty\\u00e9\"\nb = 'C:\\p'\n", "{\"a\":\"x\\ty\xc3\xa9\",\"b\":\"C:\\\\p\"}" },
			{ "l = [\n  \"p\", # one\n  \"q\",\n]\r\nn = -1_000\nt = true\n", "{\"l\":[\"p\",\"q\"],\"n\":-1000,\"t\":true}" },
			{ "e = []", "{\"e\":[]}" },
		};
		static const char *const tbad[] = { "[t]\nx=1", "a.b = 1", "x = 1.5", "x = 0x10", "x = 01", "x = 1__0",
		    "x = \"\"\"m\"\"\"", "x = [[1]]", "x = {a=1}", "x = 1979-05-27", "x = \"a", "x = 1 2", "x = 1\nx = 2",
		    "\"q\" = 1", "x = \"\\x\"", "x = \"\\ud800\"", "x = [1 2]", "x", "x = \"a\nb\"", "x = nan",
		    "x = 1234567890123456789" };
		for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
			struct buf o = { 0 };
			struct json_err te;
			int r = toml_to_json(good[i][0], strlen(good[i][0]), &o, &te);
			is_str(r == 0 ? o.p : te.msg, good[i][1], "toml: %s", good[i][1]);
			buf_free(&o);
		}
		for (size_t i = 0; i < sizeof tbad / sizeof tbad[0]; i++) {
			struct buf o = { 0 };
			struct json_err te;
			ok(toml_to_json(tbad[i], strlen(tbad[i]), &o, &te) < 0 && te.line >= 1 && te.col >= 1 && te.msg[0],
			    "toml refused with a position: %s", tbad[i]);
			buf_free(&o);
		}
	}
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}
