/* gitxref: the attempt's other branches and tags (see gitxref.h). Every
 * byte read here was written by the agent: names and ids are checked, ref
 * files are opened without following or blocking, and the walk is bounded
 * in depth and count. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdio.h"
#include "gitcarry.h"
#include "gitrun.h"
#include "gitxref.h"
#include "msg.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define LIST_MAX 100000		/* refs read from one repository, at most */

static int
wanted(const char *name, size_t n)
{
	return gitref_name_ok(name, n) &&
	    ((n > 11 && strncmp(name, "refs/heads/", 11) == 0) ||
	    (n > 10 && strncmp(name, "refs/tags/", 10) == 0));
}

const struct gitxref *
gitxref_find(const struct gitxrefs *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

int
gitxref_set(struct gitxrefs *l, const char *name, const char *oid)
{
	struct gitxref *x = (struct gitxref *)gitxref_find(l, name);

	if (x == NULL) {
		if (l->n >= LIST_MAX)
			return errno = E2BIG, -1;
		if (l->n == l->cap) {
			size_t nc = l->cap ? l->cap * 2 : 16;
			struct gitxref *nv = realloc(l->v, nc * sizeof *nv);
			if (nv == NULL)
				return errno = ENOMEM, -1;
			l->v = nv, l->cap = nc;
		}
		x = &l->v[l->n++];
		snprintf(x->name, sizeof x->name, "%s", name);
	}
	snprintf(x->oid, sizeof x->oid, "%s", oid);
	return 0;
}

void
gitxref_free(struct gitxrefs *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

int
gitxref_parse(const char *buf, size_t len, size_t hexlen, struct gitxrefs *l)
{
	char name[GITREF_NAME_MAX + 1], oid[GITREF_OID_MAX + 1];
	size_t at = 0;

	while (at < len) {
		const char *s = buf + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at;

		at += n + 1;
		if (n < hexlen + 2 || s[hexlen] != ' ' || !gitref_oid_ok(s, hexlen, hexlen) ||
		    n - hexlen - 1 > GITREF_NAME_MAX || !wanted(s + hexlen + 1, n - hexlen - 1))
			continue;	/* "# pack-refs", "^OID", junk */
		memcpy(oid, s, hexlen);
		oid[hexlen] = '\0';
		memcpy(name, s + hexlen + 1, n - hexlen - 1);
		name[n - hexlen - 1] = '\0';
		if (gitxref_set(l, name, oid) < 0)
			return -1;
	}
	return 0;
}

/* The loose refs below dfd (named prefix), depth-bounded. */
static int
walk(int dfd, const char *prefix, size_t hexlen, struct gitxrefs *l, int *skipped, int depth)
{
	char name[GITREF_NAME_MAX + 2], ref[GITREF_NAME_MAX + 1], oid[GITREF_OID_MAX + 1], *buf;
	struct dirent *de;
	struct stat st;
	size_t len;
	DIR *d;
	int fd, r = 0;

	if ((d = dir_fresh(dfd)) == NULL)
		return -1;
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(name, sizeof name, "%s/%s", prefix, de->d_name) > GITREF_NAME_MAX ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			(*skipped)++;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (depth >= 16 || (fd = openat(dirfd(d), de->d_name, OPEN_DIR)) < 0) {
				(*skipped)++;
				continue;
			}
			r = walk(fd, name, hexlen, l, skipped, depth + 1);
			close(fd);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !wanted(name, strlen(name)) ||
		    file_read_bounded(dirfd(d), de->d_name, 4096, &buf, &len) < 0) {
			(*skipped)++;	/* a FIFO, a symlink, a name git refuses, unreadable */
			continue;
		}
		if (gitref_parse(buf, len, hexlen, ref, oid) == 0)
			r = gitxref_set(l, name, oid);
		else
			(*skipped)++;	/* symbolic or malformed */
		free(buf);
	}
	closedir(d);
	return r;
}

