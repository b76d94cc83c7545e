/* listen: listening sockets for local clients only. */
#ifndef CORRAL_LISTEN_H
#define CORRAL_LISTEN_H

/* A TCP listener on 127.0.0.1:port (0: the kernel picks one), close-on-exec
 * and non-blocking, backlog 64, SO_REUSEADDR. *bound gets the port bound.
 * Returns the descriptor, or -1 with errno. */
int listen_loopback(int port, int *bound);
/* A unix stream listener at path, created mode 0600 (umask 077 around the
 * bind), close-on-exec and non-blocking, backlog 64. An existing path is
 * not removed: EADDRINUSE. Returns the descriptor, or -1 with errno. */
int listen_unix(const char *path);

#endif
