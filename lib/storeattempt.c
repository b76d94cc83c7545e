/* storeattempt: see storeattempt.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fdio.h"
#include "msg.h"
#include "rmtree.h"
#include "rnd.h"
#include "rundir.h"
#include "status.h"
#include "storeattempt.h"

/* A store subdirectory (made when missing), or the negated exit status
 * after a fatal message: one that fails its checks is a refusal. */
static int
open_sub(int sfd, const char *store, const char *name)
{
	char err[256];
	int fd = store_subdir(sfd, name, 1, err, sizeof err);

	if (fd < 0) {
		msg_fatal("store %s: %s", store, err);
		return errno == EPERM ? -EXIT_NO : -EXIT_USAGE;
	}
	return fd;
}

/* The attempts folder, under the store's lock (*lk): its descriptor, or
 * the negated exit status after a fatal message. */
static int
open_attempts_locked(int sfd, const char *store, int *lk)
{
	int afd = open_sub(sfd, store, "attempts");

	if (afd < 0)
		return afd;
	if ((*lk = store_lock(sfd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		close(afd);
		return -EXIT_USAGE;
	}
	return afd;
}

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* Attempt bookkeeping: atomic (a temp file renamed into place), not
 * fsynced; losing a record to a power cut loses nothing that matters.
 * New (begin): renamed with RENAME_NOREPLACE, so an id already recorded
 * is refused (EEXIST) by the rename itself. Not new (end): exchanged with
 * the record (RENAME_EXCHANGE), the old one then unlinked: a rename over
 * an existing file makes ext4 (auto_da_alloc) allocate and start writing
 * the new one at once, and unlinking that file at the next begin's reap
 * then took 0.23-0.39 ms on the path to the agent (0.03 ms after an
 * exchange). Either is the plain rename where the filesystem (EINVAL)
 * or a seccomp filter refuses renameat2; readers without the lock see the old record
 * or the new, never a part. */
static int
write_record(int afd, const struct attempt *a, int new)
{
	char buf[STORE_RECORD_MAX], tmp[STORE_ID_LEN + 32], nonce[17];
	int n = attempt_format(a, buf, sizeof buf), fd, e;

	if (n < 0 || rnd_hex(nonce, 8) < 0)
		return -1;
	snprintf(tmp, sizeof tmp, ".%s.tmp-%s", a->id, nonce);
	fd = openat(afd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0600) < 0 || fd_write_all(fd, buf, (size_t)n) < 0) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0) {
		e = errno;
		goto fail;
	}
	if (syscall(SYS_renameat2, afd, tmp, afd, a->id, new ? RENAME_NOREPLACE : RENAME_EXCHANGE) == 0) {
		if (!new)
			(void)unlinkat(afd, tmp, 0);	/* the old record (a killed end's: reap's) */
		return 0;
	}
	e = errno;
	if (e == EINVAL || e == ENOSYS || e == EOPNOTSUPP || e == EPERM) {	/* EPERM: a seccomp filter's */
		if (new && faccessat(afd, a->id, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			e = EEXIST;
		else if (renameat(afd, tmp, afd, a->id) == 0)
			return 0;
		else
			e = errno;
	}
fail:
	(void)unlinkat(afd, tmp, 0);
	return errno = e, -1;
}

static int reap(int sfd, const char *store, const char *trees, uint64_t bound, int print, int afd,
    const char *self);

int
store_attempt_begin(int sfd, const char *store, const struct attempt *a, int reap_too, const char *trees,
    int *recorded)
{
	int afd, lk, r = 0;

	*recorded = 0;
	/* under the lock: a concurrent reap never takes our temp file for
	 * the leftover of a killed write */
	if ((afd = open_attempts_locked(sfd, store, &lk)) < 0)
		return afd;
	/* an id the caller chose is new, or refused: never another's record */
	if (write_record(afd, a, 1) < 0) {
		if (errno == EEXIST) {
			msg_fatal("attempt %s exists already", a->id);
			r = -EXIT_NO;
		} else {
			msg_fatal_sys("unable to write the attempt record");
			r = -EXIT_USAGE;
		}
	} else {
		*recorded = 1;
		/* the leftovers of attempts whose process is gone (ours is
		 * alive and recorded: not read again): what a killed corral
		 * left goes at the next begin; one that could not be removed
		 * is said and tried again next time */
		if (reap_too && (r = reap(sfd, store, trees, 0, 0, afd, a->id)) > 0)
			r = 0;
	}
	close(lk);
	close(afd);
	return r;
}

int
store_attempt_end(int sfd, const char *store, const char *id, int status, const char *platform,
    const char *tier)
{
	struct attempt a;
	int afd, lk, r = 0;

	if ((afd = open_attempts_locked(sfd, store, &lk)) < 0)
		return afd;
	if (store_read_attempt(afd, id, &a) < 0) {
		msg_fatal_sys("attempt %s", id);
		r = errno == ENOENT ? -EXIT_NO : -EXIT_USAGE;
	} else if (a.ended) {
		msg_fatal("attempt %s has already ended", id);
		r = -EXIT_NO;
	} else {
		a.ended = 1;
		a.end = clock_once_s();
		a.status = status;
		snprintf(a.platform, sizeof a.platform, "%s", platform ? platform : "");
		snprintf(a.tier, sizeof a.tier, "%s", tier ? tier : "");
		if (write_record(afd, &a, 0) < 0) {
			msg_fatal_sys("unable to write the attempt record");
			r = -EXIT_USAGE;
		}
	}
	close(lk);
	close(afd);
	return r;
}

enum { REAP_UNNAMED = 600 };

static int
older(int dirfd, const char *name, int64_t now, uint64_t bound)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	return now - (int64_t)st.st_mtime >= (int64_t)bound;
}

/* The directories that hold this store's attempt trees: the store itself,
 * and the runtime directory (--trees, rundir.h), where only the trees that
 * carry this store's key are its own. */
struct treedirs {
	int fd[2];
	size_t n;
};

/* 1 when NAME under dirs->fd[i] is one of this store's trees, with its id
 * in id ("" when it has none yet). */
static int
tree_of(int sfd, const struct treedirs *t, size_t i, const char *name, char *id)
{
	if (!store_tree_name_ok(name, strlen(name)))
		return 0;
	if (store_tree_id(t->fd[i], name, id) < 0) {
		id[0] = '\0';
		return 1;	/* unnamed: being made, or its maker killed */
	}
	/* in the runtime directory, another store's is not ours to reap */
	return i == 0 || rundir_tree_ours(t->fd[i], name, sfd) == 1;
}

/* The dead attempts of one reap: their ids, and whether their markers and
 * trees could be looked for (a directory that cannot be read keeps the
 * record, to be tried again). */
struct dead {
	char (*id)[STORE_ID_LEN + 1];	/* few: in own, or many, on the heap */
	char own[8][STORE_ID_LEN + 1];
	size_t n, cap;
	int unread;
};

static int
dead_add(struct dead *d, const char *id)
{
	if (d->id == NULL) {
		d->id = d->own;
		d->cap = sizeof d->own / sizeof d->own[0];
	}
	if (d->n == d->cap) {
		size_t c = 2 * d->cap;
		void *p = d->id == d->own ? malloc(c * sizeof *d->id) : realloc(d->id, c * sizeof *d->id);
		if (p == NULL)
			return -1;
		if (d->id == d->own)
			memcpy(p, d->own, sizeof d->own);
		d->id = p;
		d->cap = c;
	}
	memcpy(d->id[d->n++], id, STORE_ID_LEN + 1);
	return 0;
}

/* 1 when the first STORE_ID_LEN bytes of s are a dead attempt's id */
static int
dead_has(const struct dead *d, const char *s)
{
	for (size_t i = 0; i < d->n; i++)
		if (memcmp(d->id[i], s, STORE_ID_LEN) == 0)
			return 1;
	return 0;
}

/* released/ID.* markers of the dead attempts. */
static void
reap_markers(struct dead *dd, int rfd)
{
	struct dirent *de;
	struct dscan d;

	if (dscan_at(&d, rfd) < 0) {
		dd->unread = 1;
		return;
	}
	while ((de = dscan_next(&d)) != NULL)
		if (strlen(de->d_name) > STORE_ID_LEN && de->d_name[STORE_ID_LEN] == '.' &&
		    dead_has(dd, de->d_name))
			if (unlinkat(rfd, de->d_name, 0) < 0 && errno != ENOENT)
				msg_warn_sys("unable to remove released/%s", de->d_name);
	dscan_close(&d);
}

/* One pass over each directory of trees: the trees of the dead attempts,
 * and trees left without a record (older than the bound). */
static int
reap_trees(int sfd, const struct treedirs *t, int afd, struct dead *dd, int64_t now, uint64_t bound, int print)
{
	char rid[STORE_ID_LEN + 1];
	struct dirent *de;
	struct dscan d;
	int bad = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (dscan_at(&d, t->fd[i]) < 0) {
			dd->unread = 1;
			continue;
		}
		while ((de = dscan_next(&d)) != NULL) {
			/* a tree without its id: home-stage create is writing
			 * it now (corral reaps with --older-than 0 as another
			 * run starts), or was killed before; only the second
			 * is ever REAP_UNNAMED old */
			int known, dead;
			if (!tree_of(sfd, t, i, de->d_name, rid))
				continue;
			known = rid[0] != '\0';
			dead = known && dead_has(dd, rid);
			if (!dead && ((known && faccessat(afd, rid, F_OK, AT_SYMLINK_NOFOLLOW) == 0) ||
			    !older(t->fd[i], de->d_name, now, known || bound > REAP_UNNAMED ? bound : REAP_UNNAMED)))
				continue;
			if (rmtree_at(t->fd[i], de->d_name) < 0) {
				/* said, and (the record gone) an orphan to the next reap */
				msg_warn_sys("unable to remove %s", de->d_name);
				bad = 1;
			} else if (print && !dead) {
				printf("%s\n", known ? rid : de->d_name);
			}
		}
		dscan_close(&d);
	}
	return bad;
}

