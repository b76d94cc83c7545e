/* session-store renew and restore: a renewed sign-in replaces the stored
 * one only when the account it belongs to is established by what the agent
 * cannot forge: the account the store recorded at put, and the provider's
 * answer to the profile's verification request made with the new token.
 * Nothing the agent wrote names the account (its ~/.claude.json, the
 * account_id in its auth.json, an unsigned JWT claim: all its own writing).
 * Where the account cannot be established (no verification request, no
 * network, an error, another account) or the expiry is not plausible, the
 * renewal is not taken back and the stored sign-in stays. The sign-in a
 * renewal replaces is kept in prev/NAME; restore puts it back. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdio.h"
#include "msg.h"
#include "ss.h"
#include "store.h"
#include "verify.h"

struct stored {
	char *buf;
	size_t len, off;
	struct credhdr h;
	int64_t exp;
};

static void
stored_free(struct stored *o)
{
	if (o->buf) {
		explicit_bzero(o->buf, o->len);
		free(o->buf);
	}
	o->buf = NULL;
}

/* creds/NAME (or prev/NAME) into o; 0, or the exit status after a message. */
static int
read_stored(struct ss *s, int dfd, const char *name, const char *what, struct stored *o)
{
	const struct profile *p;
	char err[160];

	memset(o, 0, sizeof *o);
	if (file_read_bounded(dfd, name, STORE_SECRET_MAX + 4096, &o->buf, &o->len) < 0) {
		msg_fatal_sys("%s %s", what, name);
		return errno == ENOENT ? EXIT_NO : EXIT_USAGE;
	}
	if (cred_split(o->buf, o->len, &o->h, &o->off) < 0) {
		msg_fatal("%s %s: damaged header", what, name);
		stored_free(o);
		return EXIT_USAGE;
	}
	if (o->h.agent[0] && (p = profiles_find(&s->prof, o->h.agent)) != NULL &&
	    prof_expiry(&p->expiry, o->buf + o->off, o->len - o->off, &o->exp, err, sizeof err) < 0)
		o->exp = 0;	/* a stored sign-in we cannot read any more: any valid one is later */
	return 0;
}

/* The one line a refused renewal gets, and how to sign in again. */
static int
refuse(const struct profile *p, const char *name, const char *why)
{
	msg_fatal("renewed sign-in %s not taken back: %s; the stored sign-in stays", name, why);
	if (p == NULL)
		return EXIT_NO;
	if (p->account.file[0])
		msg_hint("to sign in again, sign in with %s outside corral, then: session-store put %s --agent %s --account-from ~/%s < ~/%s",
		    p->name, name, p->name, p->account.file, p->signin);
	else
		msg_hint("to sign in again, sign in with %s outside corral, then: session-store put %s --agent %s < ~/%s",
		    p->name, name, p->name, p->signin);
	return EXIT_NO;
}

/* Is nbuf a plausible, later sign-in of the stored account? 0 yes; else
 * why (static text, or the verification's reason in err). */
static int
identify(struct ss *s, const struct profile *p, const struct stored *o, const char *nbuf,
    size_t nlen, int64_t *nexp, const char **why, char *err, size_t errn)
{
	char acct[PROF_ACCOUNT_MAX], *tok;
	char e2[160];
	int r;

	if (prof_expiry(&p->expiry, nbuf, nlen, nexp, e2, sizeof e2) < 0) {
		snprintf(err, errn, "its expiry: %s", e2);
		return *why = err, -1;
	}
	/* the account compared here is the store's own: only the expiry decides */
	if (prof_renew_ok(o->exp, o->h.account, *nexp, o->h.account, (int64_t)time(NULL), p->max_ahead, why) < 0)
		return -1;
	if (p->verify.url[0] == '\0') {
		snprintf(err, errn, "profile %s has no verification request, so the account it belongs to cannot be established", p->name);
		return *why = err, -1;
	}
	if ((tok = malloc(PROF_TOKEN_MAX + 1)) == NULL)
		return *why = "out of memory", -1;
	if (prof_token(&p->verify, nbuf, nlen, tok, PROF_TOKEN_MAX + 1, e2, sizeof e2) < 0) {
		free(tok);
		snprintf(err, errn, "its token: %s", e2);
		return *why = err, -1;
	}
	r = verify_account(&p->verify, tok, s->test_cacert, acct, sizeof acct, e2, sizeof e2);
	explicit_bzero(tok, PROF_TOKEN_MAX + 1);
	free(tok);
	if (r < 0) {
		snprintf(err, errn, "the account could not be verified (%s)", e2);
		return *why = err, -1;
	}
	if (strcmp(acct, o->h.account) != 0)
		return *why = "the provider says its token belongs to another account", -1;
	/* the rest of it as a whole: nothing else is the agent's to change */
	if (prof_renew_whole(p, o->buf + o->off, o->len - o->off, nbuf, nlen, o->h.account, err, errn) < 0)
		return *why = err, -1;
	return 0;
}

/* header + secret into dfd/name, atomically */
static int
write_cred(int dfd, const char *name, const struct credhdr *h, const char *sec, size_t n)
{
	char hdr[2048], *all;
	int hn = cred_header_format(h, hdr, sizeof hdr), r;

	if (hn < 0 || (all = malloc((size_t)hn + n)) == NULL)
		return -1;
	memcpy(all, hdr, (size_t)hn);
	memcpy(all + hn, sec, n);
	r = file_write_atomic(dfd, name, all, (size_t)hn + n, 0600);
	explicit_bzero(all, (size_t)hn + n);
	free(all);
	return r;
}

