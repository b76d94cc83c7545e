/* fdpass: one descriptor over a unix socket (SCM_RIGHTS), one byte of data. */
#ifndef CORRAL_FDPASS_H
#define CORRAL_FDPASS_H

/* Send fd over sock. 0, or -1 with errno. EINTR is retried. */
int fd_send(int sock, int fd);
/* Receive one descriptor (O_CLOEXEC). The descriptor, or -1 with errno
 * (EPROTO when the message is not exactly one byte and one descriptor). */
int fd_recv(int sock);

#endif
