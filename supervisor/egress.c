/* egress: see egress.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "argv.h"
#include "egress.h"
#include "msg.h"
#include "num.h"

static int
read_line(int fd, char *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got + 1 < n) {
		r = read(fd, buf + got, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || buf[got] == '\n')
			break;
		got++;
	}
	buf[got] = '\0';
	return (int)got;
}

int
egress_start(struct egressproc *e, struct plan *pl, struct audit *au, char *const envp[])
{
	struct argv a = { 0 };
	char url[64], *env[] = { "PATH=/usr/bin:/bin", NULL };
	size_t k;
	int port;

	(void)envp;	/* it needs nothing of the caller's environment */
	e->sp.pid = -1;
	e->sp.out = -1;
	if (pl->pol->net != NET_ALLOW)
		return 0;
	if (step_egress(pl, &a) < 0 || spawn_start(a.v, env, SPAWN_CAPTURE | SPAWN_DEATHSIG, &e->sp) < 0) {
		av_free(&a);
		msg_fatal_sys("unable to start egress-proxy");
		return -1;
	}
	av_free(&a);
	read_line(e->sp.out, url, sizeof url);
	/* egress-proxy prints exactly http://127.0.0.1:PORT */
	k = strncmp(url, "http://127.0.0.1:", 17) == 0 ? strspn(url + 17, "0123456789") : 0;
	if (k == 0 || url[17 + k] != '\0' || num_parse_int(url + 17, 1, 65535, &port) != 0) {
		msg_fatal("egress-proxy did not start");
		msg_hint("its own message above says why");
		return -1;
	}
	snprintf(pl->egress_port, sizeof pl->egress_port, "%d", port);
	audit_start(au, "egress-proxy");
	audit_strs(au, "allow", pl->pol->allow.v, pl->pol->allow.n);
	audit_str(au, "port", pl->egress_port);
	audit_end(au);
	return 0;
}

void
egress_stop(struct egressproc *e)
{
	if (e->sp.pid <= 0)
		return;
	kill(e->sp.pid, SIGTERM);
	while (waitpid(e->sp.pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (e->sp.out >= 0)
		close(e->sp.out);
	e->sp.pid = -1;
	e->sp.out = -1;
}
