/* runrules: the name-first decision (runrules_name_may, runrules_dir_may)
 * never turns away a path runrules_match takes, and turns away the names
 * of an ordinary tree. */
#include <stdio.h>
#include <string.h>

#include "runrules.h"
#include "tap.h"

/* What a walk decides for rel before it builds the path: may it match? */
static int
may(const char *rel)
{
	const char *s = strrchr(rel, '/'), *name = s ? s + 1 : rel, *dir = rel;
	size_t dn = s ? (size_t)(s - rel) : 0;

	for (const char *q = rel; s && q < s; q++)
		if (*q == '/')
			dir = q + 1;
	if (s)
		dn = (size_t)(s - dir);
	return runrules_name_may(name) || runrules_dir_may(dir, dn);
}

int
main(void)
{
	static const char *const heads[] = { "", "a/", "src/deep/", ".git/", "x/.git/" };
	static const char *const paths[] = {
		".vscode/tasks.json", ".devcontainer/x", ".devcontainer.json", ".envrc", ".husky/pre-commit",
		".husky/_/h", ".github/workflows/ci.yml", ".idea/runConfigurations/a.xml", ".gitattributes",
		".git/hooks/pre-push", ".git/config", ".config/mise/config.toml", ".cargo/config.toml",
		"lefthook.yml", "mise.toml", ".npmrc", ".gitmodules", ".mcp.json", ".claude/settings.json",
		"src/main.c", "README.md", "hooks/x", "workflows", ".github/ci.yml", "f1.c", "index.js",
		"a/.envrc", "a/.gitattributes", "node_modules/x/.git/hooks/y", "tasks.json", "x/workflows/y",
	};
	char rel[512];
	size_t tried = 0, taken = 0;
	int lost = 0;

	for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++)
		for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
			snprintf(rel, sizeof rel, "%s%s", heads[h], paths[i]);
			tried++;
			if (runrules_match(rel) >= 0) {
				taken++;
				if (!may(rel)) {
					diag("turned away by name, taken by the table: %s", rel);
					lost = 1;
				}
			}
		}
	ok(!lost && taken > 20, "every path the table takes (%zu of %zu) passes the name-first check", taken, tried);
	ok(!runrules_name_may("main.c") && !runrules_name_may("f123.c") && !runrules_name_may("index.js") &&
	    !runrules_name_may("README.md"), "the names of an ordinary tree are turned away");
	ok(runrules_name_may(".envrc") && runrules_name_may("tasks.json") && runrules_name_may(".gitattributes"),
	    "control: names the table holds pass");
	ok(runrules_dir_may("workflows", 9) && runrules_dir_may(".husky", 6) && runrules_dir_may("_", 1) &&
	    runrules_dir_may("hooks", 5) && runrules_dir_may(".devcontainer", 13),
	    "directories of a rule for every name in them pass");
	ok(!runrules_dir_may("src", 3) && !runrules_dir_may("workflow", 8) && !runrules_dir_may("", 0),
	    "other directories do not");
	return done_testing();
}
