/* ipaddr: see ipaddr.h (all pure but ip_is_local). */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipaddr.h"

static enum ip_class
v4class(const uint8_t *a)
{
	if (a[0] == 127 || a[0] == 0)
		return IPC_LOOPBACK;
	if ((a[0] == 169 && a[1] == 254 && a[2] == 169 && a[3] == 254) ||
	    (a[0] == 100 && a[1] == 100 && a[2] == 100 && a[3] == 200))
		return IPC_METADATA;
	if (a[0] == 169 && a[1] == 254)
		return IPC_LINKLOCAL;
	if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) ||
	    (a[0] == 192 && a[1] == 168) || (a[0] == 100 && (a[1] & 0xc0) == 64))
		return IPC_PRIVATE;
	return IPC_PUBLIC;
}

/* The IPv4 address an IPv6 one carries, or NULL. */
static const uint8_t *
embedded_v4(const uint8_t *a)
{
	static const uint8_t mapped[12] = { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff };
	static const uint8_t zero[12];
	static const uint8_t nat64[12] = { 0,0x64,0xff,0x9b, 0,0,0,0, 0,0,0,0 };

	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return a + 12;
	/* IPv4-compatible ::a.b.c.d, but not :: and ::1 */
	if (memcmp(a, zero, 12) == 0 && !(a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] <= 1))
		return a + 12;
	/* 64:ff9b:1::/48 (local-use NAT64, RFC 8215): the last 32 bits */
	if (a[0] == 0 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b && a[4] == 0 && a[5] == 1)
		return a + 12;
	return NULL;
}

static enum ip_class
v6class(const uint8_t *a)
{
	static const uint8_t any[16];
	static const uint8_t one[16] = { [15] = 1 };
	static const uint8_t ec2[16] = { 0xfd,0,0x0e,0xc2, 0,0,0,0, 0,0,0,0, 0,0,0x02,0x54 };

	if (memcmp(a, any, 16) == 0 || memcmp(a, one, 16) == 0)
		return IPC_LOOPBACK;
	if (memcmp(a, ec2, 16) == 0)
		return IPC_METADATA;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return IPC_LINKLOCAL;
	if ((a[0] & 0xfe) == 0xfc || (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0))
		return IPC_PRIVATE;
	return IPC_PUBLIC;
}

enum ip_class
ip_class_of(int af, const uint8_t *a)
{
	const uint8_t *v4;

	if (af == AF_INET)
		return v4class(a);
	v4 = embedded_v4(a);
	return v4 ? v4class(v4) : v6class(a);
}

int
ip_classify(const void *sa, size_t len, struct ipdest *d)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;
	sa_family_t fam;
	const uint8_t *v4;

	memset(d, 0, sizeof *d);
	if (len < sizeof fam)
		return -1;
	memcpy(&fam, sa, sizeof fam);
	if (fam == AF_INET) {
		if (len < sizeof s4)
			return -1;
		memcpy(&s4, sa, sizeof s4);
		d->family = AF_INET;
		memcpy(d->a, &s4.sin_addr, 4);
		d->port = ntohs(s4.sin_port);
	} else if (fam == AF_INET6) {
		if (len < sizeof s6)
			return -1;
		memcpy(&s6, sa, sizeof s6);
		d->port = ntohs(s6.sin6_port);
		v4 = embedded_v4(s6.sin6_addr.s6_addr);
		if (v4) {
			d->family = AF_INET;
			memcpy(d->a, v4, 4);
		} else {
			d->family = AF_INET6;
			memcpy(d->a, s6.sin6_addr.s6_addr, 16);
		}
	} else
		return -1;
	d->cls = ip_class_of(d->family, d->a);
	return 0;
}

const char *
ip_class_name(enum ip_class c)
{
	switch (c) {
	case IPC_LOOPBACK: return "loopback";
	case IPC_METADATA: return "metadata";
	case IPC_LINKLOCAL: return "link-local";
	case IPC_PRIVATE: return "private";
	case IPC_PUBLIC: break;
	}
	return "public";
}

void
ip_format(const struct ipdest *d, char *buf, size_t n)
{
	if (inet_ntop(d->family, d->a, buf, (socklen_t)n) == NULL && n > 0)
		snprintf(buf, n, "?");
}

int
ip_is_local(const struct ipdest *d)
{
	struct sockaddr_storage ss, me;
	socklen_t sl, ml = sizeof me;
	int s, c, r = 0;

	/* broadcast and multicast reach this machine's own listeners too */
	if (d->family == AF_INET && ((d->a[0] & 0xf0) == 0xe0 ||
	    (d->a[0] == 255 && d->a[1] == 255 && d->a[2] == 255 && d->a[3] == 255)))
		return 1;
	if (d->family == AF_INET6 && d->a[0] == 0xff)
		return 1;
	memset(&ss, 0, sizeof ss);
	if (d->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(9);
		memcpy(&s4->sin_addr, d->a, 4);
		sl = sizeof *s4;
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(9);
		memcpy(&s6->sin6_addr, d->a, 16);
		sl = sizeof *s6;
	}
	s = socket(d->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return 1;	/* unsure: judged as loopback, the stricter rule */
	if ((c = connect(s, (struct sockaddr *)&ss, sl)) < 0 && errno == EACCES)
		r = 1;	/* a subnet's broadcast address (no SO_BROADCAST here) */
	else if (c == 0 && getsockname(s, (struct sockaddr *)&me, &ml) == 0) {
		if (d->family == AF_INET)
			r = memcmp(&((struct sockaddr_in *)&me)->sin_addr, d->a, 4) == 0;
		else
			r = memcmp(&((struct sockaddr_in6 *)&me)->sin6_addr, d->a, 16) == 0;
	}
	close(s);
	return r;
}
