/*
 * sandbox: the whole confine boundary, applied in the calling process.
 *
 * One implementation for confine (which applies it, then execs) and probe
 * (which forks a child, applies it, then checks what the kernel denies).
 *
 * Usage:
 *	struct sb_policy p;
 *	struct sb_error e;
 *	sb_policy_init(&p);			defaults: network open, scope on
 *	sb_policy_add_path(&p, "/usr", SB_X, 0);
 *	sb_policy_add_path(&p, dir, SB_W, 0);
 *	if (sb_apply(&p, &e) != 0) { report e.msg and e.hint; exit 125 }
 *
 * sb_apply never prints. After it returns 0 the calling process (and
 * whatever it execs) is inside the boundary. With a broker (unix_path,
 * ipfilter) it forks first and returns only in the child: the caller's
 * process stays outside as the broker, the child's parent (an ancestor of
 * every sandboxed process, as Yama's ptrace_scope 1 requires), passes on
 * the signals kill() sends it and ends as the child does (exit status or
 * signal), never returning (lib/sandbox_parent.c). Call it then from a
 * single-threaded process made by libc's fork, never a clone() child.
 *   - a path rule whose directory holds a secret of lib/etc_secrets.h (a
 *     grant of /etc, /etc/ssh, /) is made entry by entry without it
 *     (lib/sandbox_etc.c); a rule naming the secret itself is made as asked;
 *   - a Landlock ruleset that handles every filesystem right the running
 *     ABI knows (truncate from ABI 3, device ioctl from ABI 5), so what no
 *     rule grants is denied; TCP bind/connect rules (ABI 4) when the policy
 *     restricts the network; signal and abstract unix socket scoping (ABI 6)
 *     unless scope is off;
 *   - no_new_privs;
 *   - every capability dropped: bounding (when CAP_SETPCAP allows it; without
 *     it no_new_privs keeps exec from gaining any; not with noexec, where no
 *     exec follows for it to bound), ambient, inheritable,
 *     permitted, effective; for root also SECBIT_NOROOT (locked);
 *   - RLIMIT_CORE 0;
 *   - a seccomp filter (native arch only, any other arch is killed):
 *       ioctl TIOCSTI, TIOCLINUX              -> EPERM
 *       own & SB_OWN_PTY: ioctl TIOCGPTPEER, and open/openat with flags
 *           O_RDWR|O_NOCTTY (O_CLOEXEC, O_NONBLOCK, O_LARGEFILE aside) go
 *           to the broker, which opens the slave of a master the caller
 *           holds and continues every other open (lib/sandbox_pty.c)
 *       own & SB_OWN_SHM: open and openat(AT_FDCWD, ...) with O_CREAT|O_EXCL,
 *           or with O_NOFOLLOW and either O_CLOEXEC or O_RDWR (neither
 *           O_DIRECTORY nor O_NOCTTY), unlink and unlinkat(AT_FDCWD, path,
 *           0) go to the
 *           broker, which serves /dev/shm/NAME and continues every other
 *           (lib/sandbox_shm.c)
 *       noexec: execve, execveat              -> EPERM
 *       io_uring_setup, _enter, _register     -> ENOSYS
 *       keyctl, add_key, request_key          -> ENOSYS (keyrings are shared
 *                                                with the runner)
 *       socket(AF_UNIX, ...)                  -> EACCES (socketpair allowed;
 *           with a unix allowlist: SOCK_STREAM and SOCK_SEQPACKET allowed and
 *           every connect() brokered, see sb_policy.unix_path, and, as under
 *           ipfilter, sendto with an address, sendmsg and sendmmsg: a unix
 *           datagram with an address is refused)
 *       SB_NET_NONE: socket() of every family but AF_UNIX -> EACCES
 *       SB_NET_PORTS: socket(AF_INET/AF_INET6, ...) other than TCP, UDP and
 *           ICMP echo (so MPTCP, SCTP, UDP-Lite ...) -> EACCES
 *       SB_NET_PORTS, SB_NET_NONE: sendto/sendmsg/sendmmsg with MSG_FASTOPEN
 *           -> EACCES (TCP Fast Open connects without Landlock's connect hook)
 *       ipfilter (sb_policy.ipfilter): the same two rules as SB_NET_PORTS,
 *           and connect, bind, listen, sendmsg, sendmmsg and sendto with a
 *           non-NULL address go to the broker (lib/sandbox_ip.c), which
 *           decides on a copy of the address and performs the call on the
 *           caller's socket itself; send() and sendto(..., NULL, 0) stay in
 *           the kernel, so do read and write
 *       socket() families, in every network mode: AF_INET and AF_INET6
 *           (as above), AF_NETLINK with NETLINK_ROUTE only (getaddrinfo's
 *           AI_ADDRCONFIG, getifaddrs) and AF_UNIX (as above); every other
 *           family (AF_VSOCK, AF_ALG, AF_PACKET, AF_TIPC, ...) and every
 *           other netlink protocol (sock_diag, uevents, generic, audit ...)
 *           -> EACCES; SB_NET_NONE: AF_UNIX only, as above
 *       other processes of the same uid, which Landlock's scoping does not
 *       cover (it stops signals and ptrace-mode access: /proc/PID/mem,
 *       environ, fd/, process_vm_*, pidfd_getfd, kcmp, perf_event_open,
 *       and, through those checks, migrate_pages, move_pages and
 *       process_madvise too):
 *         prlimit64, sched_setaffinity, sched_setscheduler, sched_setparam,
 *         sched_setattr, migrate_pages, move_pages with a pid but 0 (the
 *           caller) -> EPERM; so also on another thread of the caller by
 *           its tid (pthread_setaffinity_np, pthread_setschedparam);
 *           getrlimit/setrlimit (prlimit64 with pid 0) work
 *         setpriority, ioprio_set: PRIO_PROCESS / IOPRIO_WHO_PROCESS with
 *           who 0 only; any other who, a process group or a user -> EPERM
 *         process_madvise -> EPERM (its pidfd cannot be seen through;
 *           madvise(2) does the same on one's own memory)
 *         reading others' priorities, affinities and policies stays
 *           possible (getpriority, sched_get*, ioprio_get), as does
 *           process_mrelease (only of a process already being killed)
 *       user namespaces, unless userns is set:
 *         unshare, clone with CLONE_NEWUSER -> EPERM; clone3 -> ENOSYS
 *           (its flags are in memory a filter cannot read; glibc falls back
 *           to clone, musl never uses clone3); setns -> EPERM (it needs a
 *           capability in the target namespace, which only a user
 *           namespace could give). Every other namespace needs
 *           CAP_SYS_ADMIN, which is gone.
 *   - every descriptor >= 3 closed except keep_fd[] (refusals_fd too: only
 *     the broker keeps it, see lib/sandbox_refusal.c); with keep_all none.
 *
 * Errnos seen inside (what probe checks): Landlock denials are EACCES (file
 * access, TCP connect/bind); scoping gives EPERM (kill() of a process
 * outside; connect() to an abstract socket outside, observable only when
 * socket(AF_UNIX) is allowed, i.e. with a unix allowlist, where the broker
 * answers EPERM the same way); see the table above for the seccomp ones.
 * A hard link of an ungranted file into a granted directory fails with
 * EXDEV (Landlock's refer rule), a rename with EACCES.
 */
