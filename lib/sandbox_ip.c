/* sandbox_ip: the IP side of the seccomp broker (sb_policy.ipfilter).
 *
 * Landlock's network rules know TCP ports, not addresses, nor UDP. With
 * ipfilter the filter sends connect, bind, listen, sendmsg, sendmmsg and
 * sendto-with-an-address to the broker (lib/sandbox_broker.c), which holds
 * the caller's socket (pidfd_getfd: the same open file) and a copy of the
 * address. Every decision is taken on that copy, and the broker performs
 * the call on the socket itself: the caller cannot change the address
 * after the check, and the kernel never re-reads the caller's arguments
 * (the one exception, bind of a non-IP socket, grants and records nothing:
 * it continues exactly as if it had not been trapped).
 *
 * Rules (ipdest classes from lib/ipaddr.c; mapped, compatible and NAT64
 * IPv6 addresses judged as their IPv4 address):
 *   metadata, link-local          never
 *   loopback, 0.0.0.0, ::, this machine's own addresses, broadcast and
 *   multicast (lib/ipaddr.c ip_is_local)
 *                                 only to a port a process inside listens
 *                                 on or bound (same type, same or wildcard
 *                                 address), or that another boundary's
 *                                 broker recorded in the file loopback_from,
 *                                 to --loopback ports, or to port 53 of a
 *                                 loopback nameserver in /etc/resolv.conf
 *                                 (not with no_remote)
 *   private (deny_private)        never
 *   anything else                 allowed, unless no_remote; under
 *                                 SB_NET_PORTS TCP only to --connect ports
 * A refusal is EACCES, as Landlock's. bind and listen are performed by the
 * broker too (it has dropped every capability but CAP_SYS_PTRACE, so it
 * binds no privileged port the caller could not) and recorded.
 *
 * listeners_fd and loopback_from: the browser's broker lets it reach the
 * agent's own servers (its dev server) and no other loopback service. The
 * agent's broker appends each new record (a struct sb_own, one write on an
 * O_APPEND file corral made in the attempt directory, where neither the
 * agent nor the browser can write) and the browser's reads the file again
 * when a loopback destination is not its own. A record stays for the
 * attempt, as the agent's own list does. Both are the same build of
 * confine: the records are this build's structure, checked as read. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "compat.h"
#include "fdio.h"
#include "ipaddr.h"
#include "sandbox.h"
#include "sandbox_int.h"

#ifndef SCM_RIGHTS
#define SCM_RIGHTS 1
#endif

#define MAX_DGRAM 65536			/* larger than any IP datagram */
#define MAX_STREAM (256 * 1024)		/* a stream send may be short */
#define MAX_IOV 1024
#define MAX_CONTROL 4096
#define MAX_MMSG 64

static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;

int
sb_ipb_init(struct sb_ipb *b, const struct sb_policy *p)
{
	/* here, not malloc's: 64 KiB from malloc is a mapping made and
	 * unmade in the broker's start (some 50 us on a virtual machine);
	 * read once, before the broker's threads */
	static char buf[64 * 1024 + 1];
	char *line, *save, *w;
	struct stat st;
	ssize_t len;
	uint8_t a[16];
	int fd, af;

	/* all but own[]: only own[0..nown) is read (is_own, record), and
	 * zeroing its 20 KB wrote five pages that nothing reads */
	memset(b, 0, offsetof(struct sb_ipb, own));
	memset(&b->nown, 0, sizeof *b - offsetof(struct sb_ipb, nown));
	b->p = p;
	/* afresh: another broker may have used this memory (serving_afresh) */
	pthread_mutex_init(&own_lock, NULL);
	b->lock = &own_lock;
	b->listeners_fd = p->listeners_fd >= 3 ? p->listeners_fd : -1;
	if (!p->ipfilter || p->no_remote)
		return 0;
	/* openat, not open: musl's open adds an F_SETFD for O_CLOEXEC */
	fd = openat(AT_FDCWD, "/etc/resolv.conf",
	    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;	/* no resolver file: no loopback resolver */
	len = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fd_read_bounded(fd, buf, sizeof buf - 1) : -1;
	close(fd);
	if (len < 0)
		return 0;	/* not a file, unreadable or over 64 KiB: none */
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		w = line + strspn(line, " \t");
		if (strncmp(w, "nameserver", 10) != 0 || (w[10] != ' ' && w[10] != '\t'))
			continue;
		w += 10 + strspn(w + 10, " \t");
		w[strcspn(w, " \t%#;")] = '\0';
		af = strchr(w, ':') ? AF_INET6 : AF_INET;
		if (inet_pton(af, w, a) != 1 || ip_class_of(af, a) != IPC_LOOPBACK ||
		    b->nresolver >= SB_MAX_RESOLVERS)
			continue;
		memcpy(b->resolver[b->nresolver], a, 16);
		b->resolver_af[b->nresolver++] = af;
	}
	return 0;
}

