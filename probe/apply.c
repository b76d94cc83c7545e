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

void
probe_policy_init(struct probe_policy *p)
{
	memset(p, 0, sizeof *p);
	p->keep[0] = p->keep[1] = -1;
}

/* Put v in the first free slot of list (n slots, free = none); 0 if already there. */
static int
add_slot(int *list, size_t n, int v, int none)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return 0;
	for (i = 0; i < n; i++)
		if (list[i] == none) {
			list[i] = v;
			return 0;
		}
	errno = EINVAL;
	return -1;
}

int
probe_policy_merge(struct probe_policy *a, const struct probe_policy *b)
{
	struct probe_policy m = *a;
	size_t i, j;

	for (i = 0; i < 2; i++) {
		if (b->read[i] == NULL)
			continue;
		for (j = 0; j < 2 && m.read[j] != NULL && strcmp(m.read[j], b->read[i]) != 0; j++)
			;
		if (j == 2) {
			errno = EINVAL;
			return -1;
		}
		m.read[j] = b->read[i];
	}
	if (b->connect_port > 0 && add_slot(&m.connect_port, 1, b->connect_port, 0) < 0)
		return -1;
	m.no_network |= b->no_network;
	m.scope |= b->scope;
	m.filter_ip |= b->filter_ip;
	for (i = 0; i < 2; i++)
		if (b->keep[i] >= 0 && add_slot(m.keep, 2, b->keep[i], -1) < 0)
			return -1;
	if (m.no_network && (m.connect_port > 0 || m.filter_ip)) {
		errno = EINVAL;
		return -1;
	}
	*a = m;
	return 0;
}

static int
to_sb(const struct probe_policy *pp, struct sb_policy *p, char *why, size_t n)
{
	size_t i;

	sb_policy_init(p);
	for (i = 0; i < 2; i++)
		if (pp->read[i] != NULL && sb_policy_add_path(p, pp->read[i], SB_R, 0) < 0)
			goto fail;
	if (pp->connect_port > 0 && sb_policy_add_connect(p, (uint16_t)pp->connect_port) < 0)
		goto fail;
	if (pp->no_network)
		p->net = SB_NET_NONE;
	p->scope = pp->scope;
	p->ipfilter = pp->filter_ip;
	/* the child's own code: one thread, one brokered call after another,
	 * and no chain whose denials corral would read (lib/sandbox.h) */
	p->serial = 1;
	p->unnamed = 1;
	/* the paths are real (run.c): each is opened as named, with no link
	 * on the way, as corral runs confine (--no-symlinks) */
	p->nolinks = 1;
	for (i = 0; i < 2; i++)
		if (pp->keep[i] >= 0)
			p->keep_fd[p->nkeep++] = pp->keep[i];
	return 0;
fail:
	snprintf(why, n, "policy: %s", strerror(errno));
	return -1;
}

/* The sandbox's policy is large (path table): one per process, not on the
 * stack of every caller. */
static struct sb_policy sbp;

int
probe_admit(const struct probe_policy *pp, char *why, size_t n)
{
	struct sb_error e;

	if (to_sb(pp, &sbp, why, n) < 0)
		return -1;
	memset(&e, 0, sizeof e);
	if (sb_check(&sbp, &e) == 0)
		return 0;
	snprintf(why, n, "%s", e.msg);
	errno = sb_errno(&e);
	return -1;
}

int
probe_apply(const struct probe_policy *pp, char *why, size_t n)
{
	struct sb_error e;

	if (to_sb(pp, &sbp, why, n) < 0)
		return -1;
	memset(&e, 0, sizeof e);
	if (sb_apply(&sbp, &e) == 0)
		return 0;
	snprintf(why, n, "%s", e.msg);
	errno = sb_errno(&e);
	return -1;
}
