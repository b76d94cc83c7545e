#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "narrow.h"
#include "sandbox.h"
#include "seccomp_util.h"

/* The TCP port of an http:// or https:// URL. */
static int
url_port(const char *url)
{
	const char *h = strstr(url, "://"), *e, *c;
	int https = strncmp(url, "https:", 6) == 0;
	long v;

	if (!h)
		return -1;
	h += 3;
	e = h + strcspn(h, "/?#");
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(e - h));
		c = rb && rb + 1 < e && rb[1] == ':' ? rb + 1 : NULL;
	} else {
		c = memchr(h, ':', (size_t)(e - h));
	}
	if (!c)
		return https ? 443 : 80;
	v = strtol(c + 1, NULL, 10);
	return v > 0 && v <= 65535 ? (int)v : -1;
}

/* Keep every descriptor this process holds now. */
static int
keep_open(struct sb_policy *pol)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int self = d ? dirfd(d) : -1;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		int fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd < 3 || fd == self)
			continue;
		if (pol->nkeep == SB_MAX_KEEPFD) {
			closedir(d);
			return errno = EMFILE, -1;
		}
		pol->keep_fd[pol->nkeep++] = fd;
	}
	closedir(d);
	return 0;
}

static int
no_exec(void)
{
	struct sf_prog f;

	sf_init(&f);
	sf_ld(&f, offsetof(struct seccomp_data, arch));
	sf_jeq(&f, SF_AUDIT_ARCH, 0, 2);
	sf_ld(&f, offsetof(struct seccomp_data, nr));
	sf_jeq(&f, __NR_execve, 1, 0);
	sf_jeq(&f, __NR_execveat, 1, 0);
	sf_ret(&f, SECCOMP_RET_ALLOW);
	sf_label(&f, 1);
	sf_ret(&f, SECCOMP_RET_ERRNO | EPERM);
	sf_label(&f, 2);
	sf_ret(&f, SECCOMP_RET_KILL_PROCESS);
	if (sf_finish(&f) < 0)
		return errno = EINVAL, -1;
	return sf_install(&f, 0) < 0 ? -1 : 0;
}

int
narrow(const struct proxy_config *cfg, char *why, size_t cap)
{
	static struct sb_policy pol;
	struct sb_error e;
	int port;

	sb_policy_init(&pol);
	if (!cfg->url)
		pol.net = SB_NET_NONE;
	else {
		if ((port = url_port(cfg->url)) < 0) {
			snprintf(why, cap, "no port in the URL");
			return -1;
		}
		if (sb_policy_add_connect(&pol, (uint16_t)port) < 0 || sb_policy_add_connect(&pol, 53) < 0 ||
		    sb_policy_add_path(&pol, "/etc/resolv.conf", SB_R, SB_OPTIONAL) < 0 ||
		    sb_policy_add_path(&pol, "/etc/hosts", SB_R, SB_OPTIONAL) < 0 ||
		    sb_policy_add_path(&pol, cfg->cacert ? cfg->cacert : "/etc/ssl/certs/ca-certificates.crt", SB_R,
		    cfg->cacert ? 0 : SB_OPTIONAL) < 0) {
			snprintf(why, cap, "%s", strerror(errno));
			return -1;
		}
	}
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
	/* the sanitizer build reads /proc/self/maps when it reports leaks */
	sb_policy_add_path(&pol, "/proc", SB_R, 0);
#endif
#endif
	if (keep_open(&pol) < 0) {
		snprintf(why, cap, "unable to list its descriptors: %s", strerror(errno));
		return -1;
	}
	if (sb_apply(&pol, &e) != 0) {
		snprintf(why, cap, "%s", e.msg);
		return -1;
	}
	if (no_exec() < 0) {
		snprintf(why, cap, "unable to install its seccomp filter: %s", strerror(errno));
		return -1;
	}
	return 0;
}