static int
in_ports(const uint16_t *v, size_t n, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == port)
			return 1;
	return 0;
}

/* Is d (a socket of this type) one of the n records of v? */
static int
own_match(const struct sb_own *v, size_t n, int type, const struct ipdest *d)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 }, lo6[16] = { [15] = 1 };
	static const uint8_t any[16];
	const uint8_t *a = d->a;
	size_t i, al = d->family == AF_INET ? 4 : 16;

	/* 0.0.0.0 and :: reach 127.0.0.1 and ::1 */
	if (memcmp(a, any, al) == 0)
		a = d->family == AF_INET ? lo4 : lo6;
	for (i = 0; i < n; i++) {
		const struct sb_own *o = &v[i];
		if (o->type != type || o->port != d->port)
			continue;
		if (o->wild) {
			if (o->family == d->family || (o->family == AF_INET6 && !o->v6only))
				return 1;
		} else if (o->family == d->family && memcmp(o->a, a, al) == 0)
			return 1;
	}
	return 0;
}

static int
is_own(struct sb_ipb *b, int type, const struct ipdest *d)
{
	int r;

	pthread_mutex_lock(&own_lock);
	r = own_match(b->own, b->nown, type, d);
	pthread_mutex_unlock(&own_lock);
	return r;
}

/* Is d recorded in the file loopback_from (another boundary's servers)?
 * Read afresh each time: its broker appends as its program binds. */
