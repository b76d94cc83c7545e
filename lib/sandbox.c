/* sandbox: the confine boundary (see sandbox.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/securebits.h>

#include "compat.h"
#include "fdio.h"
#include "landlock.h"
#include "path.h"
#include "sandbox.h"
#include "sandbox_int.h"


const struct sb_abi_req sb_abi_table[SB_F_COUNT] = {
	{ SB_F_FS,        1, "filesystem rules", 1 },
	{ SB_F_REFER,     2, "rename and link across directories", 0 },
	{ SB_F_TRUNCATE,  3, "the truncate right", 0 },
	{ SB_F_NET,       4, "TCP port rules", 1 },
	{ SB_F_IOCTL_DEV, 5, "the device ioctl right", 0 },
	{ SB_F_SCOPE,     6, "signal and abstract unix socket scoping", 1 },
	{ SB_F_LOG,       7, "audit log flags", 0 },
};

int
sb_feature_abi(enum sb_feature f)
{
	return (unsigned)f < SB_F_COUNT ? sb_abi_table[f].abi : 0;
}

int
sb_abi(void)
{
	int v = ll_abi();

	if (v >= 0)
		return v;
	if (errno == ENOSYS || errno == EOPNOTSUPP)
		return 0;
	return -1;
}

#define FS_FILE SB_FS_FILE

uint64_t
sb_fs_handled(int abi)
{
	uint64_t m;

	if (abi < 1)
		return 0;
	m = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;	/* ABI 1: bits 0-12 */
	if (abi >= sb_feature_abi(SB_F_REFER))
		m |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= sb_feature_abi(SB_F_TRUNCATE))
		m |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= sb_feature_abi(SB_F_IOCTL_DEV))
		m |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return m;
}

uint64_t
sb_fs_access(unsigned rights, int dir, int abi)
{
	uint64_t m = 0;

	if (rights & (SB_R | SB_X | SB_W))
		m |= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	if (rights & SB_X)
		m |= LANDLOCK_ACCESS_FS_EXECUTE;
	if (rights & SB_W)
		m |= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
		    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |
		    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |
		    LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE;
	if (rights & SB_WALL)
		m |= ~0ULL;
	if (rights & SB_IOCTL)
		m |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (!dir)
		m &= FS_FILE;
	return m & sb_fs_handled(abi);
}

void
sb_policy_init(struct sb_policy *p)
{
	/* all but the path table (see sandbox.h) */
	memset(p, 0, offsetof(struct sb_policy, path));
	sb_policy_defaults(p);
}

void
sb_policy_defaults(struct sb_policy *p)
{
	p->net = SB_NET_OPEN;
	p->scope = 1;
	p->refusals_fd = -1;
	p->listeners_fd = -1;
}

int
sb_policy_add_path(struct sb_policy *p, const char *path, unsigned rights, unsigned flags)
{
	if (path == NULL || *path == '\0' ||
	    (rights & ~(unsigned)(SB_R | SB_X | SB_W | SB_WALL | SB_IOCTL)) ||
	    !(rights & (SB_R | SB_X | SB_W | SB_WALL)) || (flags & ~(unsigned)(SB_OPTIONAL | SB_ONGO))) {
		errno = EINVAL;
		return -1;
	}
	if (p->npath >= SB_MAX_PATHS) {
		errno = E2BIG;
		return -1;
	}
	p->path[p->npath].path = path;
	p->path[p->npath].rights = rights;
	p->path[p->npath].flags = flags;
	p->path[p->npath].raw = 0;
	p->npath++;
	return 0;
}

static int
add_port(uint16_t *list, size_t *n, uint16_t port)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (list[i] == port)
			return 0;
	if (*n >= SB_MAX_PORTS) {
		errno = E2BIG;
		return -1;
	}
	list[(*n)++] = port;
	return 0;
}

