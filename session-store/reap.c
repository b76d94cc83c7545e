/* session-store reap: records of dead attempts, their markers and trees. */
#include <dirent.h>
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
#include "num.h"
#include "rmtree.h"
#include "rundir.h"

enum { REAP_DEFAULT = 86400, REAP_UNNAMED = 600 };

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
tree_of(struct ss *s, const struct treedirs *t, size_t i, const char *name, char *id)
{
	if (!store_tree_name_ok(name, strlen(name)))
		return 0;
	if (store_tree_id(t->fd[i], name, id) < 0) {
		id[0] = '\0';
		return 1;	/* unnamed: being made, or its maker killed */
	}
	/* in the runtime directory, another store's is not ours to reap */
	return i == 0 || rundir_tree_ours(t->fd[i], name, s->fd) == 1;
}

/* Remove released/ID.* markers and the trees whose id file names ID. */
static int
reap_one(struct ss *s, const struct treedirs *t, int rfd, const char *id)
{
	char tid[STORE_ID_LEN + 1];
	struct dirent *de;
	DIR *d;
	int bad = 0;

	if ((d = dir_fresh(rfd)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, id, STORE_ID_LEN) == 0 && de->d_name[STORE_ID_LEN] == '.')
			if (unlinkat(rfd, de->d_name, 0) < 0 && errno != ENOENT)
				bad = 1;
	closedir(d);
	for (size_t i = 0; i < t->n; i++) {
		if ((d = dir_fresh(t->fd[i])) == NULL)
			return -1;
		while ((de = readdir(d)) != NULL) {
			if (!tree_of(s, t, i, de->d_name, tid) || strcmp(tid, id) != 0)
				continue;
			if (rmtree_at(t->fd[i], de->d_name) < 0) {
				msg_warn_sys("unable to remove %s", de->d_name);
				bad = 1;
			}
		}
		closedir(d);
	}
	return bad;
}

/* Trees left without a record. */
static int
reap_orphans(struct ss *s, const struct treedirs *t, int afd, int64_t now, uint64_t bound, int print)
{
	char rid[STORE_ID_LEN + 1];
	struct dirent *de;
	DIR *d;
	int bad = 0;

	for (size_t i = 0; i < t->n; i++) {
		if ((d = dir_fresh(t->fd[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			/* a tree without its id: home-stage create is writing
			 * it now (corral reaps with --older-than 0 as another
			 * run starts), or was killed before; only the second
			 * is ever REAP_UNNAMED old */
			int known;
			if (!tree_of(s, t, i, de->d_name, rid))
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
		closedir(d);
	}
	return bad;
}

/* Reap, with the store's lock held: records of dead attempts older than
 * bound (and their markers and trees), trees left without a record, temp
 * files of killed writes. Each id removed is printed when print. Returns
 * 0, 1 when something could not be removed, or the negated exit status
 * when the store could not be read (each said). */
int
ss_reap_locked(struct ss *s, uint64_t bound, int print)
{
	struct treedirs t = { { s->fd, -1 }, 1 };
	struct attempt a;
	struct dirent *de;
	int64_t now = (int64_t)time(NULL);
	uint64_t st;
	int afd, rfd, cfd, bad = 0;
	DIR *d;

	if (s->trees != NULL) {
		char err[256];
		if ((t.fd[1] = store_open(s->trees, 0, err, sizeof err)) >= 0)
			t.n = 2;
		else if (errno != ENOENT) {	/* none yet: nothing there to reap */
			msg_fatal("trees %s: %s", s->trees, err);
			return errno == EPERM ? -EXIT_NO : -EXIT_USAGE;
		}
	}
	if ((afd = ss_open_sub(s, "attempts")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, afd;
	if ((rfd = ss_open_sub(s, "released")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, close(afd), rfd;
	if ((cfd = ss_open_sub(s, "creds")) < 0)
		return t.n > 1 ? close(t.fd[1]) : 0, close(afd), close(rfd), cfd;
	/* Records whose process is gone and which are older than the bound. */
	if ((d = dir_fresh(afd)) == NULL) {
		msg_fatal_sys("unable to read attempts");
		close(afd), close(rfd), close(cfd);
		if (t.n > 1)
			close(t.fd[1]);
		return -EXIT_USAGE;
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
		if (reap_one(s, &t, rfd, a.id) < 0) {
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
	closedir(d);
	/* Trees left without a record, and temp files of killed writes. */
	bad |= reap_orphans(s, &t, afd, now, bound, print);
	if ((d = dir_fresh(cfd)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp-") && older(cfd, de->d_name, now, bound))
				unlinkat(cfd, de->d_name, 0);
		closedir(d);
	}
	close(afd);
	close(rfd);
	close(cfd);
	if (t.n > 1)
		close(t.fd[1]);
	return bad;
}

int
ss_reap(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "older-than", required_argument, NULL, 'o' },
		{ "trees", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t bound = REAP_DEFAULT;
	int c, lk, r;

	OPTLOOP(opts) {
		switch (c) {
		case 'o':
			if (num_parse_duration(optarg, &bound) < 0 || bound > (uint64_t)INT32_MAX * 100) {
				msg_fatal("bad --older-than %.32s (want N, Ns, Nm, Nh or Nd)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't': s->trees = optarg; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if (optind != argc)
		return ss_usage_err();
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		return EXIT_USAGE;
	}
	r = ss_reap_locked(s, bound, 1);
	close(lk);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return r < 0 ? -r : r ? EXIT_USAGE : 0;
}