static int
renew_args(int argc, char **argv, const char **name, int *ffd, const char **from)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "from-fd", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fromfd = NULL;
	int c;

	*name = ss_take_operand(&argc, &argv);
	*from = NULL;
	OPTLOOP(opts) {
		switch (c) {
		case 'f': *from = optarg; break;
		case 'F': fromfd = optarg; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	*name = ss_operand(*name, argc, argv);
	if (*name == NULL || !!*from == !!fromfd) {
		msg_usage("renew NAME (--from FILE | --from-fd N)");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(*name)) {
		msg_fatal("bad credential name");
		return EXIT_USAGE;
	}
	if (fromfd && ss_parse_fd(fromfd, ffd) < 0)
		return EXIT_USAGE;
	return 0;
}

int
ss_renew(struct ss *s, int argc, char **argv)
{
	const char *from, *name, *why;
	char *nbuf = NULL, err[512];
	struct stored o = { 0 }, now = { 0 };
	const struct profile *p = NULL;
	size_t nlen = 0;
	int64_t nexp;
	int ffd = -1, cfd = -1, pfd, lk = -1, rc;

	if ((rc = renew_args(argc, argv, &name, &ffd, &from)) != 0)
		return rc;
	if ((rc = ss_read_source(from, ffd, STORE_SECRET_MAX, "the renewed sign-in", &nbuf, &nlen)) != 0)
		return rc;
	if ((cfd = ss_open_sub(s, "creds")) < 0) {
		rc = -cfd;
		goto out;
	}
	if ((rc = read_stored(s, cfd, name, "credential", &o)) != 0)
		goto out;
	rc = EXIT_USAGE;
	if (o.h.agent[0] == '\0') {
		rc = refuse(NULL, name, "it was stored without --agent, so it names no account");
		goto out;
	}
	if ((p = profiles_find(&s->prof, o.h.agent)) == NULL) {
		msg_fatal("no profile for agent %s (of %s)", o.h.agent, name);
		goto out;
	}
	/* the network request is made before the lock is taken */
	if (identify(s, p, &o, nbuf, nlen, &nexp, &why, err, sizeof err) < 0) {
		rc = refuse(p, name, why);
		goto out;
	}
	/* Under the lock, compare with what is stored now: of parallel
	 * renewals the latest expiry wins, whatever the order. */
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		goto out;
	}
	if ((rc = read_stored(s, cfd, name, "credential", &now)) != 0)
		goto out;
	rc = EXIT_USAGE;
	if (strcmp(now.h.agent, o.h.agent) != 0 || strcmp(now.h.account, o.h.account) != 0) {
		rc = refuse(p, name, "the stored sign-in was replaced meanwhile");
		goto out;
	}
	if (nexp <= now.exp) {
		rc = refuse(p, name, "it does not expire later than the stored one");
		goto out;
	}
	/* the last good one is never destroyed: prev/NAME */
	if ((pfd = ss_open_sub(s, "prev")) < 0) {
		rc = -pfd;
		goto out;
	}
	if (file_write_atomic(pfd, name, now.buf, now.len, 0600) < 0) {
		msg_fatal_sys("unable to keep the previous %s", name);
		close(pfd);
		goto out;
	}
	close(pfd);
	now.h.renewed = (int64_t)time(NULL);	/* signin --status: the last renewal */
	if (write_cred(cfd, name, &now.h, nbuf, nlen) < 0) {
		msg_fatal_sys("unable to store %s", name);
		goto out;
	}
	rc = 0;
out:
	if (lk >= 0)
		close(lk);
	if (cfd >= 0)
		close(cfd);
	stored_free(&o);
	stored_free(&now);
	if (nbuf) {
		explicit_bzero(nbuf, nlen);
		free(nbuf);
	}
	return rc;
}

/* restore NAME: the sign-in the last renewal replaced comes back; the one
 * it replaces becomes the previous one (restore undoes itself). */
int
ss_restore(struct ss *s, int argc, char **argv)
{
	struct stored cur = { 0 }, prev = { 0 };
	const char *name;
	int c, cfd = -1, pfd = -1, lk = -1, rc = EXIT_USAGE, e;
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };

	name = ss_take_operand(&argc, &argv);
	OPTLOOP(opts)
		return ss_badopt(c, argc, argv);
	if ((name = ss_operand(name, argc, argv)) == NULL) {
		msg_usage("restore NAME");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(name)) {
		msg_fatal("bad credential name");
		return EXIT_USAGE;
	}
	if ((e = ss_open_creds_prev(s, &cfd, &pfd)) < 0)
		return -e;
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		goto out;
	}
	if ((rc = read_stored(s, pfd, name, "no previous sign-in: credential", &prev)) != 0)
		goto out;
	rc = EXIT_USAGE;
	if (read_stored(s, cfd, name, "credential", &cur) == 0 &&
	    file_write_atomic(pfd, name, cur.buf, cur.len, 0600) < 0) {
		msg_fatal_sys("unable to keep the current %s", name);
		goto out;
	}
	if (file_write_atomic(cfd, name, prev.buf, prev.len, 0600) < 0) {
		msg_fatal_sys("unable to restore %s", name);
		goto out;
	}
	if (cur.buf == NULL)
		unlinkat(pfd, name, 0);
	rc = 0;
out:
	if (lk >= 0)
		close(lk);
	close(cfd);
	close(pfd);
	stored_free(&cur);
	stored_free(&prev);
	return rc;
}
