/* session_package_install's specifier check (sandbox-mcp/pkgspec.c). */
#include <string.h>

#include "../../../sandbox-mcp/pkgspec.h"
#include "tap.h"

static char why[128];

/* s with control and non-ASCII bytes as \xNN, for the test names */
static const char *
shown(const char *s)
{
	static char b[1024];
	size_t o = 0;

	for (; *s && o < sizeof b - 5; s++)
		o += (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ?
		    (size_t)snprintf(b + o, 5, "\\x%02x", (unsigned char)*s) : (size_t)snprintf(b + o, 2, "%c", *s);
	b[o] = '\0';
	return b;
}

static int
chk(enum pkg_mgr m, const char *s)
{
	why[0] = '\0';
	return pkg_spec_ok(m, s, strlen(s), why, sizeof why);
}

int
main(void)
{
	static const char *const pip_good[] = {
		"requests", "Requests", "zope.interface", "typing_extensions", "a", "x1",
		"requests==2.31.0", "requests>=2,<3", "requests~=2.31", "requests!=2.0.*", "numpy==1.*",
		"requests[security]", "requests[security,socks]>=2.0", "pkg==1!2.0", "pkg==1.0.post1",
		"pkg<2", "pkg>1.0rc1", "pkg==1.0+local.7", NULL
	};
	static const char *const pip_bad[] = {
		"-e", "--index-url=http://x", "-rrequirements.txt", "pkg; rm -rf /", "pkg;python_version<'3'",
		"$(id)", "`id`", "pkg$(id)", "pkg|sh", "pkg&", "pkg>out", "pkg && x", "pkg ==1",
		"./pkg", "../pkg", "/tmp/pkg.whl", "pkg/sub", "dist/pkg-1.0.tar.gz", "~/pkg",
		"https://example.com/p.whl", "file:///tmp/p.whl", "git+https://x/y.git", "pkg @ https://x/p.whl",
		"pkg@https://x", "pkg===anything", "pkg==", "pkg==1.", "pkg,", "pkg==1,", "pkg[", "pkg[a", "pkg[]",
		"pkg[-x]", ".pkg", "pkg.", "_pkg", "pkg\n", "pkg\t", "pk\"g", "pk'g", "pkg*", "pkg==*",
		"pkg?", "p{a}", "pkg#x", "pkg\\x", "pkg==1.0 ", "", "pkg>=1(2)", "pkg~1", "pkg=1", NULL
	};
	static const char *const npm_good[] = {
		"lodash", "left-pad", "@types/node", "@scope/pkg@1.2.3", "lodash@4.17.21", "lodash@^4.17.0",
		"lodash@~4.17.0", "lodash@latest", "lodash@next", "lodash@4.x", "pkg@1.0.0-beta.1", "pkg@>=1.2",
		"pkg@<2", "pkg@=1.0.0", "a.b_c-d", "x", NULL
	};
	static const char *const npm_bad[] = {
		"-g", "--registry=http://127.0.0.1", "--ignore-scripts=false", "pkg;id", "$(id)", "`id`", "pkg|x",
		"pkg&&x", "./pkg", "../pkg", "/tmp/pkg.tgz", "pkg.tgz/", "~/pkg", "user/repo", "github:user/repo",
		"git+ssh://git@github.com/u/r.git", "https://registry.example/pkg.tgz", "file:../pkg",
		"alias@npm:lodash", "pkg@file:./x", "Lodash", "@Scope/pkg", "@scope", "@scope/", "@/pkg",
		".pkg", "_pkg", "pkg@", "pkg@>=1 <2", "pkg@1 || 2", "pkg@*", "pkg@>", "pkg@^", "pkg@1.0#x",
		"pkg@1.0!", "p~kg", "pkg name", "pkg\n", "\xc3\xa9", "pkg@@1", "", NULL
	};
	char longname[300];

	for (int i = 0; pip_good[i]; i++)
		ok(chk(PKG_PIP, pip_good[i]), "pip accepts %s", pip_good[i]);
	for (int i = 0; pip_bad[i]; i++)
		ok(!chk(PKG_PIP, pip_bad[i]) && why[0], "pip refuses \"%s\" (%s)", shown(pip_bad[i]), why);
	for (int i = 0; npm_good[i]; i++)
		ok(chk(PKG_NPM, npm_good[i]), "npm accepts %s", npm_good[i]);
	for (int i = 0; npm_bad[i]; i++)
		ok(!chk(PKG_NPM, npm_bad[i]) && why[0], "npm refuses \"%s\" (%s)", shown(npm_bad[i]), why);

	/* the reasons say which rule */
	chk(PKG_PIP, "-e");
	ok(strstr(why, "'-'") != NULL, "a leading '-': named as an option (%s)", why);
	chk(PKG_NPM, "pkg;id");
	ok(strstr(why, "metacharacter") != NULL, "';': a shell metacharacter (%s)", why);
	chk(PKG_NPM, "$(id)");
	ok(strstr(why, "metacharacter") != NULL, "$(...): a shell metacharacter (%s)", why);
	chk(PKG_PIP, "./pkg");
	ok(strstr(why, "path") != NULL, "./pkg: a path (%s)", why);
	chk(PKG_NPM, "https://registry.example/pkg.tgz");
	ok(strstr(why, "URL") != NULL, "https://...: a URL (%s)", why);
	/* bounds: NUL inside, length */
	ok(!pkg_spec_ok(PKG_PIP, "pkg\0x", 5, why, sizeof why) && strstr(why, "NUL"), "a NUL byte inside: refused");
	memset(longname, 'a', 214);
	longname[214] = '\0';
	ok(chk(PKG_NPM, longname), "214 bytes: accepted");
	longname[214] = 'a';
	longname[215] = '\0';
	ok(!chk(PKG_NPM, longname) && strstr(why, "214"), "215 bytes: refused");
	/* managers */
	enum pkg_mgr m;
	ok(pkg_mgr_parse("pip", &m) == 0 && m == PKG_PIP && pkg_mgr_parse("npm", &m) == 0 && m == PKG_NPM,
	    "pip and npm are managers");
	ok(pkg_mgr_parse("cargo", &m) < 0 && pkg_mgr_parse("pip3", &m) < 0 && pkg_mgr_parse("", &m) < 0,
	    "control: nothing else is");
	/* the session's record of merged installs */
	ok(pkg_recorded("pip\n", PKG_PIP) && !pkg_recorded("pip\n", PKG_NPM), "record: pip, not npm");
	ok(pkg_recorded("pip\nnpm\n", PKG_NPM) && pkg_recorded("npm", PKG_NPM), "record: npm on the second line, or unterminated");
	ok(!pkg_recorded("pipx\n", PKG_PIP) && !pkg_recorded("xnpm\n", PKG_NPM) && !pkg_recorded("", PKG_PIP) &&
	    !pkg_recorded(NULL, PKG_PIP), "control: another word, nothing or no record names neither");
	return done_testing();
}
