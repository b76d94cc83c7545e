/* apply: probe's policy in lib/sandbox.h's words, applied by sb_apply. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "sandbox.h"

static int
sb_errno(const struct sb_error *e)
{
	if (e->sys_errno != 0)
		return e->sys_errno;
	switch (e->code) {
	case SB_E_NOLANDLOCK:
	case SB_E_SECCOMP:
		return ENOSYS;
	case SB_E_ABI:
	case SB_E_UNSUPPORTED:
		return EOPNOTSUPP;
	case SB_E_POLICY:
		return EINVAL;
	case SB_E_PATH:
		return ENOENT;
	default:
		return EIO;
	}
}

int
probe_apply(const struct probe_policy *pp, char *why, size_t n)
{
	struct sb_policy p;
	struct sb_error e;
	size_t i;

	sb_policy_init(&p);
	for (i = 0; i < 2; i++)
		if (pp->read[i] != NULL && sb_policy_add_path(&p, pp->read[i], SB_R, 0) < 0)
			goto fail_errno;
	if (pp->connect_port > 0 && sb_policy_add_connect(&p, (uint16_t)pp->connect_port) < 0)
		goto fail_errno;
	if (pp->no_network)
		p.net = SB_NET_NONE;
	p.scope = pp->scope;
	for (i = 0; i < 2; i++)
		if (pp->keep[i] >= 0)
			p.keep_fd[p.nkeep++] = pp->keep[i];
	memset(&e, 0, sizeof e);
	if (sb_apply(&p, &e) == 0)
		return 0;
	snprintf(why, n, "%s", e.msg);
	errno = sb_errno(&e);
	return -1;
fail_errno:
	snprintf(why, n, "policy: %s", strerror(errno));
	return -1;
}