int
sb_policy_add_connect(struct sb_policy *p, uint16_t port)
{
	if (p->net == SB_NET_NONE) {
		errno = EINVAL;
		return -1;
	}
	p->net = SB_NET_PORTS;
	return add_port(p->connect, &p->nconnect, port);
}

int
sb_policy_add_bind(struct sb_policy *p, uint16_t port)
{
	if (p->net == SB_NET_NONE) {
		errno = EINVAL;
		return -1;
	}
	p->net = SB_NET_PORTS;
	return add_port(p->bind, &p->nbind, port);
}

int
sb_fail(struct sb_error *e, enum sb_code code, int err, const char *hint, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	e->sys_errno = err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	snprintf(e->hint, sizeof e->hint, "%s", hint ? hint : "");
	errno = err ? err : EPERM;
	return -1;
}

static int
need_abi(struct sb_error *e, enum sb_feature f, const char *what, const char *hint)
{
	e->need_abi = sb_feature_abi(f);
	return sb_fail(e, SB_E_ABI, EOPNOTSUPP, hint,
	    "%s (%s) need Landlock ABI %d; this kernel has ABI %d",
	    sb_abi_table[f].name, what, e->need_abi, e->abi);
}

int
sb_check(const struct sb_policy *p, struct sb_error *e)
{
	int abi;

	memset(e, 0, sizeof *e);
	abi = sb_abi();
	if (abi < 0)
		return sb_fail(e, SB_E_SYS, errno, NULL,
		    "unable to query the Landlock ABI: %s", strerror(errno));
	e->abi = abi;
	if (abi < sb_feature_abi(SB_F_FS))
		return sb_fail(e, SB_E_NOLANDLOCK, ENOSYS,
		    "boot a kernel with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= list",
		    "Landlock is not available (filesystem rules need Landlock ABI 1; this kernel has ABI 0)");
	if (p->npath > SB_MAX_PATHS || p->nconnect > SB_MAX_PORTS || p->nbind > SB_MAX_PORTS ||
	    p->nunix > SB_MAX_UNIX || p->nkeep > SB_MAX_KEEPFD || p->nmount > SB_MAX_MOUNT)
		return sb_fail(e, SB_E_POLICY, EINVAL, NULL, "policy lists exceed their bounds");
	if (p->net != SB_NET_PORTS && (p->nconnect || p->nbind))
		return sb_fail(e, SB_E_POLICY, EINVAL, NULL,
		    "port rules (--connect, --bind) conflict with --no-network");
	if (p->net == SB_NET_NONE && (p->ipfilter || p->nloopback || p->deny_private || p->no_remote))
		return sb_fail(e, SB_E_POLICY, EINVAL, NULL,
		    "address rules (--filter-ip, --loopback, --deny-private, --no-remote) conflict with --no-network");
	if (p->listeners_fd >= 0 && !p->ipfilter)
		return sb_fail(e, SB_E_POLICY, EINVAL, "add --filter-ip (or --no-remote)",
		    "--listeners records what the IP broker serves: it needs --filter-ip");
	if (p->keep_all && (p->nunix || p->ipfilter || p->own || p->refusals_fd >= 0 || p->listeners_fd >= 0))
		return sb_fail(e, SB_E_POLICY, EINVAL, NULL,
		    "keeping every descriptor open conflicts with a broker and its records");
	if (p->nloopback > SB_MAX_LOOPBACK)
		return sb_fail(e, SB_E_POLICY, EINVAL, NULL, "policy lists exceed their bounds");
	if (p->net == SB_NET_PORTS && abi < sb_feature_abi(SB_F_NET))
		return need_abi(e, SB_F_NET, p->nconnect ? "--connect" : "--bind",
		    "drop --connect and --bind (network open), or use --no-network");
	if (p->scope && abi < sb_feature_abi(SB_F_SCOPE))
		return need_abi(e, SB_F_SCOPE, "default scope",
		    "pass --no-scope to run without signal and abstract socket scoping");
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return sb_fail(e, SB_E_SECCOMP, errno,
		    "boot a kernel with CONFIG_SECCOMP_FILTER=y",
		    "seccomp is not available: %s (Landlock ABI %d)", strerror(errno), abi);
	if (sb_seccomp_check(p, e) != 0)
		return -1;
	return 0;
}

