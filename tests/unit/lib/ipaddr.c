#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "ipaddr.h"
#include "tap.h"

static int
cls(const char *s)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;
	struct ipdest d;

	memset(&s4, 0, sizeof s4);
	memset(&s6, 0, sizeof s6);
	if (inet_pton(AF_INET, s, &s4.sin_addr) == 1) {
		s4.sin_family = AF_INET;
		s4.sin_port = htons(80);
		return ip_classify(&s4, sizeof s4, &d) == 0 && d.port == 80 ? (int)d.cls : -1;
	}
	if (inet_pton(AF_INET6, s, &s6.sin6_addr) != 1)
		return -2;
	s6.sin6_family = AF_INET6;
	return ip_classify(&s6, sizeof s6, &d) == 0 ? (int)d.cls : -1;
}

int
main(void)
{
	static const struct { const char *a; int c; } t[] = {
		{ "127.0.0.1", IPC_LOOPBACK }, { "127.255.1.2", IPC_LOOPBACK },
		{ "0.0.0.0", IPC_LOOPBACK }, { "::", IPC_LOOPBACK }, { "::1", IPC_LOOPBACK },
		{ "::ffff:127.0.0.1", IPC_LOOPBACK }, { "::ffff:0.0.0.0", IPC_LOOPBACK },
		{ "::127.0.0.1", IPC_LOOPBACK },
		{ "169.254.169.254", IPC_METADATA }, { "::ffff:169.254.169.254", IPC_METADATA },
		{ "::ffff:a9fe:a9fe", IPC_METADATA }, { "64:ff9b::169.254.169.254", IPC_METADATA },
		{ "64:ff9b:1::a9fe:a9fe", IPC_METADATA },
		{ "fd00:ec2::254", IPC_METADATA }, { "100.100.100.200", IPC_METADATA },
		{ "169.254.0.1", IPC_LINKLOCAL }, { "fe80::1", IPC_LINKLOCAL },
		{ "febf::1", IPC_LINKLOCAL }, { "::ffff:169.254.3.4", IPC_LINKLOCAL },
		{ "10.1.2.3", IPC_PRIVATE }, { "172.16.0.1", IPC_PRIVATE },
		{ "172.31.255.255", IPC_PRIVATE }, { "192.168.1.1", IPC_PRIVATE },
		{ "100.64.0.1", IPC_PRIVATE }, { "100.127.255.255", IPC_PRIVATE },
		{ "fd00::10", IPC_PRIVATE }, { "fc00::1", IPC_PRIVATE }, { "fec0::1", IPC_PRIVATE },
		{ "::ffff:10.0.0.1", IPC_PRIVATE },
		{ "172.32.0.1", IPC_PUBLIC }, { "100.128.0.1", IPC_PUBLIC },
		{ "198.51.100.10", IPC_PUBLIC }, { "2001:db8::10", IPC_PUBLIC },
		{ "8.8.8.8", IPC_PUBLIC }, { "169.253.255.255", IPC_PUBLIC },
		{ "fd00:ec2::253", IPC_PRIVATE },
	};
	struct sockaddr_in s4;
	struct ipdest d;
	char buf[64];

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		is_int(cls(t[i].a), t[i].c, "%s", t[i].a);
	memset(&s4, 0, sizeof s4);
	s4.sin_family = AF_INET;
	is_int(ip_classify(&s4, sizeof s4 - 1, &d), -1, "a short sockaddr_in is refused");
	s4.sin_family = AF_UNIX;
	is_int(ip_classify(&s4, sizeof s4, &d), -1, "AF_UNIX is not an IP destination");
	is_int(ip_classify(&s4, 1, &d), -1, "a 1-byte address is refused");
	{
		struct sockaddr_in6 s6;
		memset(&s6, 0, sizeof s6);
		s6.sin6_family = AF_INET6;
		inet_pton(AF_INET6, "::ffff:169.254.169.254", &s6.sin6_addr);
		ip_classify(&s6, sizeof s6, &d);
		ip_format(&d, buf, sizeof buf);
		is_str(buf, "169.254.169.254", "a mapped address is judged and shown as IPv4");
	}
	is_str(ip_class_name(IPC_METADATA), "metadata", "class name");
	return done_testing();
}
