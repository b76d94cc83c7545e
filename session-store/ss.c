#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fdio.h"
#include "json.h"
#include "msg.h"
#include "num.h"
#include "rmtree.h"
#include "rnd.h"
#include "ss.h"
#include "store.h"

enum { REAP_DEFAULT = 86400 };

void
ss_usage(int fd)
{
	dprintf(fd,
	    "usage: session-store [--store DIR] [--profiles FILE] begin --agent NAME [--pid N]\n"
	    "       session-store [--store DIR] end ID --status N [--platform P] [--tier T]\n"
	    "       session-store [--store DIR] list [--json]\n"
	    "       session-store [--store DIR] show ID [--json]\n"
	    "       session-store [--store DIR] [--profiles FILE] put NAME [--agent AGENT [--account-from FILE]]\n"
	    "       session-store [--store DIR] release NAME --attempt ID [--fd N]\n"
	    "       session-store [--store DIR] [--profiles FILE] renew NAME --from FILE | --from-fd N\n"
	    "                     [--account-from FILE | --account-fd N]\n"
	    "       session-store [--store DIR] reap [--older-than DURATION]\n"
	    "       session-store -h | --help | --version\n"
	    "put reads the secret from stdin; begin prints the new attempt id.\n"
	    "The store is DIR, else $XDG_STATE_HOME/corral, else ~/.local/state/corral.\n"
	    "Exit: 0 done, 1 refused, 2 usage or system error.\n");
}

/* getopt_long over a command's own arguments; argv[0] is the command. */
#define OPTLOOP(opts) while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1)

/* The command's operand may come first ("release NAME --attempt ID"):
 * getopt's "+" would stop there, so take it before parsing options. */
static const char *
take_operand(int *argc, char ***argv)
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

static const char *
operand(const char *op, int argc, char **argv)
{
	if (op == NULL && optind < argc)
		op = argv[optind++];
	return optind == argc ? op : NULL;
}

static int
usage_err(void)
{
	ss_usage(2);
	return EXIT_USAGE;
}

static int
write_record(int afd, const struct attempt *a)
{
	char buf[STORE_RECORD_MAX];
	int n = attempt_format(a, buf, sizeof buf);

	if (n < 0)
		return -1;
	/* attempt bookkeeping: atomic (temp + rename), not fsynced; losing
	 * a record to a power cut loses nothing that matters */
	return file_replace_atomic(afd, a->id, buf, (size_t)n, 0600);
}

static int
open_sub(struct ss *s, const char *name)
{
	char err[256];
	int fd = store_subdir(s->fd, name, 1, err, sizeof err);

	if (fd < 0)
		msg_fatal("store %s: %s", s->store, err);
	return fd;
}

int
ss_begin(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "agent", required_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct attempt a;
	const char *agent = NULL, *pid = NULL;
	int c, afd, lk;

	OPTLOOP(opts) {
		switch (c) {
		case 'a': agent = optarg; break;
		case 'p': pid = optarg; break;
		default: return usage_err();
		}
	}
	if (optind != argc || agent == NULL) {
		msg_usage("begin --agent NAME [--pid N]");
		return EXIT_USAGE;
	}
	memset(&a, 0, sizeof a);
	if (!prof_name_ok(agent)) {
		msg_fatal("bad agent name (want [a-z0-9][a-z0-9._-]*, at most 32)");
		return EXIT_USAGE;
	}
	strcpy(a.agent, agent);
	a.pid = getppid();
	if (pid != NULL) {
		int v;
		if (num_parse_int(pid, 1, 1 << 22, &v) < 0) {
			msg_fatal("bad --pid %.32s", pid);
			return EXIT_USAGE;
		}
		a.pid = v;
	}
	if (proc_starttime(a.pid, &a.pid_start) < 0) {
		msg_fatal_sys("process %" PRId64, a.pid);
		return EXIT_USAGE;
	}
	a.start = (int64_t)time(NULL);
	if (rnd_hex(a.id, STORE_ID_LEN / 2) < 0) {
		msg_fatal_sys("getrandom");
		return EXIT_USAGE;
	}
	if ((afd = open_sub(s, "attempts")) < 0)
		return EXIT_NO;
	/* under the lock: a concurrent reap never takes our temp file for
	 * the leftover of a killed write */
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		return EXIT_USAGE;
	}
	if (write_record(afd, &a) < 0) {
		msg_fatal_sys("unable to write the attempt record");
		return EXIT_USAGE;
	}
	close(lk);
	printf("%s\n", a.id);
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

