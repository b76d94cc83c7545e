/* sandbox_seccomp: the seccomp filter closing what Landlock leaves open.
 * Built by hand from a tiny label assembler, so the jumps stay readable. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>

#include "compat.h"
#include "fdio.h"
#include "sandbox.h"
#include "sandbox_int.h"
#include "seccomp_util.h"


/* Labels used by the filter. */
enum { L_ALLOW = 1, L_EPERM, L_EACCES, L_ENOSYS, L_KILL, L_NOTIF,
	L_IOCTL, L_SOCKET, L_UNIX, L_INET, L_FLAGS2, L_FLAGS3, L_STREAM, L_DGRAM,
	L_IP_SENDTO, L_IP_SENDMSG, L_IP_SENDMMSG, L_IP_ADDR,
	/* other processes, user namespaces, socket families (contain_*) */
	L_PID0, L_PRIO, L_IOPRIO, L_NSFLAGS, L_NETLINK,
	/* what the program makes itself (own_*) */
	L_OPEN, L_OPENAT, L_UNLINKAT,
	L_TREE };	/* the dispatch tree's own, from here on (dispatch_emit) */

#ifndef TIOCGPTPEER
#define TIOCGPTPEER 0x5441
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef AF_NETLINK
#define AF_NETLINK 16
#endif
#define SF_NETLINK_ROUTE 0
#define SF_PRIO_PROCESS 0
#define SF_IOPRIO_WHO_PROCESS 1
#define SF_CLONE_NEWUSER 0x10000000

/*
 * The dispatch on the system call number: every rule below names a number
 * and where it goes (sf_case); the first rule for a number wins, any other
 * number is allowed. Emitted as a search tree rather than a chain of
 * comparisons: installing a filter makes the kernel run it for every
 * system call number to learn which are always allowed (its action cache,
 * under a lock with interrupts off), and a chain of 30 comparisons cost
 * some 50 us of that per install, a tree a few (each compare is walked
 * about 460 times).
 */
#define SF_CASES 64
struct sf_dispatch {
	struct { uint32_t nr; int label; } c[SF_CASES];
	size_t n;
	int err;
};

static void
sf_case(struct sf_dispatch *d, uint32_t nr, int label)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->c[i].nr == nr)
			return;	/* an earlier rule has it */
	if (d->n >= SF_CASES) {
		d->err = 1;
		return;
	}
	d->c[d->n].nr = nr;
	d->c[d->n++].label = label;
}

/* c[lo..hi), sorted: a few compares in a row, else split at the middle
 * (A >= its number: the upper half). */
static void
dispatch_tree(struct sf_prog *f, const struct sf_dispatch *d, size_t lo, size_t hi, int *next)
{
	size_t i, mid;
	int upper;

	if (hi - lo <= 3) {
		for (i = lo; i < hi; i++)
			sf_jeq(f, d->c[i].nr, d->c[i].label, 0);
		sf_ret(f, SECCOMP_RET_ALLOW);
		return;
	}
	mid = lo + (hi - lo) / 2;
	upper = (*next)++;
	sf_jge(f, d->c[mid].nr, upper, 0);
	dispatch_tree(f, d, lo, mid, next);
	sf_label(f, upper);
	dispatch_tree(f, d, mid, hi, next);
}

static void
dispatch_emit(struct sf_prog *f, struct sf_dispatch *d)
{
	size_t i, j;
	int next = L_TREE;

	if (d->err) {
		f->err = 1;
		return;
	}
	for (i = 1; i < d->n; i++)	/* insertion sort by number */
		for (j = i; j > 0 && d->c[j - 1].nr > d->c[j].nr; j--) {
			uint32_t nr = d->c[j].nr;
			int label = d->c[j].label;
			d->c[j].nr = d->c[j - 1].nr;
			d->c[j].label = d->c[j - 1].label;
			d->c[j - 1].nr = nr;
			d->c[j - 1].label = label;
		}
	dispatch_tree(f, d, 0, d->n, &next);
}

