/*
 * launcher: starts and ends the stdio upstream for a proxy that has
 * narrowed itself. The proxy forks it before narrowing; it stays outside
 * the proxy's Landlock domain and seccomp filter, so the upstream is not
 * confined by them (it runs outside the boundary, as it always has), and
 * the proxy keeps no right to exec or to signal anything outside its
 * domain: it asks the launcher over a socket. The launcher is the
 * upstream's subreaper: when the proxy ends (even killed: the socket
 * closes), or an upstream is killed or ends, it ends every process that
 * upstream left (lib/proctree.h), and the upstream dies with the launcher
 * (parent-death signal).
 */
#ifndef MCP_LAUNCHER_H
#define MCP_LAUNCHER_H
#include <sys/types.h>

struct launcher {
	int sock;		/* -1: none */
	pid_t pid;
};

/* Fork the launcher for argv with envp (both outlive the call; argv NULL:
 * no upstream to start). Every descriptor but its socket and stderr is
 * closed in it. When the proxy closes the socket (it is done), the
 * launcher removes sock_path (the proxy's unix socket, or NULL), which the
 * narrowed proxy may no longer do. 0, or -1 with errno. */
int launcher_start(struct launcher *l, char **argv, char **envp, const char *sock_path);
/* Start the upstream in its own process group: its pid, and the write
 * end of its stdin and the read end of its stdout. 0, or -1 with errno
 * (the fork or exec failing shows later as an exit status 126 or 127). */
int launcher_spawn(struct launcher *l, pid_t *pid, int *in, int *out);
/* Kill the upstream's group and reap it. */
void launcher_kill(struct launcher *l, pid_t pid);
/* Reap the upstream if it has exited: 1 with *status (a wait status),
 * 0 while it runs, -1 on error. */
int launcher_poll(struct launcher *l, pid_t pid, int *status);
/* End the launcher (and any upstream with it). */
void launcher_stop(struct launcher *l);

#endif