int
gitxref_list(int rdir, size_t hexlen, struct gitxrefs *l, int *skipped)
{
	static const char *const top[] = { "refs/heads", "refs/tags", NULL };
	char *buf;
	size_t len;
	int rfd, fd, r = 0;

	if (file_read_bounded(rdir, "packed-refs", 256 << 20, &buf, &len) == 0) {
		r = gitxref_parse(buf, len, hexlen, l);
		free(buf);
	} else if (errno != ENOENT) {
		(*skipped)++;
	}
	if (r < 0 || (rfd = openat(rdir, "refs", OPEN_DIR)) < 0)
		return r < 0 ? -1 : 0;
	for (size_t i = 0; r == 0 && top[i]; i++) {
		if ((fd = openat(rfd, top[i] + 5, OPEN_DIR)) < 0) {
			if (errno != ENOENT)
				(*skipped)++;
			continue;
		}
		r = walk(fd, top[i], hexlen, l, skipped, 0);
		close(fd);
	}
	close(rfd);
	return r;
}

int
gitxref_changed(const struct gitxrefs *now, const struct gitxrefs *start, const char *tip,
    struct gitxrefs *todo, int *more)
{
	*more = 0;
	for (size_t i = 0; i < now->n; i++) {
		const struct gitxref *s = gitxref_find(start, now->v[i].name);
		if ((s && strcmp(s->oid, now->v[i].oid) == 0) || strcmp(now->v[i].oid, tip) == 0)
			continue;	/* as it was, or HEAD's commit: on the main branch */
		if (todo->n >= GITXREF_MAX) {
			(*more)++;
			continue;
		}
		if (gitxref_set(todo, now->v[i].name, now->v[i].oid) < 0)
			return -1;
	}
	return 0;
}

/* A ref that grew from the base (your uncommitted state, never exported):
 * its commits carried over onto HEAD like HEAD's (gitcarry.c) into oid.
 * 0: carried (oid: g->start when it holds nothing of its own), 1: it did
 * not grow from the base, -1: why not in *why. */
static int
carry_ref(const struct gitws *g, int afd, const char *q, const char *attempt, const struct gitxref *x,
    struct argv *overlap, char *oid, const char **why)
{
	static char msg[160];
	struct gitcall qc = { g->git, g->gitdir, NULL, NULL, q, NULL };
	const char *const anc[] = { "merge-base", "--is-ancestor", g->base, x->oid, NULL };
	char pt[GITREF_OID_MAX + 16], tree[GITREF_OID_MAX + 1];
	const char *const rp[] = { "rev-parse", "--verify", "-q", pt, NULL };
	int code = gitrun(&qc, anc, -1, -1, NULL, NULL, 0), unc;

	if (code == 1)
		return 1;
	snprintf(pt, sizeof pt, "%s^{tree}", x->oid);
	if (code != 0 || gitws_oid(g, &qc, rp, -1, tree) < 0)
		return *why = "git could not read it", -1;
	if (gitcarry(g, afd, q, x->oid, tree, attempt, oid, &unc, overlap, msg, sizeof msg) < 0)
		return *why = "it could not be carried over onto your HEAD", -1;
	return 0;
}

/* One ref: its objects checked on the way in, a commit at its end, then
 * the new name. NULL, or why not; *none: it holds nothing of its own over
 * your state (no ref made). */