#ifndef CORRAL_SANDBOX_H
#define CORRAL_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* Path rights, as confine's -r -x -w -W. A regular file (or any
 * non-directory) only ever gets the file rights of its set. */
enum {
	SB_R = 1u << 0,		/* read files, list directories */
	SB_X = 1u << 1,		/* SB_R + execute */
	SB_W = 1u << 2,		/* SB_R + write, create, remove, rename, link,
				   truncate, make sockets/fifos/symlinks; no
				   execute, no device nodes, no device ioctl */
	SB_WALL = 1u << 3,	/* every filesystem right the ABI knows */
	SB_IOCTL = 1u << 4,	/* add device ioctl (ABI 5) to the rights above */
};

/* Path flags. */
enum {
	SB_OPTIONAL = 1u << 0,	/* a path that cannot be opened is skipped
				   (without it: an error, never skipped) */
	SB_ONGO = 1u << 1,	/* opened by sb_apply_end, not sb_apply_begin:
				   the path may be made in between */
};

struct sb_path {
	const char *path;	/* caller-owned, absolute or relative to cwd */
	unsigned rights;	/* SB_R | SB_X | SB_W | SB_WALL [| SB_IOCTL] */
	unsigned flags;		/* SB_OPTIONAL, SB_ONGO */
	uint64_t raw;		/* if nonzero: the exact Landlock access mask
				   (LANDLOCK_ACCESS_FS_*), rights ignored;
				   bits the ABI does not know are dropped */
};

