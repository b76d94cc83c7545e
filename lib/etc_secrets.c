/* etc_secrets: see etc_secrets.h. */
#include <fnmatch.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "etc_secrets.h"

const struct etc_secret etc_secrets[] = {
	{ "/etc/shadow", "password hashes" },
	{ "/etc/shadow-", "password hashes (the backup of /etc/shadow)" },
	{ "/etc/gshadow", "group password hashes" },
	{ "/etc/gshadow-", "group password hashes (the backup of /etc/gshadow)" },
	{ "/etc/security/opasswd", "old password hashes (pam_pwhistory)" },
	{ "/etc/sudoers", "who may run what as root, and without which password" },
	{ "/etc/sudoers.d", "who may run what as root, and without which password" },
	{ "/etc/ssh/*_key", "an SSH host private key: whoever holds it can pose as this machine" },
	{ "/etc/ssl/private", "TLS private keys" },
	{ "/etc/pki/tls/private", "TLS private keys" },
	{ "/etc/pki/CA/private", "a certificate authority's private key" },
	{ "/etc/letsencrypt/archive", "certificate private keys (live/ links into it)" },
	{ "/etc/letsencrypt/keys", "certificate private keys" },
	{ "/etc/dovecot/private", "the mail server's TLS private key" },
	{ "/etc/cups/ssl", "the print server's TLS private key" },
	{ "/etc/krb5.keytab", "Kerberos keys of this host's services" },
	{ "/etc/krb5kdc", "the Kerberos KDC's master key and database" },
	{ "/etc/ipsec.secrets", "IPsec pre-shared and private keys" },
	{ "/etc/ipsec.d/private", "IPsec private keys" },
	{ "/etc/ppp/chap-secrets", "PPP passwords" },
	{ "/etc/ppp/pap-secrets", "PPP passwords" },
	{ "/etc/wireguard", "WireGuard private keys" },
	{ "/etc/openvpn", "VPN keys and passwords" },
	{ "/etc/NetworkManager/system-connections", "Wi-Fi and VPN passwords" },
	{ "/etc/wpa_supplicant", "Wi-Fi passphrases" },
	{ "/etc/netplan", "network configuration, Wi-Fi passphrases included" },
	{ "/etc/cryptsetup-keys.d", "disk encryption keys" },
	{ "/etc/credstore", "systemd service credentials" },
	{ "/etc/credstore.encrypted", "systemd service credentials" },
	{ "/etc/mysql/debian.cnf", "the MySQL maintenance account's password" },
	{ "/etc/postfix/sasl_passwd*", "mail relay passwords" },
	{ "/etc/exim4/passwd.client", "mail relay passwords" },
	{ "/etc/ssmtp", "a mail relay password" },
	{ "/etc/msmtprc", "a mail relay password" },
	{ "/etc/ldap.secret", "the LDAP administrator's password" },
	{ "/etc/pam_ldap.secret", "the LDAP bind password" },
	{ "/etc/libnss-ldap.secret", "the LDAP bind password" },
	{ "/etc/sssd", "directory bind passwords (sssd.conf)" },
	{ "/etc/samba/smbpasswd", "Samba password hashes" },
	{ "/etc/rsyncd.secrets", "rsync daemon passwords" },
	{ "/etc/davfs2/secrets", "WebDAV passwords" },
	{ "/etc/libvirt/secrets", "libvirt secret values (disk and network passwords)" },
	{ "/etc/ceph/*.keyring", "Ceph keys" },
	{ "/etc/kubernetes/pki", "Kubernetes cluster keys" },
	{ "/etc/kubernetes/*.conf", "Kubernetes credentials (admin.conf is the cluster's root)" },
	{ "/etc/rancher/k3s/k3s.yaml", "the k3s cluster administrator's credentials" },
	{ "/etc/gitlab-runner/config.toml", "CI runner tokens" },
	{ "/etc/docker/key.json", "the Docker daemon's private key" },
	{ "/etc/duo", "Duo two-factor integration secret keys" },
	{ "/etc/snmp/snmpd.conf", "SNMP community strings (passwords)" },
	{ "/etc/.git", "etckeeper's history: every secret above, as committed" },
	{ NULL, NULL },
};

/* Entry e against path: e's last component may be a glob. One pass over
 * the common prefix (confine calls this for every entry of /etc). */
