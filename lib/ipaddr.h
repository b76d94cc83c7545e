/* ipaddr: what an IP destination reaches, decided on a copy. Pure.
 *
 * Used by the IP broker (lib/sandbox_ip.c) on the address a sandboxed
 * connect()/sendto()/sendmsg() names, and by egress-proxy on each address a
 * name resolves to. IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
 * (::a.b.c.d) and NAT64 (64:ff9b::/96, 64:ff9b:1::/48) IPv6 addresses are
 * judged as the IPv4 address they carry; 0.0.0.0/8 and :: reach this
 * machine, so they count as loopback. */
#ifndef CORRAL_IPADDR_H
#define CORRAL_IPADDR_H
#include <stddef.h>
#include <stdint.h>

enum ip_class {
	IPC_PUBLIC = 0,		/* anything else */
	IPC_LOOPBACK,		/* 127/8, 0/8, ::1, :: */
	IPC_METADATA,		/* 169.254.169.254, fd00:ec2::254, 100.100.100.200 */
	IPC_LINKLOCAL,		/* 169.254/16, fe80::/10 */
	IPC_PRIVATE,		/* 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT),
				   fc00::/7 (ULA), fec0::/10 */
};

struct ipdest {
	int family;		/* AF_INET or AF_INET6: what it reaches (mapped
				   addresses become AF_INET) */
	uint8_t a[16];		/* the address (4 bytes for AF_INET) */
	uint16_t port;		/* host order */
	enum ip_class cls;
};

/* Classify the sockaddr sa[0..len). 0, or -1 when it is not a complete
 * AF_INET/AF_INET6 address. */
int ip_classify(const void *sa, size_t len, struct ipdest *d);
/* Classify a raw address (4 or 16 bytes) of family af. */
enum ip_class ip_class_of(int af, const uint8_t *a);
/* "loopback", "metadata", ... */
const char *ip_class_name(enum ip_class c);
/* Not pure: is d one of this machine's own addresses (a UDP connect, which
 * sends nothing, picks d itself as the source), or one that reaches them
 * (255.255.255.255, a subnet's broadcast address, 224.0.0.0/4, ff00::/8)?
 * 1 when unsure. */
int ip_is_local(const struct ipdest *d);
/* The address as text (no port), into buf of n >= 46 bytes. */
void ip_format(const struct ipdest *d, char *buf, size_t n);

#endif
