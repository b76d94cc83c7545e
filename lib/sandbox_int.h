/* sandbox_int: internals shared by the sandbox_*.c files (not an API). */
#ifndef CORRAL_SANDBOX_INT_H
#define CORRAL_SANDBOX_INT_H
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>

#include "landlock.h"
#include "sandbox.h"

#define SB_MAX_EXTRA 1024

/* Rules added on top of the policy (none today: build_ruleset takes NULL). */
struct sb_extra {
	struct sb_path path[SB_MAX_EXTRA];
	size_t n;
};

/* The file rights of Landlock: all a rule on a non-directory may hold. */
#define SB_FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Close fd once the rules at hand are made (sb_close_flush, which
 * build_ruleset calls): one close_range for a run of them. */
void sb_close_later(int fd);
void sb_close_flush(void);
/* Add a path-beneath rule for the open fd (access 0: none). */
int sb_add_rule_fd(int rfd, int fd, uint64_t access, const char *path, struct sb_error *e);
/* A grant of path with access that holds a secret of lib/etc_secrets.c,
 * made entry by entry without it (lib/sandbox_etc.c): 0, -1 with *e
 * filled, or 1 when path holds none (the caller grants it as asked). */
int sb_etc_grant(int rfd, const char *path, uint64_t access, struct sb_error *e);
/* The same for a path already real (absolute, no link, no . or ..). */
int sb_etc_split(int rfd, const char *real, uint64_t access, struct sb_error *e);

