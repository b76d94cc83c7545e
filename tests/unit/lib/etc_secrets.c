/* etc_secrets: the table and its lookup. */
#include <fnmatch.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>

#include "etc_secrets.h"
#include "tap.h"

/* the matcher as first written (strrchr, fnmatch on the last component):
 * the one-pass matcher must agree with it on every path */
static int
ref_matches(const char *path, const char *e)
{
	const char *slash = strrchr(e, '/');
	size_t dn = (size_t)(slash - e), cn;
	char comp[256];

	if (strchr(slash, '*') == NULL)
		return strncmp(path, e, strlen(e)) == 0 && (path[strlen(e)] == '\0' || path[strlen(e)] == '/');
	if (strncmp(path, e, dn) != 0 || path[dn] != '/')
		return 0;
	cn = strcspn(path + dn + 1, "/");
	if (cn == 0 || cn >= sizeof comp)
		return 0;
	memcpy(comp, path + dn + 1, cn);
	comp[cn] = '\0';
	return fnmatch(slash + 1, comp, 0) == 0;
}

static const char *
ref_why(const char *path)
{
	for (size_t i = 0; etc_secrets[i].path != NULL; i++)
		if (ref_matches(path, etc_secrets[i].path))
			return etc_secrets[i].why;
	return NULL;
}

/* the linear scan as first written: the index by first component must
 * agree with it on every directory */
static int
ref_inside(const char *dir)
{
	size_t n;

	if (dir == NULL || dir[0] != '/')
		return 0;
	n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	for (size_t i = 0; etc_secrets[i].path != NULL; i++)
		if (strncmp(etc_secrets[i].path, dir, n) == 0 && etc_secrets[i].path[n] == '/')
			return 1;
	return 0;
}

static size_t walked, walk_bad;

static int
same_both(const char *p)
{
	int same = etc_secret_why(p) == ref_why(p) && etc_secret_inside(p) == ref_inside(p);

	if (!same)
		diag("differs on %s", p);
	return same;
}

static int
walk_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	char q[4200];

	(void)st, (void)type, (void)ftw;
	walked++;
	walk_bad += !same_both(p);
	/* and beside it: a name one longer, one shorter, a child */
	snprintf(q, sizeof q, "%s-", p);
	walk_bad += !same_both(q);
	snprintf(q, sizeof q, "%.*s", (int)strlen(p) - 1, p);
	walk_bad += !same_both(q);
	snprintf(q, sizeof q, "%s/x", p);
	walk_bad += !same_both(q);
	return 0;
}

/* every entry, cut short, lengthened, with a child, with its last
 * character changed, and its glob filled in, against the reference */
static int
agrees(size_t *tried)
{
	static const char *const tails[] = { "", "/x", "x", "-", ".pub", "/a/b", "_key", "_key/x" };
	char p[512];
	int same = 1;

	for (size_t i = 0; etc_secrets[i].path != NULL; i++) {
		const char *e = etc_secrets[i].path;
		size_t n = strlen(e);
		for (size_t cut = 1; cut <= n; cut++)
			for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
				char head[256];
				snprintf(head, sizeof head, "%.*s", (int)cut, e);
				for (char *star = strchr(head, '*'); star; star = strchr(head, '*'))
					*star = 'k';
				snprintf(p, sizeof p, "%s%s", head, tails[t]);
				(*tried)++;
				if (!same_both(p))
					same = 0;
				if (cut == n && n > 1) {
					snprintf(p, sizeof p, "%.*s%c%s", (int)(n - 1), head, head[n - 1] == 'z' ? 'y' : 'z', tails[t]);
					(*tried)++;
					if (!same_both(p))
						same = 0;
				}
			}
	}
	return same;
}