static int
is_theirs(struct sb_ipb *b, int type, const struct ipdest *d)
{
	struct sb_own v[64];
	size_t k, n, ok;
	off_t off = 0;
	ssize_t got;
	int fd, r = 0;

	if (b->p->loopback_from == NULL ||
	    (fd = openat(AT_FDCWD, b->p->loopback_from,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return 0;
	while (!r && off < (off_t)(SB_MAX_OWN * sizeof *v) &&
	    (got = pread(fd, v, sizeof v, off)) >= (ssize_t)sizeof *v) {
		n = (size_t)got / sizeof *v;
		for (k = ok = 0; k < n; k++)	/* keep the well-formed ones */
			if ((v[k].type == SOCK_STREAM || v[k].type == SOCK_DGRAM) &&
			    (v[k].family == AF_INET || v[k].family == AF_INET6) && v[k].port != 0)
				v[ok++] = v[k];
		r = own_match(v, ok, type, d);
		off += (off_t)(n * sizeof *v);
	}
	close(fd);
	return r;
}

/* The decision: 0 or -EACCES. type is the socket's SO_TYPE. */
static int
decide(struct sb_ipb *b, int type, const struct ipdest *d)
{
	const struct sb_policy *p = b->p;
	enum ip_class c = d->cls;
	size_t i, n = d->family == AF_INET ? 4 : 16;

	if (!p->ipfilter)
		goto ports;
	if ((c == IPC_PUBLIC || c == IPC_PRIVATE) && ip_is_local(d))
		c = IPC_LOOPBACK;
	switch (c) {
	case IPC_METADATA:
	case IPC_LINKLOCAL:
		return sb_refused_ip(-EACCES, ip_class_name(c), d);
	case IPC_LOOPBACK:
		if (in_ports(p->loopback, p->nloopback, d->port) || is_own(b, type, d) ||
		    is_theirs(b, type, d))
			return 0;
		if (d->port == 53)
			for (i = 0; i < b->nresolver; i++)
				if (b->resolver_af[i] == d->family && memcmp(b->resolver[i], d->a, n) == 0)
					return 0;
		return sb_refused_ip(-EACCES, "loopback", d);
	case IPC_PRIVATE:
		if (p->deny_private)
			return sb_refused_ip(-EACCES, "private", d);
		/* FALLTHROUGH */
	case IPC_PUBLIC:
		if (p->no_remote)
			return sb_refused_ip(-EACCES, "remote", d);
		break;
	}
ports:
	if (p->net == SB_NET_NONE)
		return sb_refused_ip(-EACCES, "no-network", d);
	if (p->net == SB_NET_PORTS && type == SOCK_STREAM && !in_ports(p->connect, p->nconnect, d->port))
		return sb_refused_ip(-EACCES, "port", d);
	return 0;
}

static int
sock_type(int sock)
{
	int t = 0;
	socklen_t l = sizeof t;

	return getsockopt(sock, SOL_SOCKET, SO_TYPE, &t, &l) == 0 ? t : -1;
}

int
sb_ipb_connect(struct sb_ipb *b, int sock, const void *ss, unsigned len)
{
	struct ipdest d;
	sa_family_t fam = AF_UNSPEC;
	int r, type = sock_type(sock);

	if (len >= sizeof fam)
		memcpy(&fam, ss, sizeof fam);
	if (fam != AF_UNSPEC) {
		if (ip_classify(ss, len, &d) != 0)
			return fam == AF_INET || fam == AF_INET6 ? -EINVAL : -EAFNOSUPPORT;
		if ((r = decide(b, type, &d)) != 0)
			return r;
	}
	/* AF_UNSPEC dissolves an association: nothing to decide */
	sb_broker_blocking();
	return connect(sock, (const struct sockaddr *)ss, len) == 0 ? 0 : -errno;
}

/* Record the address sock is bound to now. */
static void
record(struct sb_ipb *b, int sock, int type)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof ss;
	struct ipdest d;
	struct sb_own o;
	int v6only = 0;
	socklen_t vl = sizeof v6only;
	static const uint8_t any[16];
	size_t i;

	if (getsockname(sock, (struct sockaddr *)&ss, &l) != 0 || ip_classify(&ss, l, &d) != 0 ||
	    d.port == 0)
		return;
	memset(&o, 0, sizeof o);
	o.type = type;
	o.port = d.port;
	if (ss.ss_family == AF_INET6 &&
	    memcmp(&((struct sockaddr_in6 *)&ss)->sin6_addr, any, 16) == 0) {
		o.family = AF_INET6;
		o.wild = 1;
		if (getsockopt(sock, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &vl) != 0)
			v6only = 1;	/* unsure: the narrower claim */
		o.v6only = !!v6only;
	} else {
		o.family = d.family;
		memcpy(o.a, d.a, d.family == AF_INET ? 4 : 16);
		o.wild = memcmp(d.a, any, d.family == AF_INET ? 4 : 16) == 0;
	}
	pthread_mutex_lock(&own_lock);
	for (i = 0; i < b->nown; i++)
		if (memcmp(&b->own[i], &o, sizeof o) == 0)
			break;
	if (i == b->nown && b->nown < SB_MAX_OWN) {
		b->own[b->nown++] = o;
		/* one write of a whole record (a short one is dropped by the
		 * reader); the program waits on this call, never on a reader */
		if (b->listeners_fd >= 0)
			(void)!write(b->listeners_fd, &o, sizeof o);
	}
	pthread_mutex_unlock(&own_lock);
}

/* type: the socket's SO_TYPE, as sb_ipb_serve read it */
static int
do_bind(struct sb_ipb *b, const struct seccomp_notif *req, int sock, int type)
{
	struct sockaddr_storage ss;
	size_t len = (size_t)req->data.args[2];
	struct ipdest d;

	if (len > sizeof ss || len < sizeof(sa_family_t))
		return -EINVAL;
	memset(&ss, 0, sizeof ss);
	if (sb_peek((int)req->pid, req->data.args[1], &ss, len) != 0)
		return -EFAULT;
	if (ss.ss_family != AF_UNSPEC && ip_classify(&ss, len, &d) != 0)
		return -EINVAL;
	if (b->p->net == SB_NET_PORTS && type == SOCK_STREAM && ss.ss_family != AF_UNSPEC &&
	    !in_ports(b->p->bind, b->p->nbind, d.port))
		return sb_refused_ip(-EACCES, "port", &d);
	if (bind(sock, (struct sockaddr *)&ss, (socklen_t)len) != 0)
		return -errno;
	record(b, sock, type);
	return 0;
}

/* Copy n bytes described by the caller's iovecs into one new buffer. */
static int
peek_iov(int pid, uint64_t iovp, size_t niov, size_t cap, char **out, size_t *outn)
{
	struct iovec *riov, local;
	size_t i, total = 0;
	ssize_t got;

	*out = NULL;
	*outn = 0;
	if (niov > MAX_IOV)
		return -EMSGSIZE;
	riov = calloc(niov ? niov : 1, sizeof *riov);
	if (riov == NULL)
		return -ENOMEM;
	if (niov && sb_peek(pid, iovp, riov, niov * sizeof *riov) != 0) {
		free(riov);
		return -EFAULT;
	}
	for (i = 0; i < niov; i++) {
		if (riov[i].iov_len > cap - total)
			riov[i].iov_len = cap - total;
		total += riov[i].iov_len;
	}
	*out = malloc(total ? total : 1);
	if (*out == NULL) {
		free(riov);
		return -ENOMEM;
	}
	local.iov_base = *out;
	local.iov_len = total;
	got = total ? process_vm_readv(pid, &local, 1, riov, niov, 0) : 0;
	free(riov);
	if (got != (ssize_t)total) {
		free(*out);
		*out = NULL;
		return -EFAULT;
	}
	*outn = total;
	return 0;
}

/* Descriptors the caller passes (SCM_RIGHTS on a unix socket): replaced by
 * the broker's copies of the same files; *held lists them to close. */
static int
pass_fds(int pidfd, char *ctl, size_t n, int *held, size_t *nheld)
{
	struct msghdr m;
	struct cmsghdr *c;
	int *fds, fd;
	size_t k, cnt;

	memset(&m, 0, sizeof m);
	m.msg_control = ctl;
	m.msg_controllen = n;
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		if (c->cmsg_len < CMSG_LEN(0))
			return -EINVAL;
		cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		fds = (int *)CMSG_DATA(c);
		for (k = 0; k < cnt; k++) {
			if (*nheld >= 253)
				return -ETOOMANYREFS;
			memcpy(&fd, fds + k, sizeof fd);
			fd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
			if (fd < 0)
				return errno == EBADF ? -EBADF : -EACCES;
			held[(*nheld)++] = fd;
			memcpy(fds + k, &fd, sizeof fd);
		}
	}
	return 0;
}

/* One message of sendmsg/sendmmsg, from the caller's struct msghdr at mp:
 * copied, decided, sent on sock. Bytes sent or -errno. */
static long
send_one(struct sb_ipb *b, int pid, int pidfd, int sock, int dom, int type, uint64_t mp,
    int flags)
{
	struct msghdr m;
	struct sockaddr_storage ss;
	struct ipdest d;
	char *data = NULL, *ctl = NULL;
	size_t n = 0;
	int held[256];
	size_t nheld = 0;
	long r;

	if (sb_peek(pid, mp, &m, sizeof m) != 0)
		return -EFAULT;
	if (m.msg_namelen > sizeof ss || m.msg_controllen > MAX_CONTROL)
		return -EINVAL;
	if (m.msg_name && m.msg_namelen) {
		memset(&ss, 0, sizeof ss);
		if (sb_peek(pid, (uintptr_t)m.msg_name, &ss, m.msg_namelen) != 0)
			return -EFAULT;
	}
	r = peek_iov(pid, (uintptr_t)m.msg_iov, m.msg_iovlen,
	    type == SOCK_STREAM ? MAX_STREAM : MAX_DGRAM, &data, &n);
	if (r != 0)
		return r;
	if (m.msg_control && m.msg_controllen) {
		if ((ctl = malloc(m.msg_controllen)) == NULL) {
			r = -ENOMEM;
			goto out;
		}
		if (sb_peek(pid, (uintptr_t)m.msg_control, ctl, m.msg_controllen) != 0) {
			r = -EFAULT;
			goto out;
		}
		if (dom == AF_UNIX && (r = pass_fds(pidfd, ctl, m.msg_controllen, held, &nheld)) != 0)
			goto out;
	}
	if (m.msg_name && m.msg_namelen && type != SOCK_STREAM) {
		if (dom == AF_UNIX) {
			/* a datagram to any pathname socket: not through here */
			r = sb_refused(((struct sockaddr_un *)&ss)->sun_path[0] ? -EACCES : -EPERM,
			    "unix-dgram", &ss, m.msg_namelen);
			goto out;
		}
		if (dom == AF_NETLINK)
			goto send;	/* to the kernel: the broker holds no capability */
		if (dom != AF_INET && dom != AF_INET6) {
			r = sb_refused(-EACCES, "family", &ss, m.msg_namelen);
			goto out;
		}
		if (ip_classify(&ss, m.msg_namelen, &d) != 0) {
			r = -EINVAL;
			goto out;
		}
		if ((r = decide(b, type, &d)) != 0)
			goto out;
	} else
		m.msg_namelen = 0;	/* a stream socket ignores it anyway */
send:
	{
		struct iovec iov = { data, n };
		struct msghdr s = { .msg_name = m.msg_namelen ? &ss : NULL,
			.msg_namelen = m.msg_namelen, .msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl, .msg_controllen = ctl ? m.msg_controllen : 0 };
		sb_broker_blocking();
		r = sendmsg(sock, &s, flags | MSG_NOSIGNAL);
		if (r < 0)
			r = -errno;
	}
out:
	while (nheld > 0)
		close(held[--nheld]);
	free(data);
	free(ctl);
	return r;
}

static long
do_sendto(struct sb_ipb *b, const struct seccomp_notif *req, int sock, int dom, int type)
{
	struct sockaddr_storage ss;
	size_t alen = (size_t)req->data.args[5], len = (size_t)req->data.args[2];
	size_t cap = type == SOCK_STREAM ? MAX_STREAM : MAX_DGRAM;
	struct ipdest d;
	char *buf;
	long r;

	if (alen > sizeof ss)
		return -EINVAL;
	memset(&ss, 0, sizeof ss);
	if (alen && sb_peek((int)req->pid, req->data.args[4], &ss, alen) != 0)
		return -EFAULT;
	if (type != SOCK_STREAM) {
		if (dom == AF_UNIX)
			return sb_refused(alen > offsetof(struct sockaddr_un, sun_path) &&
			    ((struct sockaddr_un *)&ss)->sun_path[0] == '\0' ? -EPERM : -EACCES,
			    "unix-dgram", &ss, alen);
		if (dom == AF_NETLINK)
			;	/* to the kernel: the broker holds no capability */
		else if (dom != AF_INET && dom != AF_INET6)
			return sb_refused(-EACCES, "family", &ss, alen);
		else if (ip_classify(&ss, alen, &d) != 0)
			return -EINVAL;
		else if ((r = decide(b, type, &d)) != 0)
			return r;
	} else
		alen = 0;
	if (len > cap) {
		if (type != SOCK_STREAM)
			return -EMSGSIZE;
		len = cap;
	}
	if ((buf = malloc(len ? len : 1)) == NULL)
		return -ENOMEM;
	if (len && sb_peek((int)req->pid, req->data.args[1], buf, len) != 0) {
		free(buf);
		return -EFAULT;
	}
	sb_broker_blocking();
	r = sendto(sock, buf, len, (int)req->data.args[3] | MSG_NOSIGNAL,
	    alen ? (struct sockaddr *)&ss : NULL, (socklen_t)alen);
	r = r < 0 ? -errno : r;
	free(buf);
	return r;
}

static long
do_sendmmsg(struct sb_ipb *b, const struct seccomp_notif *req, int pidfd, int sock, int dom,
    int type)
{
	unsigned vlen = (unsigned)req->data.args[2], i;
	uint64_t vec = req->data.args[1];
	struct iovec lo, re;
	unsigned int len;
	long r = 0;

	if (vlen > MAX_MMSG)
		vlen = MAX_MMSG;
	for (i = 0; i < vlen; i++) {
		uint64_t mp = vec + (uint64_t)i * sizeof(struct mmsghdr);
		r = send_one(b, (int)req->pid, pidfd, sock, dom, type, mp, (int)req->data.args[3]);
		if (r < 0)
			break;
		len = (unsigned)r;
		lo.iov_base = &len;
		lo.iov_len = sizeof len;
		re.iov_base = (void *)(uintptr_t)(mp + offsetof(struct mmsghdr, msg_len));
		re.iov_len = sizeof len;
		if (process_vm_writev((int)req->pid, &lo, 1, &re, 1, 0) != (ssize_t)sizeof len) {
			r = -EFAULT;
			break;
		}
	}
	return i > 0 ? (long)i : r;
}

int
sb_ipb_serve(struct sb_ipb *b, const struct seccomp_notif *req, int nfd, int sock, int dom,
    struct seccomp_notif_resp *resp)
{
	int type = sock_type(sock), pidfd;
	long r;

	switch (req->data.nr) {
	case __NR_bind:
		if (dom != AF_INET && dom != AF_INET6)
			return 1;
		r = do_bind(b, req, sock, type);
		break;
	case __NR_listen:
		r = listen(sock, (int)req->data.args[1]) == 0 ? 0 : -errno;
		if (r == 0 && (dom == AF_INET || dom == AF_INET6))
			record(b, sock, type);
		break;
	case __NR_sendto:
		r = do_sendto(b, req, sock, dom, type);
		break;
	case __NR_sendmsg:
	case __NR_sendmmsg:
		pidfd = sb_caller_pidfd((int)req->pid);
		if (pidfd < 0) {
			r = -EACCES;
			break;
		}
		if (req->data.nr == __NR_sendmsg)
			r = send_one(b, (int)req->pid, pidfd, sock, dom, type, req->data.args[1],
			    (int)req->data.args[2]);
		else
			r = do_sendmmsg(b, req, pidfd, sock, dom, type);
		close(pidfd);
		break;
	default:
		r = -ENOSYS;
	}
	(void)nfd;
	if (r < 0)
		resp->error = (int)r;
	else
		resp->val = r;
	return 0;
}