enum sb_net {
	SB_NET_OPEN = 0,	/* default: TCP not handled by Landlock */
	SB_NET_NONE,		/* no TCP (Landlock), no socket family but AF_UNIX (seccomp) */
	SB_NET_PORTS,		/* TCP bind/connect only to the listed ports */
};

#define SB_MAX_PATHS 512
#define SB_MAX_PORTS 64
#define SB_MAX_UNIX 32
#define SB_MAX_KEEPFD 32
#define SB_MAX_LOOPBACK 64
#define SB_MAX_MOUNT 8

struct sb_policy {
	size_t npath;			/* entries of path[], the last member */
	enum sb_net net;
	uint16_t connect[SB_MAX_PORTS];	/* SB_NET_PORTS: TCP connect allowed to these */
	size_t nconnect;
	uint16_t bind[SB_MAX_PORTS];	/* SB_NET_PORTS: TCP bind allowed to these */
	size_t nbind;
	int scope;			/* 1 (default): signals and abstract unix sockets
					   cannot reach outside the boundary (ABI 6) */
	const char *unix_path[SB_MAX_UNIX];	/* pathname sockets connect() may reach:
					   absolute, existing sockets, pinned by
					   sb_apply; a broker process outside serves
					   every connect() (lib/sandbox_broker.c) */
	size_t nunix;
	const char *unix_bind[SB_MAX_UNIX];	/* with SB_OWN_UNIX: a bind() to exactly
					   this absolute path the broker makes
					   itself, in the directory it opened at
					   the start (outside the write grants;
					   codex's /tmp/codex-daemon-UID/HASH):
					   its own socket, no other name there */
	size_t nunix_bind;
	int keep_fd[SB_MAX_KEEPFD];	/* descriptors >= 3 left open */
	size_t nkeep;
	int dev;			/* 1: grant the usable devices (null, zero, full,
					   random, urandom, tty, ptmx) with ioctl; no
					   node of /dev/pts (other terminals) */
	const char *tty;		/* the one terminal granted (read, write,
					   ioctl), and /dev/tty; NULL: none */
	int ctty;			/* 1: that terminal is the controlling
					   terminal it runs on (a pts), if any
					   (keeper --pty made it) */
	/* IP destinations decided by the broker (lib/sandbox_ip.c): metadata
	 * and link-local never; loopback (and this machine's own addresses)
	 * only to ports the boundary's own processes listen on or bound, to
	 * loopback[], or to port 53 of a loopback resolver in /etc/resolv.conf
	 * (not with no_remote). Not with SB_NET_NONE. */
	int ipfilter;
	int deny_private;		/* RFC 1918, CGNAT, ULA refused too */
	int no_remote;			/* every non-loopback destination refused */
	uint16_t loopback[SB_MAX_LOOPBACK];	/* outside loopback services allowed */
	size_t nloopback;
	int nolinks;			/* 1: each path rule is a real path, opened
					   without following any link (RESOLVE_NO_SYMLINKS)
					   and refused when one lies on it */
	int userns;			/* 1: new user namespaces allowed (default 0:
					   refused, see the seccomp table above) */
	unsigned own;			/* SB_OWN_*: what the program makes
					   itself is its own, served by the
					   broker (lib/sandbox_pty.c ...) */
	const char *mount[SB_MAX_MOUNT];	/* "SRC:DST": bind SRC over DST in a
					   private mount namespace, before the
					   ruleset (lib/sandbox_mount.c) */
	int mount_ro[SB_MAX_MOUNT];	/* 1: that bind is read-only */
	size_t nmount;
	int refusals_fd;		/* >= 3: the broker writes a record of each
					   refusal there (lib/refusal.h); closed
					   before the program runs. -1: none */
	/* Loopback servers of another boundary (the browser reaches the
	 * agent's dev server, supervisor/browser.c). ipfilter only. */
	int listeners_fd;		/* >= 3: the broker appends a record of each
					   address the program binds or listens on
					   (lib/sandbox_ip.c); closed before the
					   program runs. -1: none */
	const char *loopback_from;	/* a file of such records: the addresses
					   there count as the program's own */
	int keep_all;			/* 1: every descriptor left open, none
					   closed (lib/selfnarrow keeps what it
					   holds); not with a broker, refusals_fd
					   or listeners_fd */
	int noexec;			/* 1: execve and execveat -> EPERM, in the
					   same filter (lib/selfnarrow: a program
					   that narrows itself runs nothing) */
	/* probe's own children (probe/apply.c): what a broker does for a
	 * program that may run anything, and its own code does not need */
	int serial;			/* 1: the program is one process making one
					   brokered call at a time (one thread, no
					   child): the broker serves it from its
					   own main thread until no caller is left,
					   answers each call in turn and starts no
					   thread, not even before a call that may
					   wait on a peer, which no other call can
					   be waiting behind; signals reach the
					   program once it has ended */
	int unnamed;			/* 1: the broker does not name its child in
					   an audit record (AUDIT_USER, root only),
					   which only corral's denials reader reads,
					   for confine as the chain's pid */
	/* Last: sb_policy_init zeroes what comes before it (12 KB, three
	 * pages a process would fault in for nothing); each entry is written
	 * whole by sb_policy_add_path, and only those below npath are read. */
	struct sb_path path[SB_MAX_PATHS];
};

