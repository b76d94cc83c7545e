/* gitcarry: the agent's commits carried from its base onto HEAD (see
 * gitcarry.h). Its commits are hostile data: their trees are only diffed,
 * their messages and authors copied into new commit objects, and what the
 * result reaches is checked by index-pack --strict on its way into the
 * real repository (gitws_bring). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdio.h"
#include "gitcarry.h"
#include "gitref.h"
#include "msg.h"

struct carry {
	const struct gitws *g;
	int afd;
	struct gitcall gc;		/* the real repository, objects into q */
	char idx[PATH_MAX + 16];	/* STORE/git/ATTEMPT/carry.index */
	char parent[GITREF_OID_MAX + 1];	/* the last commit made ("": none yet, unborn) */
	char ptree[GITREF_OID_MAX + 1];	/* its tree */
	char *uraw;			/* git diff-tree -r -z HEAD base: what you changed */
	const char **user;		/* ... its records, sorted by path */
	size_t nuser;
	struct argv *overlap;		/* paths both changed and not merged cleanly */
};

/* A raw diff-tree record ":OLDMODE NEWMODE OLDID NEWID STATUS\0PATH\0":
 * its path. */
static const char *
rec_path(const char *rec)
{
	return rec + strlen(rec) + 1;
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(rec_path(*(const char *const *)a), rec_path(*(const char *const *)b));
}