/* Device nodes an interactive program needs, with device ioctl. */
static const char *const dev_rw[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx",
};

/* The O_PATH descriptors the rules were made from, closed together once
 * the ruleset holds them (landlock_add_rule takes its own reference): a
 * close(2) for each rule was 183 of confine's 650 system calls with corral
 * run's grants (the /etc split). At most CLOSE_LATER at a time, so the
 * descriptor table stays within its first 64 entries. */
enum { CLOSE_LATER = 48 };
static struct {
	int fd[CLOSE_LATER];
	size_t n;
} later;

void
sb_close_flush(void)
{
	size_t i = 0, j;

	if (later.n == 0)
		return;	/* nothing to close: nor a write of the count, a page
			   fault after a fork (the broker, its child) */
	while (i < later.n) {
		/* a run of consecutive numbers, all ours: one close_range */
		for (j = i + 1; j < later.n && later.fd[j] == later.fd[j - 1] + 1; j++)
			;
		if (j - i == 1 || syscall(SYS_close_range, (unsigned)later.fd[i],
		    (unsigned)later.fd[j - 1], 0) != 0)
			for (size_t k = i; k < j; k++)
				close(later.fd[k]);
		i = j;
	}
	later.n = 0;
}

void
sb_close_later(int fd)
{
	if (later.n == CLOSE_LATER)
		sb_close_flush();
	later.fd[later.n++] = fd;
}

int
sb_add_rule_fd(int rfd, int fd, uint64_t access, const char *path, struct sb_error *e)
{
	struct ll_path_beneath_attr pb;

	if (access == 0)
		return 0;
	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (ll_add_rule(rfd, LL_RULE_PATH_BENEATH, &pb, 0) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL,
		    "unable to add a Landlock rule for %s: %s", path, strerror(errno));
	return 0;
}

/* A rule for what fd opened: a file gets file rights only. */
static int
add_opened(int rfd, int fd, const struct stat *known, const char *path, unsigned rights,
    uint64_t raw, int abi, struct sb_error *e)
{
	struct stat st;
	uint64_t access;

	if (raw)
		access = raw & sb_fs_handled(abi);
	else
		access = sb_fs_access(rights, 1, abi);
	/* file rights only (--dev's devices): the same rule whatever fd is,
	 * no fstat needed to find out (7 a confine with --dev). known: fd's
	 * fstat, made by the caller once it was open. */
	if ((access & ~FS_FILE) == 0)
		return sb_add_rule_fd(rfd, fd, access, path, e);
	if (known)
		st = *known;
	else if (fstat(fd, &st) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "unable to stat %s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		access &= FS_FILE;
	return sb_add_rule_fd(rfd, fd, access, path, e);
}

static int
add_path(int rfd, const char *path, unsigned rights, uint64_t raw, int optional,
    int abi, struct sb_error *e)
{
	int fd, r;

	/* openat, not open: musl's open adds an F_SETFD per O_CLOEXEC */
	fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (optional)
			return 0;
		return sb_fail(e, SB_E_PATH, errno, "mark the rule optional if the path may be absent",
		    "unable to open %s: %s", path, strerror(errno));
	}
	r = add_opened(rfd, fd, NULL, path, rights, raw, abi, e);
	sb_close_later(fd);
	return r;
}

/* --no-symlinks: the rule is the very thing the name reaches without a link
 * anywhere on the way, opened in one step (openat2 RESOLVE_NO_SYMLINKS, the
 * last component O_NOFOLLOW) and checked once open: checking a name and then
 * opening it again lets whoever can write a directory on the way exchange
 * it for a link in between (renameat2 RENAME_EXCHANGE). The name must be
 * canonical (lib/path). */