int
ss_end(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "status", required_argument, NULL, 's' },
		{ "platform", required_argument, NULL, 'p' },
		{ "tier", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *status = NULL, *platform = NULL, *tier = NULL, *id;
	struct attempt a;
	int c, afd, lk, st;

	id = take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 's': status = optarg; break;
		case 'p': platform = optarg; break;
		case 't': tier = optarg; break;
		default: return usage_err();
		}
	}
	if ((id = operand(id, argc, argv)) == NULL || status == NULL) {
		msg_usage("end ID --status N [--platform P] [--tier T]");
		return EXIT_USAGE;
	}
	if (!store_id_ok(id)) {
		msg_fatal("bad attempt id (want 32 lowercase hex digits)");
		return EXIT_USAGE;
	}
	if (num_parse_int(status, 0, 255, &st) < 0) {
		msg_fatal("bad --status %.16s (want 0 to 255)", status);
		return EXIT_USAGE;
	}
	if ((platform && !store_label_ok(platform)) || (tier && !store_label_ok(tier))) {
		msg_fatal("bad --platform or --tier (want [A-Za-z0-9._:+-], at most 32)");
		return EXIT_USAGE;
	}
	if ((afd = open_sub(s, "attempts")) < 0)
		return EXIT_NO;
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		return EXIT_USAGE;
	}
	if (store_read_attempt(afd, id, &a) < 0) {
		msg_fatal_sys("attempt %s", id);
		return errno == ENOENT ? EXIT_NO : EXIT_USAGE;
	}
	if (a.ended) {
		msg_fatal("attempt %s has already ended", id);
		return EXIT_NO;
	}
	a.ended = 1;
	a.end = (int64_t)time(NULL);
	a.status = st;
	snprintf(a.platform, sizeof a.platform, "%s", platform ? platform : "");
	snprintf(a.tier, sizeof a.tier, "%s", tier ? tier : "");
	if (write_record(afd, &a) < 0) {
		msg_fatal_sys("unable to write the attempt record");
		return EXIT_USAGE;
	}
	close(lk);
	return 0;
}

static void
print_text(const struct attempt *a)
{
	char end[24] = "-", st[8] = "-";

	if (a->ended) {
		snprintf(end, sizeof end, "%" PRId64, a->end);
		snprintf(st, sizeof st, "%d", a->status);
	}
	printf("%s\t%s\t%" PRId64 "\t%" PRId64 "\t%s\t%s\t%s\t%s\n", a->id, a->agent, a->pid, a->start,
	    end, st, a->platform[0] ? a->platform : "-", a->tier[0] ? a->tier : "-");
}

static void
print_json(const struct attempt *a)
{
	char buf[STORE_RECORD_MAX];
	int n = attempt_format(a, buf, sizeof buf);

	if (n > 0)
		printf("%.*s", n - 1, buf);	/* without the newline */
}

static int
cmp_attempt(const void *x, const void *y)
{
	const struct attempt *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return strcmp(a->id, b->id);
}

int
ss_list(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct attempt *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int c, json = 0, afd;

	OPTLOOP(opts) {
		switch (c) {
		case 'j': json = 1; break;
		default: return usage_err();
		}
	}
	if (optind != argc)
		return usage_err();
	if ((afd = open_sub(s, "attempts")) < 0)
		return EXIT_NO;
	d = fdopendir(afd);
	if (d == NULL) {
		msg_fatal_sys("unable to read attempts");
		return EXIT_USAGE;
	}
	while ((de = readdir(d)) != NULL) {
		if (!store_id_ok(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof *v);
			if (nv == NULL) {
				msg_fatal_sys("list");
				free(v);
				return EXIT_USAGE;
			}
			v = nv;
		}
		if (store_read_attempt(dirfd(d), de->d_name, &v[n]) < 0) {
			msg_warn("attempt %s: unreadable record, skipped", de->d_name);
			continue;
		}
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_attempt);
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		if (json) {
			printf("%s", i ? "," : "");
			print_json(&v[i]);
		} else {
			print_text(&v[i]);
		}
	}
	if (json)
		printf("]\n");
	free(v);
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

