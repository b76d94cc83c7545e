#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "listen.h"

int
listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, rc;

	if (strlen(path) >= sizeof sa.sun_path)
		return errno = ENAMETOOLONG, -1;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return -1;
	old = umask(077);	/* the socket is ours alone: mode 0600 */
	rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (rc < 0 || listen(fd, 64) < 0) {
		int e = errno;
		close(fd);
		return errno = e, -1;
	}
	return fd;
}

int
listen_loopback(int port, int *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t sl = sizeof sa;
	int fd, one = 1;

	if (port < 0 || port > 65535)
		return errno = EINVAL, -1;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);	/* 127.0.0.1 only */
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		int e = errno;
		close(fd);
		return errno = e, -1;
	}
	*bound = ntohs(sa.sin_port);
	return fd;
}