static int
add_nolinks(int rfd, const struct sb_path *g, uint64_t access, int abi, struct sb_error *e)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	struct stat st;
	int fd, r;

	if (!path_canonical(g->path))
		return sb_fail(e, SB_E_POLICY, EINVAL, "name it as realpath(1) prints it",
		    "%s: with --no-symlinks a path rule must be absolute, without . or .. or an empty component",
		    g->path);
	fd = (int)syscall(SYS_openat2, AT_FDCWD, g->path, &how, sizeof how);
	if (fd < 0 && errno == ENOENT && (g->flags & SB_OPTIONAL))
		return 0;
	if (fd >= 0 && fstat(fd, &st) != 0) {
		r = errno;
		close(fd);
		return sb_fail(e, SB_E_SYS, r, NULL, "unable to stat %s: %s", g->path, strerror(r));
	}
	if ((fd < 0 && errno == ELOOP) || (fd >= 0 && S_ISLNK(st.st_mode))) {
		if (fd >= 0)
			close(fd);
		return sb_fail(e, SB_E_PATH, ELOOP,
		    "a link appeared where none was when the rules were made: see what changed there",
		    "unable to open %s without following a symbolic link: one lies on its path", g->path);
	}
	if (fd < 0)
		return sb_fail(e, SB_E_PATH, errno, NULL, "unable to open %s: %s", g->path, strerror(errno));
	/* the name holds no link: it is the real path the secrets are named by */
	if (S_ISDIR(st.st_mode) && (r = sb_etc_split(rfd, g->path, access, e)) != 1) {
		sb_close_later(fd);
		return r;
	}
	r = add_opened(rfd, fd, &st, g->path, g->rights, g->raw, abi, e);
	sb_close_later(fd);
	return r;
}

/* A rule of the policy: a grant holding a secret of lib/etc_secrets.c is
 * made without it (lib/sandbox_etc.c). */
static int
add_grant(int rfd, const struct sb_path *g, int nolinks, int abi, struct sb_error *e)
{
	uint64_t access = g->raw ? g->raw & sb_fs_handled(abi) : sb_fs_access(g->rights, 1, abi);
	int r;

	if (nolinks)
		return add_nolinks(rfd, g, access, abi, e);
	if ((r = sb_etc_grant(rfd, g->path, access, e)) != 1)
		return r;
	return add_path(rfd, g->path, g->rights, g->raw, !!(g->flags & SB_OPTIONAL), abi, e);
}

static int
add_port_rules(int rfd, const uint16_t *ports, size_t n, uint64_t access, struct sb_error *e)
{
	struct ll_net_port_attr np;
	size_t i;

	for (i = 0; i < n; i++) {
		np.allowed_access = access;
		np.port = ports[i];
		if (ll_add_rule(rfd, LL_RULE_NET_PORT, &np, 0) != 0)
			return sb_fail(e, SB_E_SYS, errno, NULL,
			    "unable to add a Landlock rule for port %u: %s",
			    (unsigned)ports[i], strerror(errno));
	}
	return 0;
}