int
ss_show(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct attempt a;
	const char *id;
	int c, json = 0, afd;

	id = take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'j': json = 1; break;
		default: return usage_err();
		}
	}
	if ((id = operand(id, argc, argv)) == NULL)
		return usage_err();
	if (!store_id_ok(id)) {
		msg_fatal("bad attempt id (want 32 lowercase hex digits)");
		return EXIT_USAGE;
	}
	if ((afd = open_sub(s, "attempts")) < 0)
		return EXIT_NO;
	if (store_read_attempt(afd, id, &a) < 0) {
		msg_fatal_sys("attempt %s", id);
		return errno == ENOENT ? EXIT_NO : EXIT_USAGE;
	}
	if (json) {
		print_json(&a);
		printf("\n");
	} else {
		printf("id %s\nagent %s\npid %" PRId64 "\nstart %" PRId64 "\n", a.id, a.agent, a.pid, a.start);
		if (a.ended)
			printf("end %" PRId64 "\nstatus %d\nplatform %s\ntier %s\n", a.end, a.status,
			    a.platform[0] ? a.platform : "-", a.tier[0] ? a.tier : "-");
		else
			printf("end -\n");
	}
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

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
static int
read_source(const char *path, int fd, size_t max, const char *what, char **out, size_t *len)
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

static int
parse_fd(const char *s, int *fd)
{
	if (num_parse_int(s, 0, 1023, fd) < 0 || fcntl(*fd, F_GETFD) < 0) {
		msg_fatal("bad descriptor %.16s (want an open fd, 0 to 1023)", s);
		return -1;
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

	name = take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'a': agent = optarg; break;
		case 'A': acctfile = optarg; break;
		default: return usage_err();
		}
	}
	if ((name = operand(name, argc, argv)) == NULL || (acctfile && !agent)) {
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
	if ((r = read_source(NULL, 0, STORE_SECRET_MAX, "the secret on stdin", &buf, &len)) != 0)
		return r;
	if (len == 0) {
		msg_fatal("the secret on stdin is empty");
		free(buf);
		return EXIT_NO;
	}
	if (acctfile && (r = read_source(acctfile, -1, PROF_FILE_MAX, acctfile, &abuf, &alen)) != 0) {
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
		msg_fatal_sys("put");
		free(buf);
		return EXIT_USAGE;
	}
	memcpy(all, hdr, (size_t)hn);
	memcpy(all + hn, buf, len);
	free(buf);
	if ((cfd = open_sub(s, "creds")) < 0 || (lk = store_lock(s->fd)) < 0) {
		free(all);
		return cfd < 0 ? EXIT_NO : EXIT_USAGE;
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

	name = take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'a': id = optarg; break;
		case 'f': fdarg = optarg; break;
		default: return usage_err();
		}
	}
	if ((name = operand(name, argc, argv)) == NULL || id == NULL) {
		msg_usage("release NAME --attempt ID [--fd N]");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(name) || !store_id_ok(id)) {
		msg_fatal("bad credential name or attempt id");
		return EXIT_USAGE;
	}
	if (fdarg != NULL && parse_fd(fdarg, &out) < 0)
		return EXIT_USAGE;
	r = store_release(s->fd, name, id, out, err, sizeof err);
	if (r != 0) {
		msg_fatal("%s", err);
		return r == 1 ? EXIT_NO : EXIT_USAGE;
	}
	return 0;
}