/* sb_policy.own */
enum {
	SB_OWN_PTY = 1u << 0,	/* the slave of a master it opened (TIOCGPTPEER,
				   /dev/pts/N by name while holding the master) */
	SB_OWN_UNIX = 1u << 1,	/* connect() to a pathname socket it bound
				   (lib/sandbox_unix.c) */
	SB_OWN_SHM = 1u << 2,	/* the objects of /dev/shm it created
				   (lib/sandbox_shm.c) */
};

/* Failure codes of sb_apply (sb_error.code). */
enum sb_code {
	SB_OK = 0,
	SB_E_NOLANDLOCK,	/* Landlock unavailable (ENOSYS/EOPNOTSUPP): refusal */
	SB_E_ABI,		/* a requested feature needs a newer ABI: refusal */
	SB_E_SECCOMP,		/* seccomp filters unavailable: refusal */
	SB_E_UNSUPPORTED,	/* requested feature not supported by this build */
	SB_E_POLICY,		/* the policy itself is invalid */
	SB_E_PATH,		/* a non-optional path cannot be opened */
	SB_E_SYS,		/* a system call failed (errno in sys_errno) */
};

struct sb_error {
	enum sb_code code;
	int abi;		/* the kernel's Landlock ABI (0: none) */
	int need_abi;		/* SB_E_ABI: the ABI the feature needs */
	int sys_errno;		/* the errno behind it, 0 if none */
	char msg[512];		/* one line, no prefix: "TCP port rules (--connect)
				   need Landlock ABI 4; this kernel has ABI 3" */
	char hint[256];		/* one line where the user can act, or "" */
};