/* Build the ruleset; returns its fd or -1 with *e filled. */
static int
build_ruleset(const struct sb_policy *p, const struct sb_extra *x, int abi, struct sb_error *e)
{
	struct ll_ruleset_attr ra;
	size_t size, i;
	int rfd;

	memset(&ra, 0, sizeof ra);
	ra.handled_access_fs = sb_fs_handled(abi);
	size = sizeof ra.handled_access_fs;
	if (abi >= sb_feature_abi(SB_F_NET)) {
		size = offsetof(struct ll_ruleset_attr, scoped);
		if (p->net != SB_NET_OPEN)
			ra.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
			    LANDLOCK_ACCESS_NET_CONNECT_TCP;
	}
	if (abi >= sb_feature_abi(SB_F_SCOPE)) {
		size = sizeof ra;
		if (p->scope)
			ra.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	}
	rfd = ll_create_ruleset(&ra, size, 0);
	if (rfd < 0)
		return sb_fail(e, SB_E_SYS, errno, NULL,
		    "unable to create a Landlock ruleset (ABI %d): %s", abi, strerror(errno));
	for (i = 0; i < p->npath; i++)
		if (!(p->path[i].flags & SB_ONGO) && add_grant(rfd, &p->path[i], p->nolinks, abi, e) != 0)
			goto fail;
	for (i = 0; x != NULL && i < x->n; i++)
		if (add_path(rfd, x->path[i].path, x->path[i].rights, x->path[i].raw,
		    !!(x->path[i].flags & SB_OPTIONAL), abi, e) != 0)
			goto fail;
	if (p->dev) {
		if (add_path(rfd, "/dev", 0, LANDLOCK_ACCESS_FS_READ_DIR, 0, abi, e) != 0)
			goto fail;
		for (i = 0; i < sizeof dev_rw / sizeof dev_rw[0]; i++)
			if (add_path(rfd, dev_rw[i], 0, LANDLOCK_ACCESS_FS_READ_FILE |
			    LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV,
			    1, abi, e) != 0)
				goto fail;
	}
	/* /dev/shm: making a file (link(2) of its own objects); the broker
	 * does the rest (sandbox_shm.c) */
	if ((p->own & SB_OWN_SHM) &&
	    add_path(rfd, "/dev/shm", 0, LANDLOCK_ACCESS_FS_MAKE_REG, 1, abi, e) != 0)
		goto fail;
	/* the agent's own terminal only: /dev/pts holds every terminal of the
	 * user (sandbox_tty.c) */
	if (p->tty && sb_tty_rules(rfd, p->tty, abi, e) != 0)
		goto fail;
	if (p->ctty && sb_ctty_rules(rfd, abi, e) != 0)
		goto fail;
	if (p->net == SB_NET_PORTS) {
		if (add_port_rules(rfd, p->connect, p->nconnect,
		    LANDLOCK_ACCESS_NET_CONNECT_TCP, e) != 0 ||
		    add_port_rules(rfd, p->bind, p->nbind, LANDLOCK_ACCESS_NET_BIND_TCP, e) != 0)
			goto fail;
	}
	sb_close_flush();
	return rfd;
fail:
	sb_close_flush();
	close(rfd);
	return -1;
}

/* noexec: the bounding set is left as it is. It bounds only what an
 * execve could give (and what capset could add to the inheritable set,
 * which needs a permitted capability, all gone here): with exec refused
 * by seccomp for good, emptying it one capability at a time (a credential
 * change each, about 0.08 ms as root) protects nothing. */
static int
drop_bounding(struct sb_error *e, int noexec)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int c, have_setpcap;

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "capget: %s", strerror(errno));
	have_setpcap = !!(d[0].effective & (1u << CAP_SETPCAP));
	if (have_setpcap) {
		for (c = 0; c < 64 && !noexec; c++)
			if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0) {
				if (errno == EINVAL)
					break;
				return sb_fail(e, SB_E_SYS, errno, NULL,
				    "unable to drop capability %d from the bounding set: %s",
				    c, strerror(errno));
			}
		/* root must not regain capabilities through exec either. */
		if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
		    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
		    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
		    0, 0, 0) != 0)
			return sb_fail(e, SB_E_SYS, errno, NULL,
			    "unable to set securebits: %s", strerror(errno));
	}
	return 0;
}

/* What drop_bounding left: the ambient, effective, permitted and
 * inheritable sets. */
static int
drop_caps(struct sb_error *e)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return sb_fail(e, SB_E_SYS, errno, NULL,
		    "unable to clear ambient capabilities: %s", strerror(errno));
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "unable to drop capabilities: %s",
		    strerror(errno));
	return 0;
}

/* Every capability is dropped before sb_apply_end (as root, the 41
 * PR_CAPBSET_DROPs are most of the cost of dropping them, a credential
 * change each): before the gate, not after it. */