int
ss_renew(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "from-fd", required_argument, NULL, 'F' },
		{ "account-from", required_argument, NULL, 'a' },
		{ "account-fd", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	const char *from = NULL, *fromfd = NULL, *acct = NULL, *acctfd = NULL, *name, *why;
	char *nbuf = NULL, *abuf = NULL, *obuf = NULL, *all = NULL, hdr[2048], newacct[PROF_ACCOUNT_MAX];
	size_t nlen, alen = 0, olen, off;
	const struct profile *p;
	struct credhdr h;
	int64_t oexp, nexp;
	int c, ffd = -1, afdn = -1, cfd, lk = -1, r, hn, rc = EXIT_USAGE;
	char err[160];

	name = take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'f': from = optarg; break;
		case 'F': fromfd = optarg; break;
		case 'a': acct = optarg; break;
		case 'A': acctfd = optarg; break;
		default: return usage_err();
		}
	}
	if ((name = operand(name, argc, argv)) == NULL || !!from == !!fromfd || (acct && acctfd)) {
		msg_usage("renew NAME (--from FILE | --from-fd N) [--account-from FILE | --account-fd N]");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(name)) {
		msg_fatal("bad credential name");
		return EXIT_USAGE;
	}
	if ((fromfd && parse_fd(fromfd, &ffd) < 0) || (acctfd && parse_fd(acctfd, &afdn) < 0))
		return EXIT_USAGE;
	if ((r = read_source(from, ffd, STORE_SECRET_MAX, "the renewed sign-in", &nbuf, &nlen)) != 0)
		return r;
	if ((acct || acctfd) && (r = read_source(acct, afdn, PROF_FILE_MAX, "the account file", &abuf, &alen)) != 0) {
		rc = r;
		goto out;
	}
	if ((cfd = open_sub(s, "creds")) < 0) {
		rc = EXIT_NO;
		goto out;
	}
	/* Under the lock, each renewal compares with what is stored now:
	 * of parallel renewals the latest expiry wins, whatever the order. */
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		goto out;
	}
	if (file_read_bounded(cfd, name, STORE_SECRET_MAX + 4096, &obuf, &olen) < 0) {
		msg_fatal_sys("credential %s", name);
		rc = errno == ENOENT ? EXIT_NO : EXIT_USAGE;
		goto out;
	}
	if (cred_split(obuf, olen, &h, &off) < 0) {
		msg_fatal("credential %s: damaged header", name);
		goto out;
	}
	if (h.agent[0] == '\0') {
		msg_fatal("renewal refused: %s was stored without --agent, so it names no account", name);
		rc = EXIT_NO;
		goto out;
	}
	if ((p = profiles_find(&s->prof, h.agent)) == NULL) {
		msg_fatal("no profile for agent %s (of %s)", h.agent, name);
		goto out;
	}
	if (prof_expiry(&p->expiry, obuf + off, olen - off, &oexp, err, sizeof err) < 0)
		oexp = 0;	/* a stored sign-in we cannot read any more: any valid one is later */
	if (inspect(p, nbuf, nlen, abuf, alen, &nexp, newacct, "renewal refused") != 0) {
		rc = EXIT_NO;
		goto out;
	}
	if (prof_renew_ok(oexp, h.account, nexp, newacct, (int64_t)time(NULL), p->max_ahead, &why) < 0) {
		msg_fatal("renewal refused: %s", why);
		rc = EXIT_NO;
		goto out;
	}
	hn = cred_header_format(&h, hdr, sizeof hdr);
	all = hn < 0 ? NULL : malloc((size_t)hn + nlen);
	if (all == NULL) {
		msg_fatal_sys("renew");
		goto out;
	}
	memcpy(all, hdr, (size_t)hn);
	memcpy(all + hn, nbuf, nlen);
	if (file_write_atomic(cfd, name, all, (size_t)hn + nlen, 0600) < 0) {
		msg_fatal_sys("unable to store %s", name);
		goto out;
	}
	rc = 0;
out:
	if (lk >= 0)
		close(lk);
	if (all)
		explicit_bzero(all, strlen(hdr) + nlen);
	if (obuf)
		explicit_bzero(obuf, olen);
	if (nbuf)
		explicit_bzero(nbuf, nlen);
	free(all);
	free(obuf);
	free(nbuf);
	free(abuf);
	return rc;
}