int
main(void)
{
	size_t i, j, n = 0;
	int sane = 1, uniq = 1;

	for (i = 0; etc_secrets[i].path != NULL; i++, n++) {
		const char *p = etc_secrets[i].path, *w = etc_secrets[i].why;
		if (strncmp(p, "/etc/", 5) != 0 || p[strlen(p) - 1] == '/' ||
		    (strchr(p, '*') != NULL && strchr(p, '*') < strrchr(p, '/')) ||
		    w == NULL || strlen(w) < 8)
			sane = 0;
		for (j = 0; j < i; j++)
			if (strcmp(etc_secrets[j].path, p) == 0)
				uniq = 0;
	}
	ok(n >= 40, "the table has its entries (%zu)", n);
	ok(sane, "every entry is under /etc, globs only in the last component, each with a reason");
	ok(uniq, "no entry twice");

	is_str(etc_secret_why("/etc/shadow"), "password hashes", "/etc/shadow: password hashes");
	ok(etc_secret_why("/etc/shadow-") != NULL, "/etc/shadow- (its backup)");
	ok(etc_secret_why("/etc/gshadow") != NULL && etc_secret_why("/etc/gshadow-") != NULL, "gshadow and its backup");
	ok(etc_secret_why("/etc/sudoers") != NULL, "/etc/sudoers");
	ok(etc_secret_why("/etc/sudoers.d") != NULL, "/etc/sudoers.d");
	ok(etc_secret_why("/etc/sudoers.d/90-cloud") != NULL, "a file inside /etc/sudoers.d");
	ok(etc_secret_why("/etc/ssh/ssh_host_ed25519_key") != NULL, "an ssh host key (glob)");
	ok(etc_secret_why("/etc/ssh/ssh_host_rsa_key") != NULL, "another");
	is_str(etc_secret_why("/etc/ssh/ssh_host_ed25519_key.pub"), NULL, "its public half is not");
	is_str(etc_secret_why("/etc/ssh/ssh_config"), NULL, "ssh_config is not");
	is_str(etc_secret_why("/etc/ssh"), NULL, "/etc/ssh itself is not");
	ok(etc_secret_why("/etc/ssl/private") != NULL && etc_secret_why("/etc/ssl/private/a.key") != NULL,
	    "/etc/ssl/private and what it holds");
	is_str(etc_secret_why("/etc/ssl/certs/ca-certificates.crt"), NULL, "certificates are not");
	ok(etc_secret_why("/etc/security/opasswd") != NULL, "/etc/security/opasswd");
	is_str(etc_secret_why("/etc/security/limits.conf"), NULL, "limits.conf is not");
	ok(etc_secret_why("/etc/postfix/sasl_passwd.db") != NULL, "a glob matches a suffix (sasl_passwd.db)");
	is_str(etc_secret_why("/etc/passwd"), NULL, "/etc/passwd is not");
	is_str(etc_secret_why("/etc/shadowy"), NULL, "a longer name is not the entry");
	is_str(etc_secret_why("/etc"), NULL, "/etc itself is not");
	is_str(etc_secret_why("etc/shadow"), NULL, "a relative path: not judged");
	is_str(etc_secret_why(NULL), NULL, "NULL: not judged");
	ok(etc_secret_why("/etc/.git/objects/ab") != NULL, "etckeeper's repository");

	ok(etc_secret_inside("/etc"), "/etc holds secrets");
	ok(etc_secret_inside("/"), "/ holds them all");
	ok(etc_secret_inside("/etc/ssh"), "/etc/ssh holds host keys (a glob)");
	ok(etc_secret_inside("/etc/ssl"), "/etc/ssl holds private/");
	ok(etc_secret_inside("/etc/pki"), "/etc/pki holds tls/private (two levels)");
	ok(!etc_secret_inside("/etc/ssl/certs"), "/etc/ssl/certs holds none");
	ok(!etc_secret_inside("/etc/ssh/ssh_config.d"), "/etc/ssh/ssh_config.d holds none");
	ok(!etc_secret_inside("/usr"), "/usr holds none");
	ok(!etc_secret_inside("/etc/shadow"), "a secret does not hold itself");
	ok(!etc_secret_inside("/et"), "/et is not a parent of /etc");
	ok(!etc_secret_inside("relative"), "a relative path: not judged");

	{
		size_t tried = 0;
		int same = agrees(&tried);
		ok(same && tried > 1000, "the index by first component agrees with the first matcher and scan on %zu paths", tried);
	}
	{
		/* this machine's /etc (and a planted tree of every entry's
		 * names would be no more than the list above): every path,
		 * and one beside each */
		static const char *const fixed[] = { "/", "/etc", "/etc/", "/et", "/etcx", "/etc/x/..", "/usr", NULL };
		for (i = 0; fixed[i]; i++)
			walk_bad += !same_both(fixed[i]);
		nftw("/etc", walk_one, 16, FTW_PHYS);
		ok(walk_bad == 0 && walked > 100, "... and on this machine's /etc: %zu paths, each with 3 beside it", walked);
	}
	return done_testing();
}