/*
 * Other processes of the same uid. Landlock's scoping stops signals and
 * ptrace-mode access (so /proc/PID/mem, process_vm_*, pidfd_getfd, kcmp),
 * not these, which the kernel allows on any process of the caller's uid:
 * each works on the caller only (pid 0), else EPERM. A pid argument is a
 * pid_t, so its low word is all the kernel reads. process_madvise names its
 * target by a pidfd, which a filter cannot see through: refused for every
 * pidfd (madvise(2) does the same on one's own memory).
 */
static void
contain_dispatch(const struct sb_policy *p, struct sf_dispatch *d)
{
	sf_case(d, __NR_prlimit64, L_PID0);
	sf_case(d, __NR_sched_setaffinity, L_PID0);
	sf_case(d, __NR_sched_setscheduler, L_PID0);
	sf_case(d, __NR_sched_setparam, L_PID0);
	sf_case(d, __NR_sched_setattr, L_PID0);
	sf_case(d, __NR_migrate_pages, L_PID0);
	sf_case(d, __NR_move_pages, L_PID0);
	sf_case(d, __NR_setpriority, L_PRIO);
	sf_case(d, __NR_ioprio_set, L_IOPRIO);
	sf_case(d, __NR_process_madvise, L_EPERM);
	if (!p->userns) {
		/* A new user namespace gives back every capability inside it,
		 * and with them the kernel's attack surface (raw sockets,
		 * nf_tables, fsopen). clone3's flags are in memory a filter
		 * cannot read: ENOSYS, and glibc falls back to clone(2) (musl
		 * never uses clone3). setns needs a capability in the target
		 * namespace, which only a user namespace could give. */
		sf_case(d, __NR_unshare, L_NSFLAGS);
		sf_case(d, __NR_clone, L_NSFLAGS);
		sf_case(d, __NR_clone3, L_ENOSYS);
		sf_case(d, __NR_setns, L_EPERM);
	}
}

static void
contain_tails(const struct sb_policy *p, struct sf_prog *f)
{
	/* (pid, ...): the caller only */
	sf_label(f, L_PID0);
	sf_ld(f, offsetof(struct seccomp_data, args[0]));
	sf_jeq(f, 0, L_ALLOW, L_EPERM);
	/* setpriority(which, who, prio): PRIO_PROCESS of the caller; a
	 * process group or a user reaches others */
	sf_label(f, L_PRIO);
	sf_ld(f, offsetof(struct seccomp_data, args[0]));
	sf_jeq(f, SF_PRIO_PROCESS, 0, L_EPERM);
	sf_ld(f, offsetof(struct seccomp_data, args[1]));
	sf_jeq(f, 0, L_ALLOW, L_EPERM);
	/* ioprio_set(which, who, ioprio): the same, IOPRIO_WHO_PROCESS */
	sf_label(f, L_IOPRIO);
	sf_ld(f, offsetof(struct seccomp_data, args[0]));
	sf_jeq(f, SF_IOPRIO_WHO_PROCESS, 0, L_EPERM);
	sf_ld(f, offsetof(struct seccomp_data, args[1]));
	sf_jeq(f, 0, L_ALLOW, L_EPERM);
	if (!p->userns) {
		/* unshare(flags), clone(flags, ...): flags first on x86_64
		 * and aarch64 */
		sf_label(f, L_NSFLAGS);
		sf_ld(f, offsetof(struct seccomp_data, args[0]));
		sf_jset(f, SF_CLONE_NEWUSER, L_EPERM, L_ALLOW);
	}
	/* socket(AF_NETLINK, type, protocol): routing only (addresses,
	 * routes, links: getaddrinfo's AI_ADDRCONFIG, getifaddrs). The other
	 * families (sock_diag, uevents, generic netlink, audit, ...) are
	 * machine-wide channels no program inside needs. */
	sf_label(f, L_NETLINK);
	sf_ld(f, offsetof(struct seccomp_data, args[2]));
	sf_jeq(f, SF_NETLINK_ROUTE, L_ALLOW, L_EACCES);
}

