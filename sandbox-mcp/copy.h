/* copy: copy a file or a tree between directory descriptors without ever
 * following a symbolic link (links are skipped and counted), each file
 * through a temporary name and a rename, within a byte budget. I/O. */
#ifndef SBX_COPY_H
#define SBX_COPY_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct copy_opt {
	int64_t budget;			/* bytes left; a file that would exceed it stops the copy */
	mode_t fmode;			/* mode of the files made (0644) */
	/* a directory named this way is not copied but handed to overlay
	 * (source fd of its parent, its name, the copy's directory there);
	 * NULL: none */
	int (*is_overlay)(void *ctx, const char *name);
	void (*overlay)(void *ctx, int parentfd, const char *name, int dstfd);
	void *ctx;
	/* an entry to leave out: skip says so (1) and keeps why itself; rel is
	 * its path from where the copy started (rel0 and down), pfd its parent
	 * directory; NULL: none */
	int (*skip)(void *ctx, const char *rel, int pfd, const char *name, const struct stat *st);
	char rel[4096 + 256];
	/* an installed tree's shape: a file executable by its owner is made
	 * 0755 (else fmode); a relative link that stays inside the tree
	 * being copied (leading ".." no deeper than it lies, then names only:
	 * npm's node_modules/.bin) is made again (else skipped) */
	int keep_exec, keep_links;
	int depth;			/* where the walk is: 0 the top */
	/* what happened */
	int64_t bytes;
	long files, links_skipped, links_kept, others_skipped;
};

/* Copy sfd/sname (a regular file or a directory) to dfd/dname. -1 with
 * errno (EFBIG: the budget; ELOOP: sname itself is a symlink). With skip,
 * o->rel is sname's path as skip sees it (set it before the call). */
int copy_at(int sfd, const char *sname, int dfd, const char *dname, struct copy_opt *o);
/* 1 when link target t, at depth below the top, stays inside (pure). */
int copy_link_inside(const char *t, int depth);
struct jw;
/* What a copy did, as the members "files", "bytes" and "symlinks_skipped"
 * of the object w has open (every tool that copies answers with them). */
void copy_counts_json(struct jw *w, const struct copy_opt *o);

#endif
