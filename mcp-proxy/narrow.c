#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "narrow.h"
#include "selfnarrow.h"

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

int
narrow(const struct proxy_config *cfg, char *why, size_t cap)
{
	static struct sb_policy pol;
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
	return selfnarrow(&pol, why, cap);
}