/* ipfilter (lib/sandbox_ip.c): connect, bind, listen, sendmsg and sendmmsg
 * go to the broker; sendto only with a destination address (args[4] not
 * NULL), so send() and sendto(fd, buf, n, flags, NULL, 0) stay in the
 * kernel; TCP Fast Open stays refused (it would connect from a send).
 * With a unix allowlist alone the sends go there too: a SOCK_DGRAM
 * socketpair could otherwise sendto() any pathname socket outside (the
 * broker refuses a unix datagram with an address). */
/* Are unix connect()s decided by the broker (an allowlist, or its own)? */
static int
unix_brokered(const struct sb_policy *p)
{
	return p->nunix > 0 || (p->own & SB_OWN_UNIX);
}

static void
ipf_dispatch(const struct sb_policy *p, struct sf_dispatch *d)
{
	if (!p->ipfilter && !unix_brokered(p))
		return;
	if (p->ipfilter) {
		if (p->nunix == 0)
			sf_case(d, __NR_connect, L_NOTIF);
		sf_case(d, __NR_bind, L_NOTIF);
		sf_case(d, __NR_listen, L_NOTIF);
	} else if (p->own & SB_OWN_UNIX) {
		/* its own sockets: every connect decided, every bind noted */
		if (p->nunix == 0)
			sf_case(d, __NR_connect, L_NOTIF);
		sf_case(d, __NR_bind, L_NOTIF);
	}
	sf_case(d, __NR_sendto, L_IP_SENDTO);
	sf_case(d, __NR_sendmsg, L_IP_SENDMSG);
	sf_case(d, __NR_sendmmsg, L_IP_SENDMMSG);
}

static void
ipf_blocks(const struct sb_policy *p, struct sf_prog *f)
{
	if (!p->ipfilter && !unix_brokered(p))
		return;
	sf_label(f, L_IP_SENDTO);
	sf_ld(f, offsetof(struct seccomp_data, args[3]));
	sf_jset(f, MSG_FASTOPEN, L_EACCES, 0);
	sf_ld(f, offsetof(struct seccomp_data, args[4]));
	sf_jeq(f, 0, 0, L_NOTIF);
	sf_ld(f, offsetof(struct seccomp_data, args[4]) + 4);
	sf_jeq(f, 0, L_ALLOW, L_NOTIF);
	sf_label(f, L_IP_SENDMSG);
	sf_ld(f, offsetof(struct seccomp_data, args[2]));
	sf_jset(f, MSG_FASTOPEN, L_EACCES, L_NOTIF);
	sf_label(f, L_IP_SENDMMSG);
	sf_ld(f, offsetof(struct seccomp_data, args[3]));
	sf_jset(f, MSG_FASTOPEN, L_EACCES, L_NOTIF);
}

/* sb_policy.own (lib/sandbox_own.c): the opens a pty's slave is opened by
 * name with, and those shm_open and sem_open make, go to the broker; so do
 * TIOCGPTPEER (L_IOCTL) and unlinks by a path from the working directory
 * (shm_unlink, sem_unlink; not rm's unlinkat under a directory fd). The
 * path is no part of what a filter sees: the broker continues every other,
 * and what goes on in the kernel meets Landlock as always. */
static void
own_dispatch(const struct sb_policy *p, struct sf_dispatch *d)
{
	if (!(p->own & (SB_OWN_PTY | SB_OWN_SHM)))
		return;
	sf_case(d, __NR_openat, L_OPENAT);
#ifdef __NR_open
	sf_case(d, __NR_open, L_OPEN);
#endif
	if (!(p->own & SB_OWN_SHM))
		return;
	sf_case(d, __NR_unlinkat, L_UNLINKAT);
#ifdef __NR_unlink
	sf_case(d, __NR_unlink, L_NOTIF);
#endif
}

#define SF_AT_FDCWD ((uint32_t)-100)