int
sb_apply_begin(const struct sb_policy *p, struct sb_held *h, struct sb_error *e)
{
	static const struct rlimit zero;
	int keep[SB_MAX_KEEPFD + 4];
	size_t nkeep;
	int rfd, notify_sock = -1;

	h->rfd = h->notify_sock = -1;
	if (sb_check(p, e) != 0)
		return -1;
	h->abi = e->abi;
	/* binds first: the ruleset's rules then name what the process sees
	 * (called only with some: its frame holds two PATH_MAX buffers, each
	 * page of which -fstack-clash-protection touches on entry, a page
	 * fault apiece) */
	if (p->nmount > 0 && sb_mount_apply(p, e) != 0)
		return -1;
	rfd = build_ruleset(p, NULL, e->abi, e);
	if (rfd < 0)
		return -1;
	if (p->nunix > 0 || p->ipfilter || p->own) {
		notify_sock = sb_broker_start(p, e);
		if (notify_sock < 0) {
			close(rfd);
			return -1;
		}
	}
	h->rfd = rfd;
	h->notify_sock = notify_sock;
	if (setrlimit(RLIMIT_CORE, &zero) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "setrlimit RLIMIT_CORE: %s", strerror(errno));
	for (nkeep = 0; nkeep < p->nkeep; nkeep++)
		keep[nkeep] = p->keep_fd[nkeep];
	keep[nkeep++] = rfd;
	if (notify_sock >= 0)
		keep[nkeep++] = notify_sock;
	if (!p->keep_all && fd_close_from(3, keep, nkeep) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "unable to close inherited descriptors: %s",
		    strerror(errno));
	/* every capability goes before the listener is handed over: the
	 * broker takes it with pidfd_getfd, which a process holding
	 * capabilities its broker lacks refuses (podman's root has no
	 * CAP_SYS_PTRACE; containers.t) */
	if (drop_bounding(e, p->noexec) != 0 || drop_caps(e) != 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL, "unable to set no_new_privs: %s",
		    strerror(errno));
	/* seccomp before the SB_ONGO opens and Landlock: the filter traps
	 * none of what sb_apply_end calls (openat2, O_PATH opens,
	 * landlock_*), and a trapped one would be served by the broker,
	 * which holds the listener from here on. Its JIT compilation and
	 * the hand-over of the listener to the broker (a round trip to its
	 * thread) were 110 to 150 us of the 160 to 240 after confine's go
	 * byte. The SB_ONGO paths are opened with no capability: the
	 * caller's own (confine's are the attempt's, the caller's). */
	if (sb_seccomp_install(p, notify_sock, e) != 0)
		return -1;
	h->notify_sock = -1;
	return 0;
}

int
sb_apply_end(const struct sb_policy *p, struct sb_held *h, struct sb_error *e)
{
	int rfd = h->rfd;

	e->abi = h->abi;
	/* the rules whose paths may have been made since sb_apply_begin */
	for (size_t i = 0; i < p->npath; i++)
		if ((p->path[i].flags & SB_ONGO) && add_grant(rfd, &p->path[i], p->nolinks, h->abi, e) != 0) {
			sb_close_flush();
			return -1;
		}
	sb_close_flush();
	/* Landlock logs denials to audit only until the first execve unless
	 * asked: the agent runs after confine's exec, so ask (ABI 7). */
	if (ll_restrict_self(rfd, h->abi >= 7 ? LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0) != 0)
		return sb_fail(e, SB_E_SYS, errno, NULL,
		    "unable to enforce the Landlock ruleset (ABI %d): %s", h->abi, strerror(errno));
	close(rfd);
	h->rfd = -1;
	return 0;
}

int
sb_apply(const struct sb_policy *p, struct sb_error *e)
{
	struct sb_held h;

	if (sb_apply_begin(p, &h, e) != 0)
		return -1;
	return sb_apply_end(p, &h, e);
}
