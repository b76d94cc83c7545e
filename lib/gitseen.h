/* gitseen: what the agent changed in place in its checkout, told by ctime.
 * git trusts an index entry whose stat matches, except a "racily clean"
 * one (its file's mtime in the second the index was written), whose
 * content it compares; every entry of a fresh checkout is racy, so the
 * import compared all of them (twice: refresh and write; 60 of its 80 ms
 * of git add -A at 10k files). Instead: at the end of the set-up, the
 * checkout's paths (hashed) and a sentinel file's ctime; at the import,
 * a path that was there and whose ctime is not older than the sentinel's
 * was changed since (the kernel sets ctime on every change, and hands out
 * timestamps in order), and git is told to hash it; the index is then
 * given a time past every entry's, so git trusts the stat of the rest.
 * Beside the set, a digest of every entry's path and stat information
 * (files, links, directories): an import whose checkout has the same
 * digest and no entry changed since the sentinel has nothing to hash. */
#ifndef CORRAL_GITSEEN_H
#define CORRAL_GITSEEN_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "argv.h"

struct gitseen {
	int ok;			/* 0: not taken (the import trusts git alone) */
	struct timespec ready;	/* the sentinel's ctime */
	dev_t dev;		/* the checkout's file system */
	uint64_t *paths;	/* hashes of its files' and links' paths (a set: 0 is empty) */
	size_t n, cap;
	uint64_t sum;		/* the digest (gitseen_fold) of every entry walked */
	size_t entries;		/* ... and how many */
	int digest;		/* 1: sum and entries hold (an import reads them back) */
};

/* Walk the checkout (wfd; its top .git and the links in skip left out),
 * then make afd/sentinel. 0, or -1 with errno (s->ok stays 0). */
int gitseen_take(struct gitseen *s, int wfd, int afd, const struct argv *skip);
/* dir/name (dir relative, "" at the top), whose lstat is st: 1 when it
 * was there at the set-up and has changed since (or may have), else 0. */
int gitseen_changed(const struct gitseen *s, const char *dir, const char *name, const struct stat *st);
void gitseen_free(struct gitseen *s);
/* Fold dir/name, whose lstat is st, into *sum (a sum of each entry's hash
 * of its path, type, inode, size, mode, mtime and ctime: the order of the
 * walk does not matter). */
void gitseen_fold(uint64_t *sum, const char *dir, const char *name, const struct stat *st);
/* 1 when st's ctime is not older than the sentinel's: the entry was made
 * or changed at the end of the set-up or since. */
int gitseen_fresh(const struct gitseen *s, const struct stat *st);

#endif