/* open's flags at off: to the broker, or allowed */
static void
own_oflags(const struct sb_policy *p, struct sf_prog *f, uint32_t off)
{
	if (p->own & SB_OWN_PTY) {
		sf_ld(f, off);
		sf_and(f, SB_PTY_OPEN_MASK);
		sf_jeq(f, SB_PTY_OPEN_FLAGS, L_NOTIF, 0);
	}
	if (p->own & SB_OWN_SHM) {
		sf_ld(f, off);
		sf_and(f, O_CREAT | O_EXCL);
		sf_jeq(f, O_CREAT | O_EXCL, L_NOTIF, 0);
		/* shm_open; glibc's sem_open of an existing name (O_RDWR) */
		sf_ld(f, off);
		sf_and(f, O_NOFOLLOW | O_CLOEXEC | O_DIRECTORY | O_NOCTTY);
		sf_jeq(f, O_NOFOLLOW | O_CLOEXEC, L_NOTIF, 0);
		sf_ld(f, off);
		sf_and(f, O_NOFOLLOW | O_ACCMODE | O_DIRECTORY | O_NOCTTY);
		sf_jeq(f, O_NOFOLLOW | O_RDWR, L_NOTIF, 0);
	}
	sf_ret(f, SECCOMP_RET_ALLOW);
}

static void
own_blocks(const struct sb_policy *p, struct sf_prog *f)
{
	if (!(p->own & (SB_OWN_PTY | SB_OWN_SHM)))
		return;
#ifdef __NR_open
	sf_label(f, L_OPEN);
	own_oflags(p, f, offsetof(struct seccomp_data, args[1]));
#endif
	/* openat(AT_FDCWD, ...) only: shm_open, sem_open and openpty name an
	 * absolute path; tar, rm and the like open under a directory fd */
	sf_label(f, L_OPENAT);
	sf_ld(f, offsetof(struct seccomp_data, args[0]));
	sf_jeq(f, SF_AT_FDCWD, 0, L_ALLOW);
	own_oflags(p, f, offsetof(struct seccomp_data, args[2]));
	if (p->own & SB_OWN_SHM) {
		sf_label(f, L_UNLINKAT);
		sf_ld(f, offsetof(struct seccomp_data, args[0]));
		sf_jeq(f, SF_AT_FDCWD, 0, L_ALLOW);
		sf_ld(f, offsetof(struct seccomp_data, args[2]));
		sf_jeq(f, 0, L_NOTIF, L_ALLOW);
	}
}

