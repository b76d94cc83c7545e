/* session-store: credentials (put, release at most once; renew and restore are in renew.c). */
#include <sys/stat.h>
#include <dirent.h>
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
#include "verify.h"

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

/* put --verify: a sign-in fit to keep. Its expiry is plausible, and where
 * the profile has a verification request the provider, asked with its
 * token, names the account the files name. Says what it took on stdout;
 * 0, or 1 refused (said). */
static int
confirm(struct ss *s, const struct profile *p, const char *buf, size_t len, int64_t exp, const char *acct)
{
	char *tok, got[PROF_ACCOUNT_MAX], e2[160], when[32];
	const char *why;
	time_t t = (time_t)exp;
	struct tm tm;
	int r;

	if (prof_renew_ok(0, acct, exp, acct, (int64_t)time(NULL), p->max_ahead, &why) < 0) {
		msg_fatal("sign-in for %s refused: %s", p->name, why);
		return 1;
	}
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	if (p->verify.url[0] == '\0') {
		printf("%s: account %s (as its sign-in says: the profile has no verification request), expires %s\n",
		    p->name, acct, when);
		return 0;
	}
	if ((tok = malloc(PROF_TOKEN_MAX + 1)) == NULL) {
		msg_fatal("out of memory");
		return 1;
	}
	r = prof_token(&p->verify, buf, len, tok, PROF_TOKEN_MAX + 1, e2, sizeof e2);
	if (r < 0)
		msg_fatal("sign-in for %s refused: its token: %s", p->name, e2);
	else if ((r = verify_account(&p->verify, tok, s->test_cacert, got, sizeof got, e2, sizeof e2)) < 0)
		msg_fatal("sign-in for %s refused: the account could not be verified (%s)", p->name, e2);
	else if ((r = strcmp(got, acct) != 0 ? -1 : 0) < 0)
		msg_fatal("sign-in for %s refused: the provider says its token belongs to another account than the sign-in names (%s)",
		    p->name, acct);
	explicit_bzero(tok, PROF_TOKEN_MAX + 1);
	free(tok);
	if (r < 0)
		return 1;
	printf("%s: account %s (confirmed by %s), expires %s\n", p->name, acct, p->verify.url, when);
	return 0;
}

int
ss_put(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "agent", required_argument, NULL, 'a' },
		{ "account-from", required_argument, NULL, 'A' },
		{ "account-fd", required_argument, NULL, 'D' },
		{ "verify", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *agent = NULL, *acctfile = NULL, *acctfd = NULL, *name;
	const struct profile *p = NULL;
	char *buf = NULL, *abuf = NULL, *all;
	size_t len, alen = 0;
	char hdr[2048];
	struct credhdr h;
	int64_t exp;
	int c, cfd, lk, hn, r, afd = -1, verify = 0;

	name = ss_take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'a': agent = optarg; break;
		case 'A': acctfile = optarg; break;
		case 'D': acctfd = optarg; break;
		case 'v': verify = 1; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if ((name = ss_operand(name, argc, argv)) == NULL || ((acctfile || acctfd || verify) && !agent) ||
	    (acctfile && acctfd)) {
		msg_usage("put NAME [--agent AGENT [--account-from FILE | --account-fd N] [--verify]] < SECRET");
		return EXIT_USAGE;
	}
	if (acctfd && ss_parse_fd(acctfd, &afd) < 0)
		return EXIT_USAGE;
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
	if ((acctfile || acctfd) &&
	    (r = ss_read_source(acctfile, afd, PROF_FILE_MAX, acctfile ? acctfile : "the account file", &abuf, &alen)) != 0) {
		free(buf);
		return r;
	}
	if (p != NULL) {
		strcpy(h.agent, p->name);
		if (inspect(p, buf, len, abuf, alen, &exp, h.account, "sign-in") != 0 ||
		    (verify && confirm(s, p, buf, len, exp, h.account) != 0)) {
			free(buf);
			free(abuf);
			return EXIT_NO;
		}
	}
	free(abuf);
	h.since = (int64_t)time(NULL);
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

/* release NAME and env-release PROJECT: one shape, two kinds */
int
ss_release_cmd(struct ss *s, int argc, char **argv, int env)
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
		msg_usage("%s --attempt ID [--fd N]", env ? "env-release PROJECT" : "release NAME");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(name) || !store_id_ok(id)) {
		msg_fatal("bad %s or attempt id", env ? "project name" : "credential name");
		return EXIT_USAGE;
	}
	if (fdarg != NULL && ss_parse_fd(fdarg, &out) < 0)
		return EXIT_USAGE;
	r = env ? store_release_env(s->fd, name, id, out, err, sizeof err) :
	    store_release(s->fd, name, id, out, err, sizeof err);
	if (r != 0) {
		msg_fatal("%s", err);
		if (env && r == 1 && errno == ENOENT)
			msg_hint("set its variables with: corral env set %s NAME", name);
		return r == 1 ? EXIT_NO : EXIT_USAGE;
	}
	return 0;
}