static const char *
import_one(const struct gitws *g, int afd, const char *q, const char *attempt, const char *as,
    const struct gitxref *x, struct argv *overlap, int *none)
{
	static char why[160];
	struct gitcall gc = { g->git, g->gitdir, NULL, NULL, NULL, NULL };
	char peel[GITREF_OID_MAX + 16], msg[GITREF_NAME_MAX + 32], oid[GITREF_OID_MAX + 1];
	const char *no = NULL;

	snprintf(oid, sizeof oid, "%s", x->oid);
	if (strcmp(g->base, g->start) != 0) {
		int c = carry_ref(g, afd, q, attempt, x, overlap, oid, &no);
		if (c < 0)
			return no;
		if (c == 0 && strcmp(oid, g->start) == 0)
			return *none = 1, NULL;
	}
	if (gitws_bring(g, q, oid, why, sizeof why) < 0)
		return "its objects were refused";
	snprintf(peel, sizeof peel, "%s^{commit}", oid);
	{
		const char *const rp[] = { "rev-parse", "--verify", "-q", peel, NULL };
		if (gitrun(&gc, rp, -1, -1, NULL, NULL, 0) != 0)
			return "it does not name a commit";
	}
	snprintf(msg, sizeof msg, "corral: %s of the attempt", x->name);
	{
		const char *const ur[] = { "update-ref", "-m", msg, as, oid, "", NULL };
		if (gitrun(&gc, ur, -1, -1, NULL, NULL, 0) != 0)
			return "git update-ref refused the name (it exists, or clashes with one)";
	}
	return NULL;
}

void
gitxref_import(const struct gitws *g, int afd, const char *q, const char *attempt,
    const struct gitxrefs *todo, struct argv *overlap, struct gitws_result *r)
{
	char as[GITREF_NAME_MAX + 64];
	const char *why;

	for (size_t i = 0; i < todo->n; i++) {
		const struct gitxref *x = &todo->v[i];
		int head = strncmp(x->name, "refs/heads/", 11) == 0, none = 0;
		const char *rest = x->name + (head ? 11 : 10);

		snprintf(as, sizeof as, head ? "refs/heads/corral/%.8s-%s" : "refs/tags/corral/%.8s/%s", attempt, rest);
		if (strlen(as) > GITREF_NAME_MAX || !gitref_name_ok(as, strlen(as)))
			why = "its name is too long here";
		else
			why = import_one(g, afd, q, attempt, as, x, overlap, &none);
		if (none)
			continue;
		if (why == NULL) {
			r->xrefs++;
			gitws_add_name(r->xnames, sizeof r->xnames, as + (head ? 11 : 5));
		} else {
			char one[GITREF_NAME_MAX + 96];
			snprintf(one, sizeof one, "%s (%s)", x->name, why);
			r->xrefused++;
			gitws_add_name(r->xwhy, sizeof r->xwhy, one);
		}
	}
}

void
gitxref_collect(const struct gitws *g, int rdir, int afd, const char *tip, struct gitxrefs *todo,
    struct gitws_result *r)
{
	struct gitxrefs now = { 0 }, start = { 0 };
	char *buf, note[96];
	size_t len;
	int skipped = 0, more = 0, e = 0;

	if (file_read_bounded(afd, "start-refs", 256 << 20, &buf, &len) == 0) {
		e = gitxref_parse(buf, len, g->hexlen, &start);
		free(buf);
	}
	if (e == 0)
		e = gitxref_list(rdir, g->hexlen, &now, &skipped);
	if (e == 0)
		e = gitxref_changed(&now, &start, tip, todo, &more);
	if (e < 0) {
		r->xrefused++;
		snprintf(note, sizeof note, "its refs could not be read (%s)", strerror(errno));
		gitws_add_name(r->xwhy, sizeof r->xwhy, note);
	}
	if (more) {
		r->xrefused += more;
		snprintf(note, sizeof note, "%d more than the %d imported at most", more, GITXREF_MAX);
		gitws_add_name(r->xwhy, sizeof r->xwhy, note);
	}
	if (skipped) {
		r->xrefused += skipped;
		snprintf(note, sizeof note, "%d ref file%s with a name git refuses, not a regular file, or malformed", skipped, skipped == 1 ? "" : "s");
		gitws_add_name(r->xwhy, sizeof r->xwhy, note);
	}
	gitxref_free(&now);
	gitxref_free(&start);
}