int
sb_seccomp_build(const struct sb_policy *p, struct sf_prog *f)
{
	struct sf_dispatch d;

	sf_init(f);
	sf_ld(f, offsetof(struct seccomp_data, arch));
	sf_jeq(f, SF_AUDIT_ARCH, 0, L_KILL);
	sf_ld(f, offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	sf_jge(f, 0x40000000, L_ENOSYS, 0);	/* x32 syscalls */
#endif
	memset(&d, 0, sizeof d);
	sf_case(&d, __NR_ioctl, L_IOCTL);
	if (p->noexec) {
		/* lib/selfnarrow: one filter, not a second one on top (each
		 * filter is compiled and run on every system call) */
		sf_case(&d, __NR_execve, L_EPERM);
		sf_case(&d, __NR_execveat, L_EPERM);
	}
	sf_case(&d, __NR_io_uring_setup, L_ENOSYS);
	sf_case(&d, __NR_io_uring_enter, L_ENOSYS);
	sf_case(&d, __NR_io_uring_register, L_ENOSYS);
	/* The session and user keyrings are shared with the runner and not
	 * covered by Landlock. */
	sf_case(&d, __NR_keyctl, L_ENOSYS);
	sf_case(&d, __NR_add_key, L_ENOSYS);
	sf_case(&d, __NR_request_key, L_ENOSYS);
	sf_case(&d, __NR_socket, L_SOCKET);
	contain_dispatch(p, &d);
	if (p->nunix > 0)
		sf_case(&d, __NR_connect, L_NOTIF);
	ipf_dispatch(p, &d);
	own_dispatch(p, &d);
	if (p->net != SB_NET_OPEN) {
		/* TCP Fast Open connects from sendto/sendmsg without the
		 * connect hook Landlock's port rules rely on. */
		sf_case(&d, __NR_sendto, L_FLAGS3);
		sf_case(&d, __NR_sendmmsg, L_FLAGS3);
		sf_case(&d, __NR_sendmsg, L_FLAGS2);
	}
	dispatch_emit(f, &d);
	ipf_blocks(p, f);
	own_blocks(p, f);

	if (p->net != SB_NET_OPEN) {
		sf_label(f, L_FLAGS3);
		sf_ld(f, offsetof(struct seccomp_data, args[3]));
		sf_jset(f, MSG_FASTOPEN, L_EACCES, L_ALLOW);
		sf_label(f, L_FLAGS2);
		sf_ld(f, offsetof(struct seccomp_data, args[2]));
		sf_jset(f, MSG_FASTOPEN, L_EACCES, L_ALLOW);
	}

	/* ioctl(fd, cmd): cmd is an unsigned int, the low word is what counts. */
	sf_label(f, L_IOCTL);
	sf_ld(f, offsetof(struct seccomp_data, args[1]));
	sf_jeq(f, TIOCSTI, L_EPERM, 0);
	sf_jeq(f, TIOCLINUX, L_EPERM, 0);
	if (p->own & SB_OWN_PTY)
		sf_jeq(f, TIOCGPTPEER, L_NOTIF, 0);	/* lib/sandbox_pty.c */
	sf_ret(f, SECCOMP_RET_ALLOW);

	/* socket(domain, type, protocol) */
	sf_label(f, L_SOCKET);
	sf_ld(f, offsetof(struct seccomp_data, args[0]));
	sf_jeq(f, AF_UNIX, L_UNIX, 0);
	if (p->net == SB_NET_NONE)
		sf_ret(f, SECCOMP_RET_ERRNO | EACCES);
	else if (p->net == SB_NET_PORTS || p->ipfilter) {
		sf_jeq(f, AF_INET, L_INET, 0);
		sf_jeq(f, AF_INET6, L_INET, 0);
		/* every other family: AF_VSOCK, AF_PACKET, AF_ALG ... */
		sf_jeq(f, AF_NETLINK, L_NETLINK, L_EACCES);
		/* Landlock's port rules cover TCP only: MPTCP, SCTP and the
		 * like would bypass them. Allowed: TCP, UDP (name resolution)
		 * and ICMP echo sockets. */
		sf_label(f, L_INET);
		sf_ld(f, offsetof(struct seccomp_data, args[1]));
		sf_and(f, ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC));
		sf_jeq(f, SOCK_STREAM, L_STREAM, 0);
		sf_jeq(f, SOCK_DGRAM, L_DGRAM, L_EACCES);
		sf_label(f, L_STREAM);
		sf_ld(f, offsetof(struct seccomp_data, args[2]));
		sf_jeq(f, 0, L_ALLOW, 0);
		sf_jeq(f, IPPROTO_TCP, L_ALLOW, L_EACCES);
		sf_label(f, L_DGRAM);
		sf_ld(f, offsetof(struct seccomp_data, args[2]));
		sf_jeq(f, 0, L_ALLOW, 0);
		sf_jeq(f, IPPROTO_UDP, L_ALLOW, 0);
		sf_jeq(f, IPPROTO_ICMP, L_ALLOW, 0);
		sf_jeq(f, IPPROTO_ICMPV6, L_ALLOW, L_EACCES);
	} else {
		/* open: any IP socket; AF_VSOCK (the host of a virtual
		 * machine, its guests), AF_ALG, AF_PACKET and the rest are no
		 * part of "the network" */
		sf_jeq(f, AF_INET, L_ALLOW, 0);
		sf_jeq(f, AF_INET6, L_ALLOW, 0);
		sf_jeq(f, AF_NETLINK, L_NETLINK, L_EACCES);
	}

	sf_label(f, L_UNIX);
	if (unix_brokered(p)) {
		/* Connection-oriented only: a datagram socket could sendto()
		 * any pathname socket without a connect() to broker. */
		sf_ld(f, offsetof(struct seccomp_data, args[1]));
		sf_and(f, ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC));
		sf_jeq(f, SOCK_STREAM, L_ALLOW, 0);
		sf_jeq(f, SOCK_SEQPACKET, L_ALLOW, 0);
	}
	sf_ret(f, SECCOMP_RET_ERRNO | EACCES);
	contain_tails(p, f);

	sf_label(f, L_ALLOW);
	sf_ret(f, SECCOMP_RET_ALLOW);
	sf_label(f, L_EPERM);
	sf_ret(f, SECCOMP_RET_ERRNO | EPERM);
	sf_label(f, L_EACCES);
	sf_ret(f, SECCOMP_RET_ERRNO | EACCES);
	sf_label(f, L_ENOSYS);
	sf_ret(f, SECCOMP_RET_ERRNO | ENOSYS);
	sf_label(f, L_KILL);
	sf_ret(f, SECCOMP_RET_KILL_PROCESS);
	sf_label(f, L_NOTIF);
	sf_ret(f, SECCOMP_RET_USER_NOTIF);
	return sf_finish(f);
}