/* The ABI-requirements table: which feature needs which ABI. */
enum sb_feature {
	SB_F_FS = 0,		/* filesystem rules: ABI 1 */
	SB_F_REFER,		/* rename/link across directories: ABI 2 */
	SB_F_TRUNCATE,		/* truncate right: ABI 3 */
	SB_F_NET,		/* TCP bind/connect rules: ABI 4 */
	SB_F_IOCTL_DEV,		/* device ioctl right: ABI 5 */
	SB_F_SCOPE,		/* signal + abstract unix socket scoping: ABI 6 */
	SB_F_LOG,		/* restrict_self log flags: ABI 7 */
	SB_F_COUNT
};

struct sb_abi_req {
	enum sb_feature feature;
	int abi;
	const char *name;	/* "TCP port rules" */
	int required;		/* 1: refuse when the policy uses it and the ABI
				   lacks it; 0: handled when known (best effort) */
};
extern const struct sb_abi_req sb_abi_table[SB_F_COUNT];

/* The ABI a feature needs (from sb_abi_table). */
int sb_feature_abi(enum sb_feature f);

/* The running kernel's Landlock ABI: >= 1, 0 when Landlock is unavailable
 * (ENOSYS, EOPNOTSUPP), -1 with errno on any other error. */
int sb_abi(void);

/* Every LANDLOCK_ACCESS_FS_* bit the given ABI knows. */
uint64_t sb_fs_handled(int abi);
/* The Landlock access mask for SB_* rights under abi; dir=0 keeps only the
 * file rights. */
uint64_t sb_fs_access(unsigned rights, int dir, int abi);

/* Defaults: no paths, SB_NET_OPEN, scope on, no unix sockets, no kept fds. */
void sb_policy_init(struct sb_policy *p);
/* The same defaults on a policy that is all zero already (static storage,
 * never used before): sb_policy_init without its memset (of all but the
 * path table, which comes last: entries below npath are the only ones
 * read). */
void sb_policy_defaults(struct sb_policy *p);
/* Append a path rule. -1 with errno E2BIG when full, EINVAL on bad rights. */
int sb_policy_add_path(struct sb_policy *p, const char *path, unsigned rights, unsigned flags);
/* Append a port; net becomes SB_NET_PORTS. -1 E2BIG/EINVAL. */
int sb_policy_add_connect(struct sb_policy *p, uint16_t port);
int sb_policy_add_bind(struct sb_policy *p, uint16_t port);

/* Check the policy against the running ABI without changing anything.
 * 0, or -1 with *err filled (SB_E_NOLANDLOCK, SB_E_ABI, SB_E_POLICY ...). */
int sb_check(const struct sb_policy *p, struct sb_error *err);

/* Apply the whole boundary to the calling process (see the top of this
 * file). 0 on success; -1 with *err filled. On failure nothing irreversible
 * has been done when err->code is a refusal (SB_E_NOLANDLOCK, SB_E_ABI,
 * SB_E_SECCOMP, SB_E_UNSUPPORTED, SB_E_POLICY, SB_E_PATH); after SB_E_SYS the
 * process may be partly restricted and must not run the program. */
int sb_apply(const struct sb_policy *p, struct sb_error *err);

/* sb_apply in two steps, for a caller that waits in between (confine
 * --gate): sb_apply_begin does all but the SB_ONGO rules and Landlock (the
 * ruleset, the broker's fork, descriptors closed, every capability
 * dropped, no_new_privs, the seccomp filter), sb_apply_end opens the
 * SB_ONGO paths (with no capability), adds their rules and enforces the
 * ruleset. The process is not confined by Landlock in
 * between: it must run nothing it was not built with. 0, or -1 with *err
 * filled. */
struct sb_held {
	int rfd, notify_sock, abi;
};
int sb_apply_begin(const struct sb_policy *p, struct sb_held *h, struct sb_error *err);
int sb_apply_end(const struct sb_policy *p, struct sb_held *h, struct sb_error *err);

#endif
