/* session-store: credentials (put, release at most once; renew and restore are in renew.c). */
#include <sys/stat.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "msg.h"
#include "ss.h"
#include "store.h"
#include "json.h"
#include "num.h"

/* Read a secret or sign-in from fd, bounded: never more than max bytes in
 * memory. A regular file is measured first. */
static int
read_fd_bounded(int fd, size_t max, char **out, size_t *len)
{
	struct stat st;
	ssize_t n;
	char *buf;

	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		return errno = EISDIR, -1;
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		return errno = EFBIG, -1;
	buf = malloc(max + 1);
	if (buf == NULL)
		return -1;
	n = fd_read_bounded(fd, buf, max);
	if (n < 0) {
		int e = errno;
		free(buf);
		return errno = e, -1;
	}
	buf[n] = '\0';
	*out = buf;
	*len = (size_t)n;
	return 0;
}

/* A file (path, O_NOFOLLOW) or a descriptor, bounded by max. */
int
ss_read_source(const char *path, int fd, size_t max, const char *what, char **out, size_t *len)
{
	int r;

	if (path != NULL)
		r = file_read_bounded(AT_FDCWD, path, max, out, len);
	else
		r = read_fd_bounded(fd, max, out, len);
	if (r < 0) {
		if (errno == EFBIG)
			msg_fatal("%s: larger than %zu bytes", what, max);
		else
			msg_fatal_sys("unable to read %s", what);
		return errno == EFBIG ? EXIT_NO : EXIT_USAGE;
	}
	return 0;
}

/* Expiry and account of a sign-in per its profile; 0, or 1 refused. */
static int
inspect(const struct profile *p, const char *buf, size_t len, const char *abuf, size_t alen,
    int64_t *exp, char *acct, const char *what)
{
	char err[160];

	if (prof_expiry(&p->expiry, buf, len, exp, err, sizeof err) < 0) {
		msg_fatal("%s: expiry: %s", what, err);
		return 1;
	}
	if (p->account.file[0] != '\0' && abuf == NULL) {
		msg_fatal("%s: the account is in %s: pass --account-from or --account-fd", what, p->account.file);
		return 1;
	}
	if (p->account.file[0] == '\0') {
		abuf = buf;
		alen = len;
	}
	if (prof_account(&p->account, abuf, alen, acct, PROF_ACCOUNT_MAX, err, sizeof err) < 0) {
		msg_fatal("%s: account: %s", what, err);
		return 1;
	}
	return 0;
}

int
ss_put(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "agent", required_argument, NULL, 'a' },
		{ "account-from", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	const char *agent = NULL, *acctfile = NULL, *name;
	const struct profile *p = NULL;
	char *buf = NULL, *abuf = NULL, *all;
	size_t len, alen = 0;
	char hdr[2048];
	struct credhdr h;
	int64_t exp;
	int c, cfd, lk, hn, r;

	name = ss_take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'a': agent = optarg; break;
		case 'A': acctfile = optarg; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if ((name = ss_operand(name, argc, argv)) == NULL || (acctfile && !agent)) {
		msg_usage("put NAME [--agent AGENT [--account-from FILE]] < SECRET");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(name)) {
		msg_fatal("bad credential name (want [a-z0-9][a-z0-9._-]*, at most 32)");
		return EXIT_USAGE;
	}
	memset(&h, 0, sizeof h);
	if (agent != NULL && (p = profiles_find(&s->prof, agent)) == NULL) {
		msg_fatal("no profile for agent %.32s", agent);
		return EXIT_USAGE;
	}
	if ((r = ss_read_source(NULL, 0, STORE_SECRET_MAX, "the secret on stdin", &buf, &len)) != 0)
		return r;
	if (len == 0) {
		msg_fatal("the secret on stdin is empty");
		free(buf);
		return EXIT_NO;
	}
	if (acctfile && (r = ss_read_source(acctfile, -1, PROF_FILE_MAX, acctfile, &abuf, &alen)) != 0) {
		free(buf);
		return r;
	}
	if (p != NULL) {
		strcpy(h.agent, p->name);
		if (inspect(p, buf, len, abuf, alen, &exp, h.account, "sign-in") != 0) {
			free(buf);
			free(abuf);
			return EXIT_NO;
		}
	}
	free(abuf);
	hn = cred_header_format(&h, hdr, sizeof hdr);
	all = hn < 0 ? NULL : malloc((size_t)hn + len);
	if (all == NULL) {
		msg_fatal_sys("unable to prepare the credential");
		free(buf);
		return EXIT_USAGE;
	}
	memcpy(all, hdr, (size_t)hn);
	memcpy(all + hn, buf, len);
	free(buf);
	if ((cfd = ss_open_sub(s, "creds")) < 0 || (lk = store_lock(s->fd)) < 0) {
		free(all);
		if (cfd >= 0)
			msg_fatal_sys("unable to lock the store");
		return cfd < 0 ? -cfd : EXIT_USAGE;
	}
	r = file_write_atomic(cfd, name, all, (size_t)hn + len, 0600);
	explicit_bzero(all, (size_t)hn + len);
	free(all);
	close(lk);
	if (r < 0) {
		msg_fatal_sys("unable to store %s", name);
		return EXIT_USAGE;
	}
	return 0;
}

int
ss_release(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "attempt", required_argument, NULL, 'a' },
		{ "fd", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *id = NULL, *fdarg = NULL, *name;
	char err[256];
	int c, out = 1, r;

	name = ss_take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'a': id = optarg; break;
		case 'f': fdarg = optarg; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if ((name = ss_operand(name, argc, argv)) == NULL || id == NULL) {
		msg_usage("release NAME --attempt ID [--fd N]");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(name) || !store_id_ok(id)) {
		msg_fatal("bad credential name or attempt id");
		return EXIT_USAGE;
	}
	if (fdarg != NULL && ss_parse_fd(fdarg, &out) < 0)
		return EXIT_USAGE;
	r = store_release(s->fd, name, id, out, err, sizeof err);
	if (r != 0) {
		msg_fatal("%s", err);
		return r == 1 ? EXIT_NO : EXIT_USAGE;
	}
	return 0;
}
