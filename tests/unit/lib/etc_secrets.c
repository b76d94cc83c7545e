/* etc_secrets: the table and its lookup. */
#include <string.h>

#include "etc_secrets.h"
#include "tap.h"

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
	return done_testing();
}