int
sb_seccomp_check(const struct sb_policy *p, struct sb_error *e)
{
	static const uint32_t need[] = { SECCOMP_RET_ERRNO, SECCOMP_RET_KILL_PROCESS };
	uint32_t a;
	size_t i;

	for (i = 0; i < sizeof need / sizeof need[0]; i++) {
		a = need[i];
		if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &a) != 0)
			return sb_fail(e, SB_E_SECCOMP, errno,
			    "boot a kernel with CONFIG_SECCOMP_FILTER=y",
			    "seccomp filter action %#x is not available: %s (Landlock ABI %d)",
			    (unsigned)need[i], strerror(errno), e->abi);
	}
	if (p->nunix > 0 || p->ipfilter || p->own) {
		a = SECCOMP_RET_USER_NOTIF;
		if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &a) != 0)
			return sb_fail(e, SB_E_SECCOMP, errno,
			    p->nunix ? "drop --unix" : p->ipfilter ?
			    "drop --filter-ip, --loopback, --deny-private and --no-remote" :
			    "drop --own-pty, --own-unix and --own-shm",
			    "seccomp user notification (needed by %s) is not available: %s (Landlock ABI %d)",
			    p->nunix ? "--unix" : p->ipfilter ? "--filter-ip" : "--own-pty, --own-unix, --own-shm",
			    strerror(errno), e->abi);
	}
	return 0;
}

int
sb_seccomp_install(const struct sb_policy *p, int notify_sock, struct sb_error *e)
{
	struct sf_prog f;
	int fd;

	if (sb_seccomp_build(p, &f) != 0)
		return sb_fail(e, SB_E_SYS, EINVAL, NULL, "seccomp filter does not assemble");
	fd = sf_install(&f, notify_sock >= 0 ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0);
	if (fd < 0)
		return sb_fail(e, SB_E_SECCOMP, errno, NULL,
		    "unable to install the seccomp filter: %s (Landlock ABI %d)",
		    strerror(errno), e->abi);
	if (notify_sock >= 0) {
		/* The broker takes the listener with pidfd_getfd: sendmsg may
		 * be trapped by now (--filter-ip), write and read are not. */
		char ack;
		int r = fd_write_all(notify_sock, &fd, sizeof fd);
		int err = errno;

		if (r == 0 && read(notify_sock, &ack, 1) != 1) {
			r = -1;
			err = EPROTO;
		}
		close(fd);
		close(notify_sock);
		if (r != 0)
			return sb_fail(e, SB_E_SYS, err, NULL,
			    "unable to hand the seccomp listener to the broker: %s",
			    strerror(err));
	}
	return 0;
}