int
store_reap_locked(int sfd, const char *store, const char *trees, uint64_t bound, int print)
{
	int afd = open_sub(sfd, store, "attempts"), r;

	if (afd < 0)
		return afd;
	r = reap(sfd, store, trees, bound, print, afd, NULL);
	close(afd);
	return r;
}

/* store_reap_locked on the attempts folder afd; self: an attempt the
 * caller has just recorded for a live process (or NULL), not read again. */
static int
reap(int sfd, const char *store, const char *trees, uint64_t bound, int print, int afd, const char *self)
{
	struct treedirs t = { { sfd, -1 }, 1 };
	struct dead dd;
	struct attempt a;
	struct dirent *de;
	int64_t now = clock_once_s();
	uint64_t st;
	int rfd, cfd, bad = 0;
	struct dscan d;

	dd.id = NULL;
	dd.n = dd.cap = 0;
	dd.unread = 0;
	if (trees != NULL) {
		char err[256];
		if ((t.fd[1] = store_open(trees, 0, err, sizeof err)) >= 0)
			t.n = 2;
		else if (errno != ENOENT) {	/* none yet: nothing there to reap */
			msg_fatal("trees %s: %s", trees, err);
			return errno == EPERM ? -EXIT_NO : -EXIT_USAGE;
		}
	}
	if ((rfd = open_sub(sfd, store, "released")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, rfd;
	if ((cfd = open_sub(sfd, store, "creds")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, close(rfd), cfd;
	/* Records whose process is gone and which are older than the bound. */
	if (dscan_at(&d, afd) < 0) {
		msg_fatal_sys("unable to read attempts");
		close(rfd), close(cfd);
		if (t.n > 1)
			close(t.fd[1]);
		return -EXIT_USAGE;
	}
	while ((de = dscan_next(&d)) != NULL) {
		if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp-") && older(afd, de->d_name, now, bound)) {
			unlinkat(afd, de->d_name, 0);	/* a write killed midway */
			continue;
		}
		if ((self && strcmp(de->d_name, self) == 0) || !store_id_ok(de->d_name) ||
		    store_read_attempt(afd, de->d_name, &a) < 0)
			continue;
		if (now - a.start < (int64_t)bound)
			continue;
		if (proc_starttime(a.pid, &st) == 0 && st == a.pid_start)
			continue;	/* still running */
		if (dead_add(&dd, a.id) < 0) {
			msg_warn_sys("unable to reap %s", a.id);
			bad = 1;
		}
	}
	dscan_close(&d);
	/* Their markers, then their trees and the trees left without a
	 * record (one pass over each directory), then their records. */
	if (dd.n > 0)
		reap_markers(&dd, rfd);
	bad |= reap_trees(sfd, &t, afd, &dd, now, bound, print);
	for (size_t i = 0; i < dd.n; i++) {
		if (dd.unread) {
			bad = 1;
			break;
		}
		if (unlinkat(afd, dd.id[i], 0) < 0) {
			msg_warn_sys("unable to remove the record of %s", dd.id[i]);
			bad = 1;
			continue;
		}
		if (print)
			printf("%s\n", dd.id[i]);
	}
	if (dd.id != dd.own)
		free(dd.id);
	/* Temp files of killed writes. */
	if (dscan_at(&d, cfd) == 0) {
		while ((de = dscan_next(&d)) != NULL)
			if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp-") && older(cfd, de->d_name, now, bound))
				unlinkat(cfd, de->d_name, 0);
		dscan_close(&d);
	}
	close(rfd);
	close(cfd);
	if (t.n > 1)
		close(t.fd[1]);
	return bad;
}

int
store_attempt_new(struct attempt *a, const char *id, const char *agent, int64_t pid)
{
	memset(a, 0, sizeof *a);
	if (!store_id_ok(id) || !prof_name_ok(agent))
		return errno = EINVAL, -1;
	strcpy(a->id, id);
	strcpy(a->agent, agent);
	a->pid = pid;
	/* against the pid's reuse: reap spares it only while this process lives */
	if (proc_starttime(pid, &a->pid_start) < 0)
		return -1;
	a->start = clock_once_s();
	return 0;
}
