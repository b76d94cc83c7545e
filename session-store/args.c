/* session-store: usage and the argument plumbing its commands share. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "msg.h"
#include "num.h"
#include "ss.h"
#include "store.h"

void
ss_usage(int fd)
{
	fprintf(fd == 1 ? stdout : stderr,
	    "usage: session-store [--store DIR] [--profiles FILE] begin --agent NAME [--pid N]\n"
	    "                     [--id ID] [--reap [--trees DIR]]\n"
	    "       session-store [--store DIR] end ID --status N [--platform P] [--tier T]\n"
	    "       session-store [--store DIR] list [--json]\n"
	    "       session-store [--store DIR] show ID [--json]\n"
	    "       session-store [--store DIR] [--profiles FILE] [--test-cacert FILE]\n"
	    "                     put NAME [--agent AGENT [--account-from FILE | --account-fd N] [--verify]]\n"
	    "       session-store [--store DIR] release NAME --attempt ID [--fd N]\n"
	    "       session-store [--store DIR] [--profiles FILE] [--test-cacert FILE]\n"
	    "                     renew NAME --from FILE | --from-fd N\n"
	    "       session-store [--store DIR] restore NAME\n"
	    "       session-store [--store DIR] reap [--older-than DURATION] [--trees DIR]\n"
	    "       session-store [--store DIR] [--profiles FILE] signins\n"
	    "       session-store [--store DIR] remove NAME\n"
	    "       session-store [--store DIR] env-set PROJECT NAME\n"
	    "       session-store [--store DIR] env-list PROJECT\n"
	    "       session-store [--store DIR] env-rm PROJECT NAME\n"
	    "       session-store [--store DIR] env-release PROJECT --attempt ID [--fd N]\n"
	    "       session-store -h | --help | --version\n"
	    "put and env-set read the secret from stdin; begin prints the new attempt id.\n"
	    "The store is DIR, else $XDG_STATE_HOME/corral, else ~/.local/state/corral.\n"
	    "Exit: 0 done, 1 refused, 2 usage or system error.\n");
}

/* The command's operand may come first ("release NAME --attempt ID"):
 * getopt's "+" would stop there, so take it before parsing options. */
const char *
ss_take_operand(int *argc, char ***argv)
{
	if (*argc > 1 && (*argv)[1][0] != '-') {
		const char *op = (*argv)[1];
		(*argv)[1] = (*argv)[0];
		(*argv)++;
		(*argc)--;
		return op;
	}
	return NULL;
}

const char *
ss_operand(const char *op, int argc, char **argv)
{
	if (op == NULL && optind < argc)
		op = argv[optind++];
	return optind == argc ? op : NULL;
}

int
ss_usage_err(void)
{
	ss_usage(2);
	return EXIT_USAGE;
}

int
ss_badopt(int c, int argc, char **argv)
{
	msg_badopt(c, argc, argv, "session-store");
	return EXIT_USAGE;
}

/* A store subdirectory; its descriptor, or the negated exit status after a
 * fatal message: a store that fails its checks is a refusal (1), anything
 * else a system error (2). */
int
ss_open_sub(struct ss *s, const char *name)
{
	char err[256];
	int fd = store_subdir(s->fd, name, 1, err, sizeof err);

	if (fd < 0) {
		msg_fatal("store %s: %s", s->store, err);
		return errno == EPERM ? -EXIT_NO : -EXIT_USAGE;
	}
	return fd;
}

int
ss_open_creds_prev(struct ss *s, int *cfd, int *pfd)
{
	if ((*cfd = ss_open_sub(s, "creds")) < 0)
		return *cfd;
	if ((*pfd = ss_open_sub(s, "prev")) < 0) {
		close(*cfd);
		return *pfd;
	}
	return 0;
}

int
ss_parse_fd(const char *s, int *fd)
{
	if (num_parse_fd(s, fd) < 0 || fcntl(*fd, F_GETFD) < 0) {
		msg_fatal("bad descriptor %.16s (want an open one)", s);
		return -1;
	}
	return 0;
}
