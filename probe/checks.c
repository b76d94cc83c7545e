/*
 * checks: the table of what probe proves, and the children that prove it.
 *
 * Every check asks for the one property it proves and nothing else (the file
 * check does not ask for IPC scoping, say). Checks whose policies fit
 * together share a child, which applies their union once (a sandbox costs
 * far more than the attempts); a check the sandbox refuses on its own (a
 * feature this kernel lacks) is left out of that union before it is
 * applied, so that on an older kernel the checks that can pass still do,
 * and the tier says how far the machine goes. Each attempt that must be
 * denied has, where the kernel allows one, a control that must succeed:
 * "everything failed" never passes as a proof.
 *
 * A filter above the caller (a container runtime's seccomp profile) may
 * refuse a control to everyone: podman's refuses migrate_pages and
 * move_pages, Docker's unshare. The checks marked PROBE_ABOVE (their
 * attempts change nothing outside the boundary) are then judged again
 * outside it (above.c, judge.c): closed from above when the attack fails
 * there as the control does. The other checks' controls are reads of
 * granted files, kill(self, 0), socketpair, loopback connects, ioctls
 * whose answer is the kernel's own: no runtime refuses those, and if one
 * did the check would stay unproven, as it should.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>
#include <linux/capability.h>

#include "apply.h"
#include "compat.h"
#include "judge.h"
#include "contain.h"
#include "egress.h"
#include "probe.h"


enum {
	CK_FS, CK_PRIVS, CK_FDS, CK_ENVIRON,
	CK_PROCOTHERS, CK_USERNS,	/* issue 11 (contain.c), tier fs */
	CK_TCP,
	CK_SIGNAL, CK_ABSTRACT, CK_UNIX, CK_TIOCSTI, CK_UDP,
	/* issue 11 (contain.c) */
	CK_PRLIMIT, CK_SETPRIO, CK_AFFINITY, CK_SCHEDULER, CK_SCHEDPARAM,
	CK_SCHEDATTR, CK_IOPRIO, CK_MIGRATE, CK_MOVEPAGES, CK_MADVISE,
	CK_FAMILIES,
	CK_EGRESS,	/* issue 14 (egress.c) */
	CK_COUNT
};

/* confine's seccomp answers (lib/sandbox.h) */
#define SB_SOCK EACCES
#define SB_IOCTL EPERM