int
ss_release(struct ss *s, int argc, char **argv)
{
	return ss_release_cmd(s, argc, argv, 0);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
put_time(int64_t v, const char *none)
{
	char when[32];
	time_t t = (time_t)v;
	struct tm tm;

	if (v <= 0 || gmtime_r(&t, &tm) == NULL)
		fputs(none, stdout);
	else {
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		fputs(when, stdout);
	}
}

/* signins: each stored sign-in (a credential put with --agent), by name:
 * NAME AGENT ACCOUNT EXPIRES SINCE RENEWED, tab-separated. Never a token. */
int
ss_signins(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	char *names[1024], *buf, err[160];
	size_t n = 0, len, off;
	struct dirent *de;
	struct credhdr h;
	int64_t exp;
	int c, cfd, r = 0;
	DIR *d;

	OPTLOOP(opts)
		return ss_badopt(c, argc, argv);
	if (optind != argc) {
		msg_usage("signins");
		return EXIT_USAGE;
	}
	if ((cfd = ss_open_sub(s, "creds")) < 0)
		return -cfd;
	if ((d = fdopendir(dup(cfd))) == NULL) {
		msg_fatal_sys("unable to read %s/creds", s->store);
		close(cfd);
		return EXIT_USAGE;
	}
	while ((de = readdir(d)) != NULL && n < sizeof names / sizeof names[0])
		if (prof_name_ok(de->d_name) && (names[n] = strdup(de->d_name)) != NULL)
			n++;
	closedir(d);
	qsort(names, n, sizeof names[0], name_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct profile *p;
		if (file_read_bounded(cfd, names[i], STORE_SECRET_MAX + 4096, &buf, &len) < 0)
			continue;	/* removed meanwhile */
		if (cred_split(buf, len, &h, &off) < 0) {
			msg_warn("credential %s: damaged header", names[i]);
			r = EXIT_USAGE;
		} else if (h.agent[0]) {
			p = profiles_find(&s->prof, h.agent);
			if (p == NULL || prof_expiry(&p->expiry, buf + off, len - off, &exp, err, sizeof err) < 0)
				exp = 0;
			printf("%s\t%s\t%s\t", names[i], h.agent, h.account);
			put_time(exp, "-");
			putchar('\t');
			put_time(h.since, "-");
			putchar('\t');
			put_time(h.renewed, "never");
			putchar('\n');
		}
		explicit_bzero(buf, len);
		free(buf);
		free(names[i]);
	}
	close(cfd);
	if (fflush(stdout) != 0) {
		msg_fatal_sys("unable to write to standard output");
		return EXIT_USAGE;
	}
	return r;
}

/* remove NAME: the stored credential and the one its last renewal replaced */
int
ss_remove(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	const char *name;
	int c, cfd, pfd, lk, r = 0;

	name = ss_take_operand(&argc, &argv);
	OPTLOOP(opts)
		return ss_badopt(c, argc, argv);
	if ((name = ss_operand(name, argc, argv)) == NULL) {
		msg_usage("remove NAME");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(name)) {
		msg_fatal("bad credential name (want %s)", PROF_NAME_RULE);
		return EXIT_USAGE;
	}
	if ((r = ss_open_creds_prev(s, &cfd, &pfd)) < 0)
		return -r;
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		r = EXIT_USAGE;
	} else if (unlinkat(cfd, name, 0) < 0) {
		msg_fatal_sys("credential %s", name);
		r = errno == ENOENT ? EXIT_NO : EXIT_USAGE;
	} else if (unlinkat(pfd, name, 0) < 0 && errno != ENOENT) {
		msg_fatal_sys("unable to remove the previous %s", name);
		r = EXIT_USAGE;
	}
	if (lk >= 0)
		close(lk);
	close(cfd);
	close(pfd);
	return r;
}
