/* The package specifiers session_package_install accepts are the agent's
 * bytes: any bytes give a verdict, never a crash, and what is accepted
 * holds none of the shapes pkgspec.h refuses (a leading '-', a shell
 * metacharacter, whitespace or a control character, a path or URL: only
 * the characters of names and version clauses). */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkgspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(enum pkg_mgr m, const char *s, size_t n)
{
	char why[128];

	why[0] = '\0';
	if (pkg_spec_ok(m, s, n, why, sizeof why) != 1) {
		if (why[0] == '\0' || memchr(why, '\0', sizeof why) == NULL)
			abort();	/* a refusal always says why, NUL-terminated */
		return;
	}
	/* a name first (a letter or digit, or npm's @scope), then only the
	 * characters of names, extras, version clauses and npm's @version */
	if (n == 0 || n > PKG_SPEC_MAX || !(isalnum((unsigned char)s[0]) || (m == PKG_NPM && s[0] == '@')))
		abort();
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("._-+![],=~<>*@/^", s[i]) == NULL)
			abort();
	if (m == PKG_PIP && memchr(s, '/', n) != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	enum pkg_mgr m;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (memchr(s, '\0', size) == NULL) {
		check(PKG_PIP, s, size);
		check(PKG_NPM, s, size);
		(void)pkg_recorded(s, PKG_PIP);
		(void)pkg_recorded(s, PKG_NPM);
		if (pkg_mgr_parse(s, &m) == 0 && strcmp(pkg_mgr_name(m), s) != 0)
			abort();
	}
	free(s);
	return 0;
}