const struct probe_check probe_checks[CK_COUNT] = {
[CK_FS] = { "fs", TIER_FS,
	"files outside the grants are unreadable; granted ones are readable",
	"the kernel must enforce Landlock: CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot list", 2, {
	{ "read unread sibling B/f", ATT_DENY, { EACCES, 0 }, 0 },
	{ "read granted A/f", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_REST, 0 },
[CK_PRIVS] = { "privs", TIER_FS,
	"no_new_privs is set and every capability set is empty",
	"the boundary could not drop privileges", 7, {
	{ "cap_setpcap_before", ATT_INFO, { 0, 0 }, 0 },
	{ "no_new_privs", ATT_VALUE, { 0, 0 }, 1 },
	{ "cap_effective", ATT_VALUE, { 0, 0 }, 0 },
	{ "cap_permitted", ATT_VALUE, { 0, 0 }, 0 },
	{ "cap_inheritable", ATT_VALUE, { 0, 0 }, 0 },
	{ "cap_ambient_count", ATT_VALUE, { 0, 0 }, 0 },
	/* Without CAP_SETPCAP the bounding set cannot be emptied (an ordinary
	 * user's is full); no_new_privs is what keeps exec from gaining any. */
	{ "cap_bounding_count", ATT_ZERO_IF, { 0, 0 }, 0 } }, 0, 0 },
[CK_FDS] = { "fds", TIER_FS,
	"descriptors inherited from the parent are closed",
	"the boundary could not close inherited descriptors", 3, {
	{ "use inherited fd of B/f", ATT_ERRNO, { EBADF, 0 }, 0 },
	{ "other inherited fds open", ATT_VALUE, { 0, 0 }, 0 },
	{ "use kept report fd", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_REST, 0 },
[CK_ENVIRON] = { "proc-environ", TIER_FS,
	"the parent's /proc/PID/environ is unreadable with /proc granted; /proc/self is readable",
	"with capabilities dropped Landlock must deny ptrace-class access", 2, {
	{ "read /proc/PARENT/environ", ATT_DENY, { EACCES, 0 }, 0 },
	{ "read /proc/self/status", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_OWN_MM, 0 },
[CK_TCP] = { "tcp", TIER_FSNET,
	"TCP connect reaches granted ports only; MPTCP, which would bypass the port rules, cannot be opened",
	"TCP port rules need Landlock ABI 4 (Linux 6.7 or later)", 3, {
	{ "connect to loopback listener on ungranted port", ATT_DENY, { EACCES, 0 }, 0 },
	{ "connect to loopback listener on granted port", ATT_ALLOW, { 0, 0 }, 0 },
	{ "socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)", ATT_DENY, { SB_SOCK, 0 }, 0 } }, PROBE_REST, 0 },
[CK_SIGNAL] = { "signal", TIER_FULL,
	"signals cannot reach processes outside the boundary",
	"signal scoping needs Landlock ABI 6 (Linux 6.12 or later)", 2, {
	{ "kill(parent, 0)", ATT_DENY, { EPERM, 0 }, 0 },
	{ "kill(self, 0)", ATT_ALLOW, { 0, 0 }, 0 } }, 0, 0 },
[CK_ABSTRACT] = { "abstract-unix", TIER_FULL,
	"abstract unix sockets outside the boundary cannot be reached",
	"abstract unix socket scoping needs Landlock ABI 6 (Linux 6.12 or later)", 1, {
	{ "connect to parent's abstract listener", ATT_ERRNO, { EPERM, 0 }, 0 } }, PROBE_REST, 0 },
[CK_UNIX] = { "unix-socket", TIER_FULL,
	"no new unix socket can be opened (pathname sockets are unmediated); socketpair works",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 3, {
	{ "socket(AF_UNIX, SOCK_STREAM)", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "socket(AF_UNIX, SOCK_DGRAM)", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "socketpair(AF_UNIX)", ATT_ALLOW, { 0, 0 }, 0 } }, 0, 0 },
[CK_TIOCSTI] = { "tiocsti", TIER_FULL,
	"terminal input injection (TIOCSTI, TIOCLINUX) is blocked before it reaches a tty",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 3, {
	{ "ioctl(TIOCSTI)", ATT_DENY, { SB_IOCTL, 0 }, 0 },
	{ "ioctl(TIOCLINUX)", ATT_DENY, { SB_IOCTL, 0 }, 0 },
	{ "ioctl(FIONREAD) reaches the kernel", ATT_ERRNO, { EBADF, 0 }, 0 } }, 0, 0 },
[CK_UDP] = { "udp", TIER_FULL,
	"with no network, UDP and TCP are denied; socketpair works",
	"no-network needs seccomp filters and Landlock ABI 4 (Linux 6.7 or later)", 4, {
	{ "socket(AF_INET, SOCK_DGRAM)", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "socket(AF_INET6, SOCK_DGRAM)", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "connect to loopback listener", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "socketpair(AF_UNIX, SOCK_DGRAM)", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_STACKED | PROBE_REST, 0 },
/* Other processes of the same uid: the call on the parent (outside, same
 * uid: the kernel alone would allow it) must fail, the same call on the
 * child itself (pid 0) must work. In the second child, with udp. */
#define OUTSIDE(ck, name, call, what) [ck] = { name, TIER_FULL, \
	call " cannot reach a process outside the boundary; on the caller (pid 0) it works", \
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 2, { \
	{ call "(parent" what ")", ATT_DENY, { EPERM, 0 }, 0 }, \
	{ call "(0" what ")", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_ABOVE, 0 }
OUTSIDE(CK_PRLIMIT, "prlimit", "prlimit", ", RLIMIT_NOFILE, its own value"),
[CK_SETPRIO] = { "setpriority", TIER_FULL,
	"setpriority reaches the caller only: not another process, a process group or a user",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 4, {
	{ "setpriority(PRIO_PROCESS, parent, its nice)", ATT_DENY, { EPERM, 0 }, 0 },
	{ "setpriority(PRIO_PGRP, unused group)", ATT_ERRNO, { EPERM, 0 }, 0 },
	{ "setpriority(PRIO_USER, unused uid)", ATT_ERRNO, { EPERM, 0 }, 0 },
	{ "setpriority(PRIO_PROCESS, 0, own nice)", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_ABOVE, 0 },
OUTSIDE(CK_AFFINITY, "sched-affinity", "sched_setaffinity", ", its mask"),
OUTSIDE(CK_SCHEDULER, "sched-scheduler", "sched_setscheduler", ", its policy"),
OUTSIDE(CK_SCHEDPARAM, "sched-param", "sched_setparam", ", its priority"),
OUTSIDE(CK_SCHEDATTR, "sched-attr", "sched_setattr", ", its attributes"),
OUTSIDE(CK_IOPRIO, "ioprio", "ioprio_set", ", its I/O priority"),
/* without CONFIG_NUMA the call on itself says ENOSYS: still the kernel's */
[CK_MIGRATE] = { "migrate-pages", TIER_FULL,
	"migrate_pages cannot reach a process outside the boundary; on the caller (pid 0) it reaches the kernel",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 2, {
	{ "migrate_pages(parent, node 0 to none)", ATT_DENY, { EPERM, 0 }, 0 },
	{ "migrate_pages(0, node 0 to none)", ATT_REACH, { EPERM, 0 }, 0 } }, PROBE_ABOVE, 0 },
[CK_MOVEPAGES] = { "move-pages", TIER_FULL,
	"move_pages cannot reach a process outside the boundary; on the caller (pid 0) it reaches the kernel",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 2, {
	{ "move_pages(parent, no pages)", ATT_DENY, { EPERM, 0 }, 0 },
	{ "move_pages(0, no pages)", ATT_REACH, { EPERM, 0 }, 0 } }, PROBE_ABOVE, 0 },
[CK_MADVISE] = { "process-madvise", TIER_FULL,
	"process_madvise is refused whatever the pidfd (a filter cannot see whose it is)",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 2, {
	{ "process_madvise(pidfd of parent)", ATT_DENY, { EPERM, 0 }, 0 },
	{ "process_madvise(pidfd of itself)", ATT_ERRNO, { EPERM, 0 }, 0 } }, 0, 0 },
#undef OUTSIDE
[CK_FAMILIES] = { "socket-families", TIER_FULL,
	"AF_VSOCK and netlink other than NETLINK_ROUTE cannot be opened; NETLINK_ROUTE can",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 5, {
	{ "socket(AF_VSOCK)", ATT_ERRNO, { SB_SOCK, 0 }, 0 },
	{ "socket(AF_NETLINK, NETLINK_SOCK_DIAG)", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT)", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "socket(AF_NETLINK, NETLINK_GENERIC)", ATT_DENY, { SB_SOCK, 0 }, 0 },
	{ "socket(AF_NETLINK, NETLINK_ROUTE)", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_ABOVE, 0 },
[CK_EGRESS] = { "egress", TIER_FULL,
	"IP destinations are decided outside (--filter-ip): an outside loopback service and cloud metadata are refused, the child's own server is reached; proven on loopback and on a socket bound to lo, so nothing can leave the machine",
	"the seccomp broker, the caller's parent, must be allowed to read it (ptrace access) and seccomp user notification must work", 5, {
	{ "connect to the parent's loopback listener (an outside service)", ATT_DENY, { EACCES, 0 }, 0 },
	{ "... as ::ffff:127.0.0.1", ATT_DENY, { EACCES, 0 }, 0 },
	{ "connect to 169.254.169.254:80 on a socket bound to lo", ATT_DENY, { EACCES, 0 }, 0 },
	{ "sendto(MSG_FASTOPEN) to the parent's listener", ATT_DENY, { EACCES, 0 }, 0 },
	{ "connect to its own listener on 127.0.0.1", ATT_ALLOW, { 0, 0 }, 0 } },
	PROBE_EARLY, 1 },
[CK_PROCOTHERS] = { "proc-others", TIER_FS,
	"with /proc granted read-only, the parent's memory, maps and open files (fd/N) are unreadable; its cmdline and status are not hidden",
	"with capabilities dropped Landlock must deny ptrace-class access", 5, {
	{ "open /proc/PARENT/mem", ATT_DENY, { EACCES, 0 }, 0 },
	{ "read /proc/PARENT/maps", ATT_DENY, { EACCES, 0 }, 0 },
	{ "readlink /proc/PARENT/fd/N (its descriptor on B/f)", ATT_DENY, { EACCES, 0 }, 0 },
	{ "read /proc/PARENT/cmdline", ATT_ALLOW, { 0, 0 }, 0 },
	{ "read /proc/PARENT/status", ATT_ALLOW, { 0, 0 }, 0 } }, PROBE_OWN_MM | PROBE_REST, 0 },
/* Its attempts come last in its child's first boundary: see contain.h. */
[CK_USERNS] = { "userns", TIER_FS,
	"no user namespace can be made (which would give back every capability inside it); unshare itself works",
	"the kernel must allow seccomp filters (CONFIG_SECCOMP_FILTER)", 4, {
	{ "clone(CLONE_NEWUSER)", ATT_DENY, { EPERM, 0 }, 0 },
	{ "clone3 (flags unseen: libc falls back to clone)", ATT_ERRNO, { ENOSYS, 0 }, 0 },
	{ "unshare(0)", ATT_ALLOW, { 0, 0 }, 0 },
	{ "unshare(CLONE_NEWUSER)", ATT_DENY, { EPERM, 0 }, 0 } }, PROBE_ABOVE, 0 },
};
const size_t probe_nchecks = CK_COUNT;
_Static_assert((int)CK_COUNT <= (int)PROBE_MAX_CHECKS, "too many checks");
/* Child 0: A and /proc granted, the TCP port rules, scoping; then, on top
 * of that (PROBE_STACKED), udp's no network, which port rules contradict:
 * none of udp's attempts is denied by the first boundary (UDP sockets, a
 * connect to the granted port, socketpair), so its verdict rests on its
 * own, as a unit test shows. It is a fork: the /proc checks need an
 * address space of their own. Child 1: egress (its broker would answer
 * child 0's connects itself, and a kernel or a caller that refuses the
 * broker must leave the others proven); it shares probe's memory (run.c),
 * and its sandbox forks the broker's child, a copy. One child, not three:
 * each costs a process made and ended (some 60-80 us of CPU with its
 * boundary's fixed part), and on two CPUs the proof is bound by its CPU
 * time. */
const int probe_nchildren = 2;

/* errno of a -1 result, 0 for success */
static int64_t
res(long r)
{
	return r < 0 ? (errno ? errno : EIO) : 0;
}

static int64_t
try_read(const char *path)
{
	char c;
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return res(-1);
	n = read(fd, &c, 1);
	if (n < 0) {
		int e = errno;
		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int64_t
try_connect(int family, int type, int port)
{
	struct sockaddr_in sin;
	int s = socket(family, type | SOCK_CLOEXEC, 0);
	int64_t r;

	if (s < 0)
		return res(-1);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = res(connect(s, (struct sockaddr *)&sin, sizeof sin));
	close(s);
	return r;
}

static int64_t
try_socket_proto(int family, int type, int proto)
{
	int s = socket(family, type | SOCK_CLOEXEC, proto);

	if (s < 0)
		return res(-1);
	close(s);
	return 0;
}

static int64_t
try_socket(int family, int type)
{
	int s = socket(family, type | SOCK_CLOEXEC, 0);

	if (s < 0)
		return res(-1);
	close(s);
	return 0;
}

static int64_t
try_socketpair(int type)
{
	int sv[2];

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0)
		return res(-1);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

/* Bits set in a per-capability prctl query, over every capability the
 * kernel knows (the query fails with EINVAL past the last one). */
static int64_t
count_caps(int op, int sub)
{
	int64_t n = 0;
	int cap, r;

	for (cap = 0; cap < 64; cap++) {
		r = sub ? prctl(op, sub, cap, 0, 0) : prctl(op, cap, 0, 0, 0);
		if (r < 0)
			break;
		n += r > 0;
	}
	return n;
}

/* capget's three sets; all bits set when it fails, so a failure never
 * reads as empty. */
static void
caps(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	if (syscall(SYS_capget, &h, d) < 0)
		memset(d, 0xff, 2 * sizeof *d);
}

static void
privs(struct probe_obs *ob)
{
	struct __user_cap_data_struct d[2];

	ob->got[ob->n++] = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	caps(d);
	ob->got[ob->n++] = (int64_t)((uint64_t)d[1].effective << 32 | d[0].effective);
	ob->got[ob->n++] = (int64_t)((uint64_t)d[1].permitted << 32 | d[0].permitted);
	ob->got[ob->n++] = (int64_t)((uint64_t)d[1].inheritable << 32 | d[0].inheritable);
	ob->got[ob->n++] = count_caps(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET);
	ob->got[ob->n++] = count_caps(PR_CAPBSET_READ, 0);
}

/* Descriptors 3..1023 still open besides the child's own (wfd and the
 * socket it made before the boundary): one poll(2) answers for all (a
 * closed one comes back POLLNVAL). -1 when poll fails. */
static int64_t
open_fds(int wfd, int own)
{
	struct pollfd p[1021];
	struct rlimit rl;
	nfds_t n = sizeof p / sizeof p[0], i;
	int64_t open = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < n + 3)
		n = rl.rlim_cur > 3 ? (nfds_t)rl.rlim_cur - 3 : 0;
	for (i = 0; i < n; i++) {
		p[i].fd = (int)i + 3;
		p[i].events = 0;
		p[i].revents = 0;
	}
	if (n > 0 && poll(p, n, 0) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (p[i].fd != wfd && p[i].fd != own && !(p[i].revents & POLLNVAL))
			open++;
	return open;
}

/* Check i's own policy: what it proves and nothing else. */
static void
own_policy(size_t i, const struct probe_ctx *ctx, struct probe_policy *pol)
{
	switch (i) {
	case CK_FS:
		pol->read[0] = ctx->a_dir;
		break;
	case CK_ENVIRON:
		pol->read[0] = "/proc";
		break;
	case CK_TCP:
		pol->connect_port = ctx->tcp_allow;
		break;
	case CK_SIGNAL:
	case CK_ABSTRACT:
		pol->scope = 1;
		break;
	case CK_UDP:
		pol->no_network = 1;
		break;
	case CK_PROCOTHERS:
		pol->read[0] = "/proc";
		break;
	case CK_EGRESS:
		pol->filter_ip = 1;
		break;
	}
}

/* Stage 1: applied on top of the first boundary (PROBE_STACKED). */
static int
in_stage(size_t i)
{
	return (probe_checks[i].flags & PROBE_STACKED) != 0;
}

int
probe_stacked(int child)
{
	size_t i;

	for (i = 0; i < probe_nchecks; i++)
		if (probe_checks[i].child == child && in_stage(i) == 1)
			return 1;
	return 0;
}

/* Merge the own policy of every check of child in stage not yet failed into pol;
 * with each, only those the sandbox admits alone. Returns how many. */
static int
gather(int child, int stage, const struct probe_ctx *ctx, struct probe_policy *pol,
    struct probe_obs *ob, int each)
{
	struct probe_policy own;
	size_t i;
	int n = 0;

	for (i = 0; i < probe_nchecks; i++) {
		if (probe_checks[i].child != child || ob[i].apply_err != 0 || in_stage(i) != stage)
			continue;
		probe_policy_init(&own);
		own_policy(i, ctx, &own);
		if ((each && probe_admit(&own, ob[i].why, sizeof ob[i].why) != 0) ||
		    probe_policy_merge(pol, &own) != 0)
			ob[i].apply_err = errno ? errno : EIO;
		else
			n++;
	}
	return n;
}

void
probe_prepare(int child, int stage, const struct probe_ctx *ctx, int wfd,
    struct probe_policy *pol, struct probe_obs *ob, int *pre)
{
	struct __user_cap_data_struct d[2];
	char why[sizeof ob[0].why];
	size_t i;

	if (stage == 0)	/* this child's reports only: no other is read or sent */
		for (i = 0; i < probe_nchecks; i++)
			if (probe_checks[i].child == child) {
				memset(&ob[i], 0, sizeof ob[i]);
				ob[i].magic = PROBE_OBS_MAGIC;
			}
	probe_policy_init(pol);
	/* Refused as a whole (a feature this kernel lacks, say): each check
	 * the sandbox refuses alone is left out, with its reason. A union of
	 * one check is not asked first: probe_apply asks the same (sb_apply
	 * begins with sb_check) and its refusal is that check's. */
	if (gather(child, stage, ctx, pol, ob, 0) > 1 && probe_admit(pol, why, sizeof why) != 0) {
		probe_policy_init(pol);
		gather(child, stage, ctx, pol, ob, 1);
	}
	pol->keep[0] = wfd;
	*pre = -1;
	if (stage != 0)
		return;
	if (probe_checks[CK_PRIVS].child == child && ob[CK_PRIVS].apply_err == 0) {
		caps(d);
		ob[CK_PRIVS].got[ob[CK_PRIVS].n++] = (d[0].effective >> CAP_SETPCAP) & 1;
	}
	if (probe_checks[CK_ABSTRACT].child == child && ob[CK_ABSTRACT].apply_err == 0) {
		/* Made before the boundary: the seccomp filter denies new unix
		 * sockets, and this check is about Landlock's scoping. */
		*pre = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (*pre < 0)
			ob[CK_ABSTRACT].apply_err = errno ? errno : EIO;
		else
			pol->keep[1] = *pre;
	}
}

void
probe_attempts(int child, int stage, const struct probe_ctx *ctx, int wfd, int pre,
    struct probe_obs *obs)
{
	struct probe_obs *ob;
	char path[64];
	size_t i;
	int c = 0;

	for (i = 0; i < probe_nchecks; i++) {
		if (probe_checks[i].child != child || obs[i].apply_err != 0 || i == CK_USERNS ||
		    in_stage(i) != stage)
			continue;
		ob = &obs[i];
		switch (i) {
		case CK_FS:
			ob->got[ob->n++] = try_read(ctx->b_file);
			ob->got[ob->n++] = try_read(ctx->a_file);
			break;
		case CK_PRIVS:
			privs(ob);
			break;
		case CK_FDS:
			ob->got[ob->n++] = res(fcntl(ctx->leak_fd, F_GETFD));
			ob->got[ob->n++] = open_fds(wfd, pre);
			ob->got[ob->n++] = res(fcntl(wfd, F_GETFD));
			break;
		case CK_ENVIRON:
			(void)snprintf(path, sizeof path, "/proc/%ld/environ", (long)ctx->parent);
			ob->got[ob->n++] = try_read(path);
			ob->got[ob->n++] = try_read("/proc/self/status");
			break;
		case CK_EGRESS:
			probe_egress(ctx->tcp_deny, ob);
			break;
		case CK_TCP:
			ob->got[ob->n++] = try_connect(AF_INET, SOCK_STREAM, ctx->tcp_deny);
			ob->got[ob->n++] = try_connect(AF_INET, SOCK_STREAM, ctx->tcp_allow);
			ob->got[ob->n++] = try_socket_proto(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
			break;
		case CK_SIGNAL:
			ob->got[ob->n++] = res(kill(ctx->parent, 0));
			ob->got[ob->n++] = res(kill(getpid(), 0));
			break;
		case CK_ABSTRACT:
			ob->got[ob->n++] = res(connect(pre, (const struct sockaddr *)&ctx->abs, ctx->abs_len));
			break;
		case CK_UNIX:
			ob->got[ob->n++] = try_socket(AF_UNIX, SOCK_STREAM);
			ob->got[ob->n++] = try_socket(AF_UNIX, SOCK_DGRAM);
			ob->got[ob->n++] = try_socketpair(SOCK_STREAM);
			break;
		case CK_TIOCSTI:
			/* fd -1: a filter answers before the descriptor is looked
			 * up, the kernel itself says EBADF; nothing reaches any
			 * terminal. */
			ob->got[ob->n++] = res(ioctl(-1, TIOCSTI, "x"));
			ob->got[ob->n++] = res(ioctl(-1, TIOCLINUX, &c));
			ob->got[ob->n++] = res(ioctl(-1, FIONREAD, &c));
			break;
		case CK_UDP:
			ob->got[ob->n++] = try_socket(AF_INET, SOCK_DGRAM);
			ob->got[ob->n++] = try_socket(AF_INET6, SOCK_DGRAM);
			ob->got[ob->n++] = try_connect(AF_INET, SOCK_STREAM, ctx->tcp_allow);
			ob->got[ob->n++] = try_socketpair(SOCK_DGRAM);
			break;
		case CK_PRLIMIT: contain_prlimit(ctx, ob); break;
		case CK_SETPRIO: contain_setpriority(ctx, ob); break;
		case CK_AFFINITY: contain_affinity(ctx, ob); break;
		case CK_SCHEDULER: contain_scheduler(ctx, ob); break;
		case CK_SCHEDPARAM: contain_schedparam(ctx, ob); break;
		case CK_SCHEDATTR: contain_schedattr(ctx, ob); break;
		case CK_IOPRIO: contain_ioprio(ctx, ob); break;
		case CK_MIGRATE: contain_migrate(ctx, ob); break;
		case CK_MOVEPAGES: contain_movepages(ctx, ob); break;
		case CK_MADVISE: contain_madvise(ctx, ob); break;
		case CK_FAMILIES: contain_families(ctx, ob); break;
		case CK_PROCOTHERS: contain_proc(ctx, ob); break;
		}
	}
	if (probe_checks[CK_USERNS].child == child && obs[CK_USERNS].apply_err == 0 &&
	    in_stage(CK_USERNS) == stage)
		contain_userns(ctx, &obs[CK_USERNS]);
}

size_t
probe_pack(int child, struct probe_obs *ob)
{
	size_t i, n = 0;

	for (i = 0; i < probe_nchecks; i++)
		if (probe_checks[i].child == child)
			ob[n++] = ob[i];
	return n;
}

/* The union is refused: so is every check of child from stage on. */
static void
refused(int child, int stage, struct probe_obs *ob, const char *why, size_t n)
{
	size_t i;
	int e = errno ? errno : EIO;

	for (i = 0; i < probe_nchecks; i++)
		if (probe_checks[i].child == child && ob[i].apply_err == 0 && in_stage(i) >= stage) {
			ob[i].apply_err = e;
			memcpy(ob[i].why, why, n);
		}
}

_Noreturn void
probe_child(int child, const struct probe_ctx *ctx, int wfd)
{
	/* Static, not on the stack: 10.5 KB there were three pages touched
	 * on entry (-fstack-clash-protection probes each page of a frame),
	 * a fault apiece; here only the pages of this child's reports are,
	 * in a table the parent never touches (so no copy on write). */
	static struct probe_obs ob[PROBE_MAX_CHECKS];
	struct probe_policy pol;
	char why[sizeof ob[0].why];
	size_t n;
	int pre;

	probe_prepare(child, 0, ctx, wfd, &pol, ob, &pre);
	if (probe_apply(&pol, why, sizeof why) != 0) {
		refused(child, 0, ob, why, sizeof why);
	} else {
		probe_attempts(child, 0, ctx, wfd, pre, ob);
		if (probe_stacked(child)) {
			probe_prepare(child, 1, ctx, wfd, &pol, ob, &pre);
			if (probe_apply(&pol, why, sizeof why) != 0)
				refused(child, 1, ob, why, sizeof why);
			else
				probe_attempts(child, 1, ctx, wfd, pre, ob);
		}
	}
	n = probe_pack(child, ob);
	(void)!write(wfd, ob, n * sizeof ob[0]);
	_exit(0);
}
