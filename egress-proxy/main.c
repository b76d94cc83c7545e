/* egress-proxy: corral's domain allowlist, an HTTP proxy on a loopback port
 * outside the boundary (CONNECT for HTTPS, absolute-form for plain HTTP).
 * Prints its URL, then serves each client in a process of its own. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "listen.h"
#include "msg.h"
#include "num.h"
#include "selfnarrow.h"
#include "serve.h"
#include "status.h"
#include "version.h"

#define MAX_CLIENTS 128

static const char usage_text[] =
"usage: egress-proxy --allow NAME [--allow NAME...] [--deny-private]\n"
"                    [--audit FILE] [--port PORT]\n"
"       egress-proxy -h | --help | --version\n"
"\n"
"  -a, --allow NAME      a host the clients may reach: a name, *.NAME (any\n"
"                        subdomain) or an IP address (repeatable)\n"
"      --deny-private    refuse names resolving to RFC 1918, CGNAT or ULA\n"
"      --audit FILE      append one JSON line per decision to FILE (it must\n"
"                        exist; host, port, decision, bytes each way)\n"
"      --port PORT       listen on 127.0.0.1:PORT (default: any free port)\n"
"  -h, --help            this text\n"
"      --version         print the version\n"
"\n"
"Prints http://127.0.0.1:PORT once it listens and has narrowed itself (no\n"
"file but the resolver's, no exec, no capability), then serves until\n"
"SIGTERM. Refusals are HTTP 403 with a one-line reason.\n"
"\n"
"Exit status:\n"
"  0  after --help or --version, or on SIGTERM (each connection ends and\n"
"     is audited first)\n"
"  2  a usage error, or a system error: it could not listen, open the\n"
"     audit log or narrow itself\n";

enum { O_DENYPRIV = 256, O_AUDIT, O_PORT, O_VERSION };

/* Once listening, with the audit log open: what it parses next is the
 * agent's (lib/selfnarrow). It reads only what the resolver reads, and
 * connects where an allowed name resolves (any TCP port: the allowlist is
 * by host). */
static int
narrow(char *why, size_t cap)
{
	static const char *const resolver[] = { "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
		"/etc/host.conf", "/etc/gai.conf", NULL };
	static struct sb_policy pol;

	sb_policy_init(&pol);
	for (size_t i = 0; resolver[i]; i++)
		if (sb_policy_add_path(&pol, resolver[i], SB_R, SB_OPTIONAL) < 0) {
			snprintf(why, cap, "%s: %s", resolver[i], strerror(errno));
			return -1;
		}
	return selfnarrow(&pol, why, cap);
}

static void
on_term(int sig)
{
	(void)sig;
	egress_stop = 1;
}

/* SIGTERM: each connection ends and writes its audit line; then exit. */
static void __attribute__((noreturn))
stop(pid_t *kids, int n)
{
	for (int i = 0; i < n; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGTERM);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

static int
parse(int argc, char **argv, struct egress *g, int *port)
{
	static const struct option lo[] = {
		{ "allow", required_argument, NULL, 'a' },
		{ "deny-private", no_argument, NULL, O_DENYPRIV },
		{ "audit", required_argument, NULL, O_AUDIT },
		{ "port", required_argument, NULL, O_PORT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:a:h", lo, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (g->nallow >= EGRESS_MAX_ALLOW) {
				msg_usage("more than %d --allow names", EGRESS_MAX_ALLOW);
				return -1;
			}
			if (host_normalize(optarg, strlen(optarg), 1, g->allow[g->nallow]) == HOST_BAD) {
				msg_usage("--allow %s: not a host name, *.NAME or an IP address", optarg);
				return -1;
			}
			g->nallow++;
			break;
		case O_DENYPRIV: g->deny_private = 1; break;
		case O_AUDIT:
			g->audit_fd = open(optarg, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
			if (g->audit_fd < 0) {
				msg_fatal_sys("unable to open the audit log %s", optarg);
				return -1;
			}
			break;
		case O_PORT:
			if (num_parse_int(optarg, 1, 65535, port) != 0) {
				msg_usage("--port %s: a number from 1 to 65535", optarg);
				return -1;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			return msg_stdout_done() == 0 ? 1 : -1;
		case O_VERSION:
			printf("egress-proxy %s\n", CORRAL_VERSION);
			return msg_stdout_done() == 0 ? 1 : -1;
		default:
			msg_badopt(c, argc, argv, NULL);
			return -1;
		}
	}
	if (optind < argc) {
		msg_usage("unexpected operand '%s'", argv[optind]);
		msg_hint("egress-proxy --help");
		return -1;
	}
	if (g->nallow == 0) {
		msg_usage("no --allow name: nothing could be reached");
		msg_hint("egress-proxy --help");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct egress g;
	static pid_t kids[MAX_CLIENTS];
	struct sigaction sa;
	char why[256];
	int port = 0, bound, l, c, r, i, nkids = 0;
	struct pollfd pf;
	pid_t pid;

	msg_init(argv[0]);
	g.audit_fd = -1;
	if ((r = parse(argc, argv, &g, &port)) != 0)
		return r > 0 ? 0 : EXIT_USAGE;
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;	/* no SA_RESTART: poll and the relay wake up */
	sigaction(SIGTERM, &sa, NULL);
	if ((l = listen_loopback(port, &bound)) < 0) {
		msg_fatal_sys("unable to listen on 127.0.0.1:%d", port);
		return EXIT_USAGE;
	}
	if (narrow(why, sizeof why) < 0) {
		msg_fatal("unable to narrow itself after set-up: %s", why);
		return EXIT_USAGE;
	}
	printf("http://127.0.0.1:%d\n", bound);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	pf.fd = l;
	pf.events = POLLIN;
	for (;;) {
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			for (i = 0; i < MAX_CLIENTS; i++)
				if (kids[i] == pid) {
					kids[i] = 0;
					nkids--;
				}
		if (egress_stop)
			stop(kids, MAX_CLIENTS);
		if (poll(&pf, 1, 1000) <= 0)
			continue;
		c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		if (nkids >= MAX_CLIENTS) {
			close(c);	/* a client flood is refused, not queued */
			continue;
		}
		pid = fork();
		if (pid == 0) {
			/* a connection does not outlive the proxy */
			prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
			close(l);
			egress_serve(&g, c);
			_exit(0);
		}
		if (pid > 0) {
			for (i = 0; i < MAX_CLIENTS && kids[i] != 0; i++)
				;
			if (i < MAX_CLIENTS)
				kids[i] = pid;
			nkids++;
		}
		close(c);
	}
}