/* The record of path among your changes (HEAD to base), or NULL. */
static const char *
user_change(const struct carry *c, const char *path)
{
	size_t lo = 0, hi = c->nuser;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = strcmp(path, rec_path(c->user[mid]));
		if (d == 0)
			return c->user[mid];
		if (d < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Your changes: HEAD to the base, their records sorted by path. 0, or -1. */
static int
user_changes(struct carry *c)
{
	const struct gitws *g = c->g;
	const char *const dt[] = { "diff-tree", "-r", "-z", "--no-renames", g->start, g->base, NULL };
	size_t len, at = 0, n = 0;

	if (!g->start[0])
		return 0;	/* unborn: every file of the base is yours (carry_one) */
	if (gitrun(&c->gc, dt, -1, -1, &c->uraw, &len, 256 << 20) != 0)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (at = 0, n = 0; at < len && c->uraw[at] == ':'; n++) {
			const char *rec = c->uraw + at, *path = rec_path(rec);
			if (pass)
				c->user[n] = rec;
			at = (size_t)(path - c->uraw) + strlen(path) + 1;
		}
		if (!pass && (c->user = calloc(n + 1, sizeof *c->user)) == NULL)
			return -1;
	}
	c->nuser = n;
	qsort(c->user, n, sizeof *c->user, by_path);
	return 0;
}

static int
regular(const char *mode)
{
	return strncmp(mode, "100644", 6) == 0 || strncmp(mode, "100755", 6) == 0;
}

/* Blob oid into dfd/name (a directory of corral's, never the agent's). */
static int
blob_out(const struct carry *c, int dfd, const char *name, const char *oid)
{
	const char *const cf[] = { "cat-file", "blob", oid, NULL };
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int code;

	if (fd < 0)
		return -1;
	code = gitrun(&c->gc, cf, -1, fd, NULL, NULL, 0);
	close(fd);
	return code == 0 ? 0 : -1;
}

/* Your version (ours), the base's and the agent's of one file, merged by
 * git merge-file in STORE/git/ATTEMPT/merge: the merged blob into oid.
 * 1: merged, 0: they overlap (or a side is binary), -1: git failed. */
static int
merge_one(const struct carry *c, const char *ours, const char *base, const char *theirs, char *oid)
{
	const struct gitws *g = c->g;
	char o[PATH_MAX + 32], b[PATH_MAX + 32], t[PATH_MAX + 32];
	int mfd, code;

	if ((mkdirat(c->afd, "merge", 0700) < 0 && errno != EEXIST) ||
	    (mfd = openat(c->afd, "merge", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	code = blob_out(c, mfd, "ours", ours) < 0 || blob_out(c, mfd, "base", base) < 0 ||
	    blob_out(c, mfd, "theirs", theirs) < 0 ? -1 : 0;
	close(mfd);
	if (code < 0)
		return -1;
	snprintf(o, sizeof o, "%s/merge/ours", g->dir);
	snprintf(b, sizeof b, "%s/merge/base", g->dir);
	snprintf(t, sizeof t, "%s/merge/theirs", g->dir);
	{
		const char *const mf[] = { "merge-file", "-q", o, b, t, NULL };
		const char *const ho[] = { "hash-object", "-w", "--no-filters", o, NULL };
		if ((code = gitrun(&c->gc, mf, -1, -1, NULL, NULL, 0)) != 0)
			return code < 0 ? -1 : 0;	/* conflicts, or binary (255) */
		return gitws_oid(g, &c->gc, ho, -1, oid) < 0 ? -1 : 1;
	}
}

static void
note_overlap(struct carry *c, const char *path)
{
	for (size_t i = 0; i < c->overlap->n; i++)
		if (strcmp(c->overlap->v[i], path) == 0)
			return;
	av_push(c->overlap, path);
}

int
gitws_oid(const struct gitws *g, const struct gitcall *gc, const char *const *args, int in, char *oid)
{
	char *out = NULL;
	size_t len;
	int code = gitrun(gc, args, in, -1, &out, &len, 4096);

	if (code != 0 || len < g->hexlen || !gitref_oid_ok(out, g->hexlen, g->hexlen)) {
		free(out);
		return -1;
	}
	memcpy(oid, out, g->hexlen);
	oid[g->hexlen] = '\0';
	free(out);
	return 0;
}

/* git diff-tree -r -z (raw) records, base to the agent's tree, into git
 * update-index --index-info lines: each changed path at its new mode and
 * id, a removed one at mode 0. A file you changed too is merged: your
 * version with only the agent's change; when the two overlap (or a side
 * is not a regular file) its whole version, noted. The length, or -1. */
static ssize_t
index_info(struct carry *c, const char *raw, size_t len, char *out)
{
	const struct gitws *g = c->g;
	size_t at = 0, n = 0;

	while (at < len && raw[at] == ':') {
		const char *rec = raw + at, *path, *u;
		size_t rl = strnlen(rec, len - at), pl;
		/* ":OLDMODE NEWMODE OLDID NEWID STATUS" */
		if (at + rl + 1 >= len || rl < 2 * g->hexlen + 18)
			break;
		path = rec + rl + 1;
		pl = strnlen(path, len - (size_t)(path - raw));
		at = (size_t)(path - raw) + pl + 1;
		const char *oldmode = rec + 1, *newmode = rec + 8, *oldid = rec + 15, *newid = rec + 15 + g->hexlen + 1;
		char mode[7], id[GITREF_OID_MAX + 1];
		snprintf(mode, sizeof mode, "%.6s", newmode);
		snprintf(id, sizeof id, "%.*s", (int)g->hexlen, newid);
		/* yours: HEAD's mode and id there (HEAD to base), or none (unborn) */
		u = g->start[0] ? user_change(c, path) : strncmp(oldmode, "000000", 6) != 0 ? rec : NULL;
		if (u != NULL) {
			const char *hmode = u + 1, *hid = u + 15;
			char m[GITREF_OID_MAX + 1], o[GITREF_OID_MAX + 1], b[GITREF_OID_MAX + 1];
			int r = 0;
			snprintf(o, sizeof o, "%.*s", (int)g->hexlen, hid);
			snprintf(b, sizeof b, "%.*s", (int)g->hexlen, oldid);
			if (u != rec && rec[rl - 1] != 'D' && regular(hmode) && regular(oldmode) && regular(newmode) &&
			    (r = merge_one(c, o, b, id, m)) < 0)
				return -1;
			if (r == 1) {
				snprintf(id, sizeof id, "%s", m);
				if (strncmp(oldmode, newmode, 6) == 0)
					snprintf(mode, sizeof mode, "%.6s", hmode);	/* HEAD's, unless it changed it */
			} else {
				note_overlap(c, path);
			}
		}
		if (rec[rl - 1] == 'D')
			n += (size_t)sprintf(out + n, "0 %.*s\t", (int)g->hexlen, oldid);
		else
			n += (size_t)sprintf(out + n, "%s %s\t", mode, id);
		memcpy(out + n, path, pl + 1);
		n += pl + 1;
	}
	return (ssize_t)n;
}

/* A commit of tree over c->parent: the agent's commit's author, committer
 * and message (from, as data), or corral's own line (from NULL). */
static int
commit(struct carry *c, const char *tree, const char *from, const char *msg, char *oid)
{
	const struct gitws *g = c->g;
	char *raw = NULL, *txt = NULL;
	size_t len, n = 0;
	int code, fd, r = -1;

	if (from == NULL) {
		const char *const ct[] = { "commit-tree", tree, "-m", msg, c->parent[0] ? "-p" : NULL, c->parent, NULL };
		return gitws_oid(g, &c->gc, ct, -1, oid);
	}
	{
		const char *const cf[] = { "cat-file", "commit", from, NULL };
		if ((code = gitrun(&c->gc, cf, -1, -1, &raw, &len, 1 << 20)) != 0)
			return -1;
	}
	char *body = strstr(raw, "\n\n");
	if ((txt = malloc(len + 256)) == NULL)
		goto out;
	n += (size_t)sprintf(txt, "tree %s\n", tree);
	if (c->parent[0])
		n += (size_t)sprintf(txt + n, "parent %s\n", c->parent);
	for (char *l = raw; l && l < (body ? body + 1 : raw + len); ) {
		char *e = strchr(l, '\n');
		size_t ll = e ? (size_t)(e - l) + 1 : strlen(l);
		if (strncmp(l, "author ", 7) == 0 || strncmp(l, "committer ", 10) == 0 ||
		    strncmp(l, "encoding ", 9) == 0) {
			memcpy(txt + n, l, ll);
			n += ll;
		}
		l = e ? e + 1 : NULL;
	}
	txt[n++] = '\n';
	if (body) {
		memcpy(txt + n, body + 2, len - (size_t)(body + 2 - raw));
		n += len - (size_t)(body + 2 - raw);
	}
	if ((fd = gitws_stdin(c->afd, "carry.commit", txt, n)) < 0)
		goto out;
	{
		const char *const ho[] = { "hash-object", "-t", "commit", "-w", "--stdin", NULL };
		r = gitws_oid(g, &c->gc, ho, fd, oid);
	}
	close(fd);
out:
	free(raw);
	free(txt);
	return r;
}

/* One step: HEAD's tree with what tree changed against the base, as a
 * commit over the last one; nothing when that changes nothing. */
static int
carry_one(struct carry *c, const char *tree, const char *from, const char *msg)
{
	const struct gitws *g = c->g;
	const char *const dt[] = { "diff-tree", "-r", "-z", "--no-renames", g->base, tree, NULL };
	const char *const ui[] = { "update-index", "-z", "--index-info", NULL };
	const char *const wt[] = { "write-tree", NULL };
	char *raw = NULL, *info, t[GITREF_OID_MAX + 1], oid[GITREF_OID_MAX + 1];
	size_t len;
	ssize_t n;
	int fd, code;

	if (gitrun(&c->gc, dt, -1, -1, &raw, &len, 256 << 20) != 0) {
		free(raw);
		return -1;
	}
	if ((info = malloc(len + 1)) == NULL) {
		free(raw);
		return -1;
	}
	n = index_info(c, raw, len, info);
	free(raw);
	if (n < 0) {
		free(info);
		return -1;
	}
	(void)unlinkat(c->afd, "carry.index", 0);
	if (g->start[0] && gitws_copy_index(c->afd, "head.index", c->afd, "carry.index") < 0) {
		free(info);
		return -1;
	}
	fd = gitws_stdin(c->afd, "carry.info", info, (size_t)n);
	free(info);
	if (fd < 0)
		return -1;
	code = gitrun(&c->gc, ui, fd, -1, NULL, NULL, 0);
	close(fd);
	if (code != 0 || gitws_oid(g, &c->gc, wt, -1, t) < 0)
		return -1;
	if (strcmp(t, c->ptree) == 0)
		return 0;	/* nothing of its own */
	if (commit(c, t, from, msg, oid) < 0)
		return -1;
	snprintf(c->parent, sizeof c->parent, "%s", oid);
	snprintf(c->ptree, sizeof c->ptree, "%s", t);
	return 1;
}

/* gitcarry, its files and buffers freed by the caller. */
static int
carry(struct carry *c, const char *tip, const char *ftree, const char *attempt, char *out, int *uncommitted,
    char *why, size_t whyn)
{
	const struct gitws *g = c->g;
	char hidx[PATH_MAX + 16], last[GITREF_OID_MAX + 16], msg[160], *list = NULL;
	size_t len = 0, ncommits = 0;
	int r;

	*uncommitted = 0;
	snprintf(c->idx, sizeof c->idx, "%s/carry.index", g->dir);
	snprintf(hidx, sizeof hidx, "%s/head.index", g->dir);
	c->gc.index = hidx;
	(void)unlinkat(c->afd, "head.index", 0);
	{
		const char *const rt[] = { "read-tree", g->start, NULL };
		const char *const wt[] = { "write-tree", NULL };
		if ((g->start[0] && gitrun(&c->gc, rt, -1, -1, NULL, NULL, 0) != 0) ||
		    gitws_oid(g, &c->gc, wt, -1, c->ptree) < 0)
			return msg_say(why, whyn, "git read-tree %s failed", g->start[0] ? g->start : "(empty)");
	}
	if (user_changes(c) < 0)
		return msg_say(why, whyn, "git diff-tree of your HEAD and your state failed");
	c->gc.index = c->idx;
	snprintf(c->parent, sizeof c->parent, "%s", g->start);
	/* its commits, first parents from the base on; none when its HEAD
	 * left the base's line (their files still come back, below) */
	snprintf(last, sizeof last, "%s^{tree}", g->base);
	if (tip[0] && strcmp(tip, g->base) != 0) {
		const char *const anc[] = { "merge-base", "--is-ancestor", g->base, tip, NULL };
		char neg[GITREF_OID_MAX + 2];
		const char *const rl[] = { "rev-list", "--first-parent", "--reverse", tip, neg, NULL };
		snprintf(neg, sizeof neg, "^%s", g->base);
		if (gitrun(&c->gc, anc, -1, -1, NULL, NULL, 0) == 0 &&
		    gitrun(&c->gc, rl, -1, -1, &list, &len, (GITCARRY_MAX + 1) * (g->hexlen + 1)) == 0)
			ncommits = len / (g->hexlen + 1);
		if (ncommits > GITCARRY_MAX || ncommits * (g->hexlen + 1) != len)
			ncommits = 0;	/* as one, below */
	}
	for (size_t i = 0; i < ncommits; i++) {
		char *id = list + i * (g->hexlen + 1), tree[GITREF_OID_MAX + 1], pt[GITREF_OID_MAX + 16];
		id[g->hexlen] = '\0';
		snprintf(pt, sizeof pt, "%s^{tree}", id);
		const char *const rp[] = { "rev-parse", "--verify", "-q", pt, NULL };
		if (!gitref_oid_ok(id, g->hexlen, g->hexlen) || gitws_oid(g, &c->gc, rp, -1, tree) < 0 ||
		    carry_one(c, tree, id, NULL) < 0) {
			free(list);
			return msg_say(why, whyn, "its commit %s could not be carried over onto your HEAD", id);
		}
		snprintf(last, sizeof last, "%s", tree);
	}
	free(list);
	/* what it left uncommitted (everything, when its commits were not
	 * carried one by one) */
	{
		char lt[GITREF_OID_MAX + 1];
		const char *const rp[] = { "rev-parse", "--verify", "-q", last, NULL };
		if (ncommits == 0 && gitws_oid(g, &c->gc, rp, -1, lt) < 0)
			return msg_say(why, whyn, "the attempt's base %s is unreadable", g->base);
		if (ncommits > 0)
			snprintf(lt, sizeof lt, "%.64s", last);
		if (strcmp(ftree, lt) != 0 || (ncommits == 0 && tip[0] && strcmp(tip, g->base) != 0)) {
			snprintf(msg, sizeof msg, "corral: the changes attempt %s left uncommitted", attempt);
			if ((r = carry_one(c, ftree, NULL, msg)) < 0)
				return msg_say(why, whyn, "its files could not be carried over onto your HEAD");
			*uncommitted = r;
		}
	}
	snprintf(out, GITREF_OID_MAX + 1, "%s", c->parent);
	return 0;
}

int
gitcarry(const struct gitws *g, int afd, const char *q, const char *tip, const char *ftree,
    const char *attempt, char *out, int *uncommitted, struct argv *overlap, char *why, size_t whyn)
{
	struct carry c = { g, afd, { g->git, g->gitdir, NULL, NULL, q, NULL }, "", "", "", NULL, NULL, 0, overlap };
	int r = carry(&c, tip, ftree, attempt, out, uncommitted, why, whyn);

	free(c.uraw);
	free(c.user);
	(void)unlinkat(afd, "merge/ours", 0);
	(void)unlinkat(afd, "merge/base", 0);
	(void)unlinkat(afd, "merge/theirs", 0);
	(void)unlinkat(afd, "merge", AT_REMOVEDIR);
	return r;
}
