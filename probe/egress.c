/* egress: see egress.h.
 *
 * Nothing here can send a packet off the machine: every destination is
 * loopback, and the metadata address is tried only on a non-blocking socket
 * bound to lo (SO_BINDTODEVICE), whose packets cannot leave; the broker
 * answers EACCES before any connect, the kernel would say EINPROGRESS. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "compat.h"
#include "egress.h"

static int64_t
err(long r)
{
	return r < 0 ? (errno ? errno : EIO) : 0;
}

static int64_t
connect_to(int family, const char *addr, int port, int on_lo)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int s, r;

	memset(&ss, 0, sizeof ss);
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, addr, &a->sin_addr);
		len = sizeof *a;
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, addr, &a->sin6_addr);
		len = sizeof *a;
	}
	s = socket(family, SOCK_STREAM | SOCK_CLOEXEC | (on_lo ? SOCK_NONBLOCK : 0), 0);
	if (s < 0)
		return err(-1);
	if (on_lo && setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3) != 0) {
		r = errno ? errno : EIO;
		close(s);
		return r == EACCES ? EIO : r;	/* never mistaken for the broker's answer */
	}
	r = (int)err(connect(s, (struct sockaddr *)&ss, len));
	close(s);
	return r;
}

static int64_t
own_server(void)
{
	struct sockaddr_in a;
	socklen_t l = sizeof a;
	int s, c;
	int64_t r;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return err(-1);
	if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 1) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &l) != 0) {
		r = err(-1);
		close(s);
		return r;
	}
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = c < 0 ? err(-1) : err(connect(c, (struct sockaddr *)&a, sizeof a));
	if (c >= 0)
		close(c);
	close(s);
	return r;
}

static int64_t
fastopen(int port)
{
	struct sockaddr_in a;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int64_t r;

	if (s < 0)
		return err(-1);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = err(sendto(s, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&a, sizeof a));
	close(s);
	return r;
}

void
probe_egress(int outside_port, struct probe_obs *ob)
{
	ob->got[ob->n++] = connect_to(AF_INET, "127.0.0.1", outside_port, 0);
	ob->got[ob->n++] = connect_to(AF_INET6, "::ffff:127.0.0.1", outside_port, 0);
	ob->got[ob->n++] = connect_to(AF_INET, "169.254.169.254", 80, 1);
	ob->got[ob->n++] = fastopen(outside_port);
	ob->got[ob->n++] = own_server();
}