/* Fill *e and return -1 (errno = err, or EPERM). */
int sb_fail(struct sb_error *e, enum sb_code code, int err, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The binds of p->mount, in a private mount namespace (a user namespace
 * too when unprivileged); a refusal where none can be had. */
int sb_mount_apply(const struct sb_policy *p, struct sb_error *e);

/* seccomp: can the filter this policy needs be installed here? */
int sb_seccomp_check(const struct sb_policy *p, struct sb_error *e);
/* Install it; with notify_sock >= 0, send the listener fd over it to the
 * broker and close it. */
int sb_seccomp_install(const struct sb_policy *p, int notify_sock, struct sb_error *e);
/* Start the broker (unix sockets, IP destinations): the calling process
 * forks; in the child (the program to be) it returns the socket the
 * listener's number goes to, or -1 with *e filled; the parent stays
 * outside as the broker and never returns (lib/sandbox_parent.c). */
int sb_broker_start(const struct sb_policy *p, struct sb_error *e);
/* Keep only CAP_SYS_PTRACE (the broker's). 0 or -1. */
int sb_broker_caps(void);

/* lib/sandbox_parent.c. Fork with every signal blocked (the old mask in
 * *saved, restored in the child): the child's pid in the parent, 0 in the
 * child (which dies with its parent), -1 with *e filled. */
pid_t sb_split(sigset_t *saved, struct sb_error *e);
/* The parent: name the child to audit (SB_PARENT_NAMED: root's record for
 * corral's denials reader), keep only keep[0..nkeep) of its descriptors,
 * take the listener (take(arg): its descriptor, or -1), run serve(arg) in
 * a thread once a request waits on it (SB_PARENT_INLINE: serve(arg), which
 * takes it, in its own thread, before it waits), pass signals on, and end
 * as the child does. */
enum { SB_PARENT_NAMED = 1, SB_PARENT_INLINE = 2 };
void sb_parent_run(pid_t child, int flags, const int *keep, size_t nkeep,
    int (*take)(void *), void *(*serve)(void *), void *arg) __attribute__((noreturn));

/* The IP side of the broker (lib/sandbox_ip.c). */
#define SB_MAX_OWN 512
#define SB_MAX_RESOLVERS 4
struct sb_own {			/* a port a process inside bound or listens on */
	int type;		/* SOCK_STREAM, SOCK_DGRAM */
	int family;		/* AF_INET, AF_INET6 (mapped: AF_INET) */
	uint8_t a[16];
	uint16_t port;
	int wild;		/* bound to 0.0.0.0 or :: */
	int v6only;		/* AF_INET6 wildcard that does not take IPv4 */
};
struct sb_ipb {
	const struct sb_policy *p;
	struct sb_own own[SB_MAX_OWN];
	size_t nown;
	uint8_t resolver[SB_MAX_RESOLVERS][16];	/* loopback nameservers */
	int resolver_af[SB_MAX_RESOLVERS];
	size_t nresolver;
	int listeners_fd;	/* sb_policy.listeners_fd (>= 3), or -1 */
	void *lock;		/* pthread_mutex_t *, set by sb_ipb_init */
};
struct seccomp_notif;
struct seccomp_notif_resp;
/* Before the broker starts: read /etc/resolv.conf's loopback nameservers. */
int sb_ipb_init(struct sb_ipb *b, const struct sb_policy *p);
/* connect() of a socket of family dom (AF_INET, AF_INET6) to ss[0..len):
 * decided (address rules when p->ipfilter, TCP ports under SB_NET_PORTS)
 * and done on sock. 0 or -errno. */
int sb_ipb_connect(struct sb_ipb *b, int sock, const void *ss, unsigned len);
/* In the broker, before a call on the caller's socket that may wait on a
 * peer (connect, send): the leader thread hands its turn to another
 * (lib/sandbox_broker.c); once per request, nothing elsewhere. */
void sb_broker_blocking(void);
/* bind, listen, sendto, sendmsg, sendmmsg (p->ipfilter only): fills
 * resp->val / resp->error, or returns 1 when the call is to continue
 * unchanged (bind of a non-IP socket: nothing is granted or recorded). */
int sb_ipb_serve(struct sb_ipb *b, const struct seccomp_notif *req, int nfd, int sock,
    int dom, struct seccomp_notif_resp *resp);
/* Copy n bytes at the caller's address src (exactly, else -1). */
int sb_peek(int pid, uint64_t src, void *dst, size_t n);
/* A pidfd of the caller's process (thread ids too), -1 with errno. */
int sb_caller_pidfd(int pid);


/* The broker's refusal records (lib/sandbox_refusal.c). In the broker:
 * records go to fd (-1: none); the request this thread answers. */
void sb_refusal_init(int fd);
void sb_refusal_serving(const struct seccomp_notif *req);
struct ipdest;
/* Record a refusal of the request being served, answered err (returned):
 * to d, or to the copied address sa[0..len) (any family). */
int sb_refused_ip(int err, const char *why, const struct ipdest *d);
int sb_refused(int err, const char *why, const void *sa, size_t len);
/* The controlling terminal's /dev/pts/N: 1, 0 none, -1 with errno
 * (ENOTTY: no pts, device in *major_minor; ENOENT: not that node). */
int sb_ctty_path(char *path, size_t n, unsigned *major_minor);
/* A refusal of a file: dest "path:" DIR NAME (the agent's bytes, escaped). */
int sb_refused_path(int err, const char *why, const char *dir, const char *name);

/* The caller's descriptor fdnum (the same open file), once the
 * notification is known to be still pending: the fd, or -errno
 * (lib/sandbox_broker.c). */
int sb_caller_fd(int nfd, const struct seccomp_notif *req, int fdnum);
/* Copy the caller's string at src into dst[0..size), NUL included: 0, or
 * -1 (unreadable, or ENAMETOOLONG). */
int sb_peek_str(int pid, uint64_t src, char *dst, size_t size);
/* Install fd in the caller (O_CLOEXEC when cloexec) and answer its call
 * with the new number, in one step: 0, or -1 with errno. */
int sb_addfd_send(int nfd, const struct seccomp_notif *req, int fd, int cloexec);
/* What the program makes itself (lib/sandbox_own.c): is req one of those
 * requests; serve it: 2 answered (a descriptor installed), 0 answered in
 * resp, 1 to continue unchanged (Landlock decides). */
int sb_own_request(const struct sb_policy *p, const struct seccomp_notif *req);
int sb_own_serve(const struct sb_policy *p, int nfd, const struct seccomp_notif *req,
    struct seccomp_notif_resp *resp);
/* Its ptys (lib/sandbox_pty.c), answered as sb_own_serve: ioctl
 * TIOCGPTPEER; an open of path (copied) with flags. */
int sb_pty_peer(int nfd, const struct seccomp_notif *req, struct seccomp_notif_resp *resp);
int sb_pty_open(int nfd, const struct seccomp_notif *req, const char *path, int flags,
    struct seccomp_notif_resp *resp);
/* Does an open with these flags go to sb_pty_serve? (The filter's test.) */
#define SB_PTY_OPEN_MASK (~(uint32_t)(O_CLOEXEC | O_NONBLOCK | 0100000 /* O_LARGEFILE */))
#define SB_PTY_OPEN_FLAGS ((uint32_t)(O_RDWR | O_NOCTTY))

/* Its POSIX shared memory and semaphores (lib/sandbox_shm.c), answered as
 * sb_own_serve: NAME of a "/dev/shm/NAME" path (one component), else
 * NULL; an open of NAME with flags and mode; an unlink of NAME. */
const char *sb_shm_name(const char *path);
int sb_shm_open(int nfd, const struct seccomp_notif *req, const char *name, int flags,
    unsigned mode, struct seccomp_notif_resp *resp);
int sb_shm_unlink(const char *name, struct seccomp_notif_resp *resp);

/* Its pathname unix sockets (lib/sandbox_unix.c): note the socket a bind()
 * of the caller names (0, or -errno); connect sock to the copied sun_path
 * path when that is a socket it bound (relative paths from the caller's
 * working directory): 0 or -errno, 1 when it is not its own. */
int sb_unix_bound(int sock);
int sb_unix_own_connect(int pid, int sock, const char *path);

/* The agent's own terminal (path) and /dev/tty: read, write, ioctl. */
int sb_tty_rules(int rfd, const char *path, int abi, struct sb_error *e);
/* The same for the controlling terminal, when it is a pts (none: nothing). */
int sb_ctty_rules(int rfd, int abi, struct sb_error *e);

#endif