static int
matches(const char *path, const char *e)
{
	size_t i = 0, comp = 0, cn;
	char name[256];

	for (; e[i] != '\0' && e[i] != '*' && e[i] == path[i]; i++)
		if (e[i] == '/')
			comp = i + 1;
	if (e[i] == '\0')
		return path[i] == '\0' || path[i] == '/';
	/* they part at i: only a glob in e's last component can still match,
	 * and path must agree up to that component */
	if (strchr(e + i, '/') != NULL || strchr(e + comp, '*') == NULL)
		return 0;
	cn = strcspn(path + comp, "/");
	if (cn == 0 || cn >= sizeof name)
		return 0;
	memcpy(name, path + comp, cn);
	name[cn] = '\0';
	return fnmatch(e + comp, name, 0) == 0;
}

/* The table by its first component under /etc/ ("ssh" for the host keys),
 * sorted, built once: a path is matched only against the entries that
 * share its first component (confine asks for every entry of /etc, and
 * most share none), plus any whose first component is itself a glob. */
enum { NSECRETS = sizeof etc_secrets / sizeof etc_secrets[0] - 1 };
static struct first {
	const char *comp;	/* in the entry, after "/etc/" */
	size_t len;
	size_t i;		/* the entry */
} firsts[NSECRETS], globs[NSECRETS];
static size_t nfirsts, nglobs;
static pthread_once_t firsts_once = PTHREAD_ONCE_INIT;

static int
first_cmp(const void *x, const void *y)
{
	const struct first *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->comp, b->comp, n);

	if (c != 0)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;	/* the table's order within */
}

static void
firsts_build(void)
{
	for (size_t i = 0; etc_secrets[i].path != NULL; i++) {
		const char *c = etc_secrets[i].path + 5;
		struct first f = { c, strcspn(c, "/"), i };
		if (memchr(c, '*', f.len) != NULL)
			globs[nglobs++] = f;
		else
			firsts[nfirsts++] = f;
	}
	qsort(firsts, nfirsts, sizeof firsts[0], first_cmp);
}

/* The first of firsts[] whose component is comp[0..len), and how many. */
static const struct first *
firsts_find(const char *comp, size_t len, size_t *n)
{
	struct first key = { comp, len, 0 };
	size_t lo = 0, hi;

	pthread_once(&firsts_once, firsts_build);
	hi = nfirsts;
	while (lo < hi) {	/* the lower bound: index 0 sorts first */
		size_t mid = lo + (hi - lo) / 2;
		if (first_cmp(&firsts[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (*n = 0; lo + *n < nfirsts && firsts[lo + *n].len == len &&
	    memcmp(firsts[lo + *n].comp, comp, len) == 0; (*n)++)
		;
	return &firsts[lo];
}

const char *
etc_secret_why(const char *path)
{
	const struct first *f;
	size_t n, best = NSECRETS;

	/* every entry is under /etc/ */
	if (path == NULL || strncmp(path, "/etc/", 5) != 0)
		return NULL;
	f = firsts_find(path + 5, strcspn(path + 5, "/"), &n);
	/* the table's first match, as a scan of it in order would find */
	for (size_t k = 0; k < n; k++)
		if (matches(path, etc_secrets[f[k].i].path)) {
			best = f[k].i;
			break;
		}
	for (size_t k = 0; k < nglobs; k++)
		if (globs[k].i < best && matches(path, etc_secrets[globs[k].i].path))
			best = globs[k].i;
	return best < NSECRETS ? etc_secrets[best].why : NULL;
}

int
etc_secret_inside(const char *dir)
{
	const struct first *f;
	size_t k, n;

	if (dir == NULL || dir[0] != '/')
		return 0;
	/* every entry lies strictly inside / and /etc */
	if (strcmp(dir, "/") == 0 || strcmp(dir, "/etc") == 0)
		return NSECRETS > 0;
	if (strncmp(dir, "/etc/", 5) != 0)
		return 0;
	/* strictly inside: an entry (a glob entry too, whose directory is dir
	 * or lies inside it) shares dir's first component; a glob in the
	 * first component is the last, so nothing of it lies inside a dir */
	n = strlen(dir);
	f = firsts_find(dir + 5, strcspn(dir + 5, "/"), &k);
	while (k-- > 0)
		if (strncmp(f[k].comp - 5, dir, n) == 0 && f[k].comp[n - 5] == '/')
			return 1;
	return 0;
}
