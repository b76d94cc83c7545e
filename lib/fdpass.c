/* fdpass: one descriptor over a unix socket (SCM_RIGHTS). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "fdpass.h"

int
fd_send(int sock, int fd)
{
	char c = 'F';
	struct iovec iov = { &c, 1 };
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct msghdr m;
	struct cmsghdr *cm;

	memset(&m, 0, sizeof m);
	memset(&u, 0, sizeof u);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof u.buf;
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int
fd_recv(int sock)
{
	char c;
	struct iovec iov = { &c, 1 };
	union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
	struct msghdr m;
	struct cmsghdr *cm;
	ssize_t r;
	int fd;

	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof u.buf;
	while ((r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (r != 1 || cm == NULL || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int))) {
		errno = EPROTO;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}