static int
older(int dirfd, const char *name, int64_t now, uint64_t bound)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	return now - (int64_t)st.st_mtime >= (int64_t)bound;
}

/* Remove released/ID.* markers and STORE/attempt-ID-* trees. */
static int
reap_one(int sfd, int rfd, const char *id)
{
	char prefix[8 + STORE_ID_LEN + 2], rid[STORE_ID_LEN + 1], ragent[PROF_NAME_MAX + 1];
	struct dirent *de;
	DIR *d;
	int fd, bad = 0;

	fd = dup(rfd);
	if (fd < 0 || (d = fdopendir(fd)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, id, STORE_ID_LEN) == 0 && de->d_name[STORE_ID_LEN] == '.')
			if (unlinkat(rfd, de->d_name, 0) < 0 && errno != ENOENT)
				bad = 1;
	closedir(d);
	snprintf(prefix, sizeof prefix, "attempt-%s-", id);
	fd = dup(sfd);
	if (fd < 0 || (d = fdopendir(fd)) == NULL)
		return -1;
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 ||
		    store_attempt_name(de->d_name, rid, ragent) < 0)
			continue;
		if (rmtree_at(sfd, de->d_name) < 0) {
			msg_warn_sys("unable to remove %s", de->d_name);
			bad = 1;
		}
	}
	closedir(d);
	return bad ? -1 : 0;
}

int
ss_reap(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "older-than", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t bound = REAP_DEFAULT, st;
	char rid[STORE_ID_LEN + 1], ragent[PROF_NAME_MAX + 1];
	struct attempt a;
	struct dirent *de;
	int64_t now = (int64_t)time(NULL);
	int c, afd, rfd, cfd, lk, fd, bad = 0;
	DIR *d;

	OPTLOOP(opts) {
		switch (c) {
		case 'o':
			if (num_parse_duration(optarg, &bound) < 0 || bound > (uint64_t)INT32_MAX * 100) {
				msg_fatal("bad --older-than %.32s (want N, Ns, Nm, Nh or Nd)", optarg);
				return EXIT_USAGE;
			}
			break;
		default: return usage_err();
		}
	}
	if (optind != argc)
		return usage_err();
	if ((afd = open_sub(s, "attempts")) < 0 || (rfd = open_sub(s, "released")) < 0 ||
	    (cfd = open_sub(s, "creds")) < 0)
		return EXIT_NO;
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		return EXIT_USAGE;
	}
	/* Records whose process is gone and which are older than the bound. */
	fd = dup(afd);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		msg_fatal_sys("unable to read attempts");
		return EXIT_USAGE;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp-") && older(afd, de->d_name, now, bound)) {
			unlinkat(afd, de->d_name, 0);	/* a write killed midway */
			continue;
		}
		if (!store_id_ok(de->d_name) || store_read_attempt(afd, de->d_name, &a) < 0)
			continue;
		if (now - a.start < (int64_t)bound)
			continue;
		if (proc_starttime(a.pid, &st) == 0 && st == a.pid_start)
			continue;	/* still running */
		if (reap_one(s->fd, rfd, a.id) < 0) {
			bad = 1;
			continue;
		}
		if (unlinkat(afd, a.id, 0) < 0) {
			msg_warn_sys("unable to remove the record of %s", a.id);
			bad = 1;
			continue;
		}
		printf("%s\n", a.id);
	}
	closedir(d);
	/* Trees left without a record, and temp files of killed writes. */
	fd = dup(s->fd);
	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (store_attempt_name(de->d_name, rid, ragent) < 0 ||
			    faccessat(afd, rid, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || !older(s->fd, de->d_name, now, bound))
				continue;
			if (rmtree_at(s->fd, de->d_name) < 0) {
				msg_warn_sys("unable to remove %s", de->d_name);
				bad = 1;
			} else {
				printf("%s\n", rid);
			}
		}
		closedir(d);
	}
	fd = dup(cfd);
	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp-") && older(cfd, de->d_name, now, bound))
				unlinkat(cfd, de->d_name, 0);
		closedir(d);
	}
	close(lk);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return bad ? EXIT_USAGE : 0;
}
