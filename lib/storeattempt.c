/* storeattempt: see storeattempt.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fdio.h"
#include "msg.h"
#include "rmtree.h"
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

int
store_attempt_begin(int sfd, const char *store, const struct attempt *a, int reap, const char *trees,
    int *recorded)
{
	int afd, lk, r = 0;

	*recorded = 0;
	/* under the lock: a concurrent reap never takes our temp file for
	 * the leftover of a killed write */
	if ((afd = open_attempts_locked(sfd, store, &lk)) < 0)
		return afd;
	/* an id the caller chose is new, or refused: never another's record */
	if (faccessat(afd, a->id, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		msg_fatal("attempt %s exists already", a->id);
		r = -EXIT_NO;
	} else if (write_record(afd, a) < 0) {
		msg_fatal_sys("unable to write the attempt record");
		r = -EXIT_USAGE;
	} else {
		*recorded = 1;
		/* the leftovers of attempts whose process is gone (ours is
		 * alive and recorded): what a killed corral left goes at the
		 * next begin; one that could not be removed is said and
		 * tried again next time */
		if (reap && (r = store_reap_locked(sfd, store, trees, 0, 0)) > 0)
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
		a.end = (int64_t)time(NULL);
		a.status = status;
		snprintf(a.platform, sizeof a.platform, "%s", platform ? platform : "");
		snprintf(a.tier, sizeof a.tier, "%s", tier ? tier : "");
		if (write_record(afd, &a) < 0) {
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

/* Remove released/ID.* markers and the trees whose id file names ID. */
static int
reap_one(int sfd, const struct treedirs *t, int rfd, const char *id)
{
	char tid[STORE_ID_LEN + 1];
	struct dirent *de;
	struct dscan d;
	int bad = 0;

	if (dscan_open(&d, rfd) < 0)
		return -1;
	while ((de = dscan_next(&d)) != NULL)
		if (strncmp(de->d_name, id, STORE_ID_LEN) == 0 && de->d_name[STORE_ID_LEN] == '.')
			if (unlinkat(rfd, de->d_name, 0) < 0 && errno != ENOENT)
				bad = 1;
	dscan_close(&d);
	for (size_t i = 0; i < t->n; i++) {
		if (dscan_open(&d, t->fd[i]) < 0)
			return -1;
		while ((de = dscan_next(&d)) != NULL) {
			if (!tree_of(sfd, t, i, de->d_name, tid) || strcmp(tid, id) != 0)
				continue;
			if (rmtree_at(t->fd[i], de->d_name) < 0) {
				msg_warn_sys("unable to remove %s", de->d_name);
				bad = 1;
			}
		}
		dscan_close(&d);
	}
	return bad;
}

/* Trees left without a record. */
static int
reap_orphans(int sfd, const struct treedirs *t, int afd, int64_t now, uint64_t bound, int print)
{
	char rid[STORE_ID_LEN + 1];
	struct dirent *de;
	struct dscan d;
	int bad = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (dscan_open(&d, t->fd[i]) < 0)
			continue;
		while ((de = dscan_next(&d)) != NULL) {
			/* a tree without its id: home-stage create is writing
			 * it now (corral reaps with --older-than 0 as another
			 * run starts), or was killed before; only the second
			 * is ever REAP_UNNAMED old */
			int known;
			if (!tree_of(sfd, t, i, de->d_name, rid))
				continue;
			known = rid[0] != '\0';
			if ((known && faccessat(afd, rid, F_OK, AT_SYMLINK_NOFOLLOW) == 0) ||
			    !older(t->fd[i], de->d_name, now, known || bound > REAP_UNNAMED ? bound : REAP_UNNAMED))
				continue;
			if (rmtree_at(t->fd[i], de->d_name) < 0) {
				msg_warn_sys("unable to remove %s", de->d_name);
				bad = 1;
			} else if (print) {
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
	struct treedirs t = { { sfd, -1 }, 1 };
	struct attempt a;
	struct dirent *de;
	int64_t now = (int64_t)time(NULL);
	uint64_t st;
	int afd, rfd, cfd, bad = 0;
	struct dscan d;

	if (trees != NULL) {
		char err[256];
		if ((t.fd[1] = store_open(trees, 0, err, sizeof err)) >= 0)
			t.n = 2;
		else if (errno != ENOENT) {	/* none yet: nothing there to reap */
			msg_fatal("trees %s: %s", trees, err);
			return errno == EPERM ? -EXIT_NO : -EXIT_USAGE;
		}
	}
	if ((afd = open_sub(sfd, store, "attempts")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, afd;
	if ((rfd = open_sub(sfd, store, "released")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, close(afd), rfd;
	if ((cfd = open_sub(sfd, store, "creds")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, close(afd), close(rfd), cfd;
	/* Records whose process is gone and which are older than the bound. */
	if (dscan_open(&d, afd) < 0) {
		msg_fatal_sys("unable to read attempts");
		close(afd), close(rfd), close(cfd);
		if (t.n > 1)
			close(t.fd[1]);
		return -EXIT_USAGE;
	}
	while ((de = dscan_next(&d)) != NULL) {
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
		if (reap_one(sfd, &t, rfd, a.id) < 0) {
			bad = 1;
			continue;
		}
		if (unlinkat(afd, a.id, 0) < 0) {
			msg_warn_sys("unable to remove the record of %s", a.id);
			bad = 1;
			continue;
		}
		if (print)
			printf("%s\n", a.id);
	}
	dscan_close(&d);
	/* Trees left without a record, and temp files of killed writes. */
	bad |= reap_orphans(sfd, &t, afd, now, bound, print);
	if (dscan_open(&d, cfd) == 0) {
		while ((de = dscan_next(&d)) != NULL)
			if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp-") && older(cfd, de->d_name, now, bound))
				unlinkat(cfd, de->d_name, 0);
		dscan_close(&d);
	}
	close(afd);
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
	a->start = (int64_t)time(NULL);
	return 0;
}
