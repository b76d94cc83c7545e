/* etc_secrets: see etc_secrets.h. */
#include <fnmatch.h>
#include <stddef.h>
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

const char *
etc_secret_why(const char *path)
{
	size_t i;

	/* every entry is under /etc/ */
	if (path == NULL || strncmp(path, "/etc/", 5) != 0)
		return NULL;
	for (i = 0; etc_secrets[i].path != NULL; i++)
		if (matches(path, etc_secrets[i].path))
			return etc_secrets[i].why;
	return NULL;
}

int
etc_secret_inside(const char *dir)
{
	size_t i, n;
	const char *e;

	if (dir == NULL || dir[0] != '/')
		return 0;
	n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	/* strictly inside: a glob entry too, whose directory is dir or lies
	 * inside it */
	for (i = 0; (e = etc_secrets[i].path) != NULL; i++)
		if (strncmp(e, dir, n) == 0 && e[n] == '/')
			return 1;
	return 0;
}
