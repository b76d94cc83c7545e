/* gitsetup: undo the old --git-protect layout, set up the attempt
 * repository and its checkout, give the checkout's slot back (gs.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msg.h"
#include "fdio.h"
#include "gitref.h"
#include "gitrun.h"
#include "gitnested.h"
#include "gs.h"
#include "parentdir.h"
#include "path.h"
#include "private.h"
#include "rmtree.h"
#include "store.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
int
gitws_undo_protect(const struct gitws *g, char *why, size_t whyn)
{
	char lnk[64];
	struct stat st;
	ssize_t n;
	int d, r = 0;

	if ((d = open(g->gitdir, OPEN_DIR)) < 0)
		return msg_say(why, whyn, "%s: %s", g->gitdir, strerror(errno));
	if (fstatat(d, "index", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
	    (n = readlinkat(d, "index", lnk, sizeof lnk - 1)) > 0 &&
	    (lnk[n] = '\0', strcmp(lnk, "corral-index/index") == 0)) {
		if (fstatat(d, "corral-index/index", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			r = renameat(d, "corral-index/index", d, "index");
		else
			r = unlinkat(d, "index", 0);
		if (r < 0)
			msg_say(why, whyn, "unable to restore %s/index: %s", g->gitdir, strerror(errno));
		else
			(void)unlinkat(d, "corral-index", AT_REMOVEDIR);
	}
	close(d);
	return r;
}

/* user.name and user.email of the repository's own config, for the
 * agent's commits (its home's .gitconfig carries the global ones): plain
 * values only, as "[user]" lines; "" when there are none. */
static void
user_lines(const struct gitws *g, char *out, size_t n)
{
	char p[PATH_MAX + 16], *buf, *l, *e;
	size_t len, at = 0;
	int in_user = 0;

	out[0] = '\0';
	if ((size_t)snprintf(p, sizeof p, "%s/config", g->common) >= sizeof p ||
	    file_read_bounded(AT_FDCWD, p, 1 << 20, &buf, &len) < 0)
		return;
	for (l = buf; *l; l = e) {
		e = l + strcspn(l, "\n");
		if (*e)
			*e++ = '\0';
		l += strspn(l, " \t");
		if (*l == '[') {
			in_user = strncasecmp(l, "[user]", 6) == 0;
			continue;
		}
		if (!in_user || (strncasecmp(l, "name", 4) != 0 && strncasecmp(l, "email", 5) != 0))
			continue;
		size_t k = l[0] == 'n' || l[0] == 'N' ? 4 : 5;
		char *v = l + k + strspn(l + k, " \t");
		if (*v != '=')
			continue;
		v++;
		v += strspn(v, " \t");
		if (*v == '\0' || strpbrk(v, "\"\\;#") != NULL)
			continue;
		for (char *c = v; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				goto next;
		if (at + strlen(v) + 16 < n)
			at += (size_t)snprintf(out + at, n - at, "%s\t%.*s = %s\n", at ? "" : "[user]\n",
			    (int)k, k == 4 ? "name" : "email", v);
next:		;
	}
	free(buf);
}


/* A path git printed for the real workspace: relative, no "..", no .git. */
static int
path_ok(const char *p)
{
	const char *c = p;

	if (*p == '\0' || *p == '/')
		return 0;
	for (;;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 2 && memcmp(c, "..", 2) == 0) || (n == 1 && *c == '.') ||
		    (n == 4 && strncasecmp(c, ".git", 4) == 0))
			return 0;
		if (c[n] == '\0')
			return 1;
		c += n + 1;
	}
}

/* The user's current state over the checkout: each path git status named
 * is copied from the workspace, or removed when it is gone there. */
static int
apply_status(struct gitws *g, int wsfd, int wfd, char *st, size_t len)
{
	char path[PATH_MAX], lnk[PATH_MAX];
	struct stat sb;
	const char *base;
	size_t at = 0;
	ssize_t n;
	int pfd, r;

	while (at + 3 < len) {
		const char *e = st + at;
		size_t l = strlen(e);

		at += l + 1;
		if (l < 4 || l - 3 >= sizeof path || !path_ok(e + 3))
			continue;
		memcpy(path, e + 3, l - 2);
		if (path[l - 4] == '/')
			continue;	/* a nested repository: not copied */
		pfd = parentdir_open(wfd, path, 0755, &base);
		if (pfd < 0)
			return -1;
		if (unlinkat(pfd, base, 0) < 0 && errno != ENOENT && errno != EISDIR) {
			close(pfd);
			return -1;
		}
		r = 0;
		if (fstatat(wsfd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISREG(sb.st_mode))
				r = gitws_copy(wsfd, path, pfd, base, ~0ULL);
			else if (S_ISLNK(sb.st_mode) &&
			    (n = readlinkat(wsfd, path, lnk, sizeof lnk - 1)) >= 0)
				r = (lnk[n] = '\0', symlinkat(lnk, pfd, base));
		}
		close(pfd);
		if (r < 0)
			return -1;
	}
	(void)g;
	return 0;
}

/* git for-each-ref in the real repository, started by make_repo and
 * collected by make_refs: the checkout is made meanwhile (it needs the
 * index, HEAD and the objects, not the refs). */
struct refrun {
	int pid, fd;		/* -1: not running */
	int kind;		/* HEAD: 0 detached (oid), 1 a branch (ref) */
	char ref[GITREF_NAME_MAX + 1], oid[GITREF_OID_MAX + 1];
};

/* The directories, config, alternates and HEAD; git for-each-ref started
 * (fr, collected by make_refs, which writes packed-refs). */
static int
make_repo(struct gitws *g, int rfd, const char *alt, struct refrun *fr, char *why, size_t whyn)
{
	static const char *const dirs[] = { "objects", "objects/info", "objects/pack", "refs",
		"refs/heads", "refs/tags", "hooks", "info", NULL };
	static const char *const fer[] = { "for-each-ref", "--format=%(objectname) %(refname)", NULL };
	struct gitcall gc = { g->git, g->gitdir, NULL, NULL, NULL, NULL };
	char cfg[1024], user[600], hp[PATH_MAX + 8], o[GITREF_NAME_MAX + 8];
	char *head = NULL;
	size_t hlen;

	fr->pid = fr->fd = -1;
	for (size_t i = 0; dirs[i]; i++)
		if (mkdirat(rfd, dirs[i], 0755) < 0)
			return msg_say(why, whyn, "unable to make the attempt repository: %s", strerror(errno));
	user_lines(g, user, sizeof user);
	snprintf(cfg, sizeof cfg, "[core]\n\trepositoryformatversion = %d\n\tfilemode = true\n"
	    "\tbare = false\n\tlogallrefupdates = true\n%s%s", g->hexlen == 64,
	    g->hexlen == 64 ? "[extensions]\n\tobjectformat = sha256\n" : "", user);
	if (gitws_write_new(rfd, "config", cfg, strlen(cfg)) < 0 ||
	    gitws_write_new(rfd, "objects/info/alternates", alt, strlen(alt)) < 0)
		return msg_say(why, whyn, "unable to write the attempt repository: %s", strerror(errno));
	snprintf(hp, sizeof hp, "%s/HEAD", g->gitdir);
	if (file_read_bounded(AT_FDCWD, hp, 4096, &head, &hlen) < 0 ||
	    (fr->kind = gitref_parse(head, hlen, g->hexlen, fr->ref, fr->oid)) < 0) {
		free(head);
		return msg_say(why, whyn, "%s: not a HEAD git would read", hp);
	}
	free(head);
	/* HEAD first: with it the attempt repository is one git accepts
	 * (checkout-index runs in it before its refs are written) */
	if (fr->kind == 1)
		snprintf(o, sizeof o, "ref: %s\n", fr->ref);
	else
		snprintf(o, sizeof o, "%s\n", fr->oid);
	if (gitws_write_new(rfd, "HEAD", o, strlen(o)) < 0)
		return msg_say(why, whyn, "unable to write the attempt repository: %s", strerror(errno));
	if ((fr->pid = gitrun_spawn(&gc, fer, -1, &fr->fd)) < 0) {
		fr->pid = fr->fd = -1;
		return msg_say(why, whyn, "unable to run git for-each-ref in %s: %s", g->gitdir, strerror(errno));
	}
	return 0;
}

/* git for-each-ref collected: its refs, checked, as one packed-refs
 * file; the start commit and the branch HEAD names (headref, "" when
 * detached). */
static int
make_refs(struct gitws *g, int rfd, struct refrun *fr, char *headref, char *why, size_t whyn)
{
	char *refs = NULL, *packed = NULL;
	size_t rlen, at, pn = 0;
	int code, r = -1;

	if (fr->pid < 0)
		return 0;
	code = gitrun_collect(fr->pid, fr->fd, &refs, &rlen, 256 << 20);
	fr->pid = fr->fd = -1;
	if (code != 0) {
		free(refs);
		return msg_say(why, whyn, "git for-each-ref in %s failed (status %d)", g->gitdir, code);
	}
	if ((packed = malloc(rlen + 1)) == NULL) {
		errno = ENOMEM;
		goto sys;
	}
	g->start[0] = '\0';
	if (fr->kind == 0)
		snprintf(g->start, sizeof g->start, "%s", fr->oid);
	for (at = 0; at < rlen; ) {
		char *l = refs + at, *nl = memchr(l, '\n', rlen - at);
		size_t n = nl ? (size_t)(nl - l) : rlen - at;
		at += n + 1;
		if (n < g->hexlen + 2 || l[g->hexlen] != ' ' || !gitref_oid_ok(l, g->hexlen, g->hexlen) ||
		    !gitref_name_ok(l + g->hexlen + 1, n - g->hexlen - 1))
			continue;
		if (fr->kind == 1 && strlen(fr->ref) == n - g->hexlen - 1 &&
		    memcmp(fr->ref, l + g->hexlen + 1, n - g->hexlen - 1) == 0)
			snprintf(g->start, sizeof g->start, "%.*s", (int)g->hexlen, l);
		memcpy(packed + pn, l, n);
		pn += n;
		packed[pn++] = '\n';
	}
	if (gitws_write_new(rfd, "packed-refs", packed, pn) < 0)
		goto sys;
	headref[0] = '\0';
	if (fr->kind == 1)
		snprintf(headref, GITREF_NAME_MAX + 1, "%s", fr->ref);
	r = 0;
	goto out;
sys:
	msg_say(why, whyn, "unable to write the attempt repository: %s", strerror(errno));
out:
	free(refs);
	free(packed);
	return r;
}

/* A git started beside others that is no longer needed: waited for. */
static void
refs_drop(struct refrun *fr)
{
	if (fr->pid >= 0)
		(void)gitrun_collect(fr->pid, fr->fd, NULL, NULL, 0);
	fr->pid = fr->fd = -1;
}

/* The real index (and a split index's shared part) into the attempt repository. */
static int
copy_index(const struct gitws *g, int rfd)
{
	struct dirent *de;
	DIR *d;
	int gfd, r = 0;

	if ((gfd = open(g->gitdir, OPEN_DIR)) < 0)
		return -1;
	if (gitws_copy_index(gfd, "index", rfd, "index") < 0 && errno != ENOENT)
		r = -1;
	if (r == 0 && (d = dir_fresh(gfd)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strncmp(de->d_name, "sharedindex.", 12) == 0 &&
			    strspn(de->d_name + 12, "0123456789abcdef") == strlen(de->d_name + 12) &&
			    gitws_copy(gfd, de->d_name, rfd, de->d_name, ~0ULL) < 0)
				r = -1;
		closedir(d);
	}
	close(gfd);
	return r;
}
static const char *const status_args[] = { "status", "--porcelain", "-z", "--untracked-files=all",
	"--ignore-submodules=all", "--no-renames", NULL };

/* The checkout: the index's files (stat information kept, so git inside
 * starts fast), then the user's tracked changes and untracked files (the
 * paths git status named, into *st). checkout-index writes the attempt's
 * files while git status reads the real workspace and for-each-ref
 * (make_repo's, collected here: make_refs) reads the real refs: none
 * reads what another writes. checkout-index reads the real objects
 * directly (GIT_OBJECT_DIRECTORY, where the attempt's alternates lead;
 * it writes none): not each first looked for in the attempt's own. */
static int
checkout(struct gitws *g, int rfd, int wfd, struct refrun *fr, char *headref, char **st, size_t *stlen,
    char *why, size_t whyn)
{
	const char *const co[] = { "checkout-index", "-a", "-f", "-u", "-q", NULL };
	const char *const rt[] = { "read-tree", "--reset", "-u", "HEAD", NULL };
	struct gitcall in = { g->git, g->repo, g->work, NULL, NULL, NULL };
	struct gitcall cin = { g->git, g->repo, g->work, NULL, g->objects.v[0], NULL };
	struct gitcall real = { g->git, g->gitdir, g->ws, NULL, NULL, NULL };
	int code = 0, sc, sfd = -1, spid, copid, wsfd, r = -1;

	if (g->from_head) {
		if (make_refs(g, rfd, fr, headref, why, whyn) < 0)
			return -1;
		if (!g->start[0])
			return 0;	/* unborn: nothing to check out */
		if ((code = gitrun(&in, rt, -1, -1, NULL, NULL, 0)) != 0)
			return msg_say(why, whyn, "git read-tree HEAD in the attempt repository failed (status %d)", code);
		return 0;
	}
	if (copy_index(g, rfd) < 0)
		return msg_say(why, whyn, "unable to copy %s/index: %s", g->gitdir, strerror(errno));
	if ((copid = gitrun_start(&cin, co, -1, -1)) < 0)
		return msg_say(why, whyn, "unable to run git checkout-index in the attempt repository: %s", strerror(errno));
	if ((spid = gitrun_spawn(&real, status_args, -1, &sfd)) < 0) {
		msg_say(why, whyn, "unable to run git status in %s: %s", g->ws, strerror(errno));
		(void)gitrun_wait(copid);
		return -1;
	}
	r = make_refs(g, rfd, fr, headref, why, whyn);
	if ((code = gitrun_wait(copid)) != 0 && r == 0)
		r = msg_say(why, whyn, "git checkout-index in the attempt repository failed (status %d)", code);
	sc = gitrun_collect(spid, sfd, st, stlen, 256 << 20);
	if (r < 0 || sc != 0)
		return r < 0 ? -1 : msg_say(why, whyn, "git status in %s failed (status %d)", g->ws, sc);
	r = -1;
	if ((wsfd = open(g->ws, OPEN_DIR)) < 0) {
		msg_say(why, whyn, "%s: %s", g->ws, strerror(errno));
	} else {
		r = apply_status(g, wsfd, wfd, *st, *stlen);
		if (r < 0)
			msg_say(why, whyn, "unable to copy your changes into %s: %s", g->work, strerror(errno));
		close(wsfd);
	}
	return r;
}

/* The user's state at the start as the attempt's base: the paths git
 * status named hashed into the attempt's index (their objects into
 * g->basedir, never the real repository), a tree, a commit over HEAD; the
 * attempt's HEAD (its branch, or itself when detached) moved to it. The
 * agent sees a clean tree; what it changes is all that differs from it. */
static int
make_base(struct gitws *g, int rfd, int afd, const char *headref, const char *st, size_t stlen,
    char *why, size_t whyn)
{
	static const char msgtext[] = "corral: your working state at the start of this attempt (the agent's base; never exported)";
	const char *const ui[] = { "update-index", "--add", "--remove", "-z", "--stdin", NULL };
	const char *const wt[] = { "write-tree", NULL };
	struct gitcall gc = { g->git, g->repo, g->work, NULL, g->basedir, NULL };
	char tree[GITREF_OID_MAX + 1], *paths, *out = NULL, line[GITREF_OID_MAX + 2];
	const char *base;
	size_t n = 0, len;
	int fd, code, pfd;

	if ((paths = malloc(stlen + 1)) == NULL)
		return msg_say(why, whyn, "out of memory");
	for (size_t at = 0; at + 3 < stlen; ) {
		const char *e = st + at;
		size_t l = strlen(e);
		at += l + 1;
		if (l < 4 || !path_ok(e + 3) || e[l - 1] == '/')
			continue;	/* a nested repository: not part of the base */
		memcpy(paths + n, e + 3, l - 2);
		n += l - 2;
	}
	if (n == 0) {
		free(paths);
		return 0;	/* nothing but ignored files: the base is HEAD */
	}
	fd = gitws_stdin(afd, "base.paths", paths, n);
	free(paths);
	if (fd < 0)
		return msg_say(why, whyn, "unable to write %s/base.paths: %s", g->dir, strerror(errno));
	code = gitrun(&gc, ui, fd, -1, NULL, NULL, 0);
	close(fd);
	(void)unlinkat(afd, "base.paths", 0);
	if (code != 0)
		return msg_say(why, whyn, "git update-index of your changes in the attempt repository failed (status %d)", code);
	gc.work = NULL;		/* write-tree is slower given a work tree (gitimport.c) */
	code = gitrun(&gc, wt, -1, -1, &out, &len, 4096);
	if (code != 0 || len < g->hexlen || !gitref_oid_ok(out, g->hexlen, g->hexlen)) {
		free(out);
		return msg_say(why, whyn, "git write-tree of your state failed (status %d)", code);
	}
	snprintf(tree, sizeof tree, "%.*s", (int)g->hexlen, out);
	free(out);
	{
		const char *const ct[] = { "commit-tree", tree, "-m", msgtext, g->start[0] ? "-p" : NULL, g->start, NULL };
		out = NULL;
		code = gitrun(&gc, ct, -1, -1, &out, &len, 4096);
		if (code != 0 || len < g->hexlen || !gitref_oid_ok(out, g->hexlen, g->hexlen)) {
			free(out);
			return msg_say(why, whyn, "git commit-tree of your state failed (status %d)", code);
		}
		snprintf(g->base, sizeof g->base, "%.*s", (int)g->hexlen, out);
		free(out);
	}
	/* its HEAD: a loose ref over the packed one, or HEAD itself */
	snprintf(line, sizeof line, "%s\n", g->base);
	if (headref[0]) {
		char p[GITREF_NAME_MAX + 1];
		snprintf(p, sizeof p, "%s", headref);
		if ((pfd = parentdir_open(rfd, p, 0755, &base)) < 0)
			return msg_say(why, whyn, "unable to write %s in the attempt repository: %s", headref, strerror(errno));
		code = gitws_write_new(pfd, base, line, strlen(line));
		close(pfd);
	} else {
		code = unlinkat(rfd, "HEAD", 0) < 0 ? -1 : gitws_write_new(rfd, "HEAD", line, strlen(line));
	}
	if (code < 0)
		return msg_say(why, whyn, "unable to move the attempt's HEAD to its base: %s", strerror(errno));
	return 0;
}

/* The user's dependency directories (policy "git_deps") that the
 * checkout lacks (ignored, so not copied): a symbolic link to each, at the
 * same relative path; confine grants the real one read and execute only,
 * and the attempt repository's info/exclude hides the link from git. */
static int
link_deps(struct gitws *g, int rfd, int wfd)
{
	char rel[PATH_MAX], real[PATH_MAX * 2], ex[PATH_MAX + 4];
	const char *base;
	struct stat st;
	int pfd, efd = -1, r;

	av_free(&g->deplinks);
	for (size_t i = 0; i < g->ndeps; i++) {
		snprintf(rel, sizeof rel, "%s", g->deps[i]);
		while (strlen(rel) > 1 && rel[strlen(rel) - 1] == '/')
			rel[strlen(rel) - 1] = '\0';
		if (!path_ok(rel) || (size_t)snprintf(real, sizeof real, "%s/%s", g->ws, rel) >= PATH_MAX ||
		    lstat(real, &st) < 0 || !S_ISDIR(st.st_mode) || fstatat(wfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if ((pfd = parentdir_open(wfd, rel, 0755, &base)) < 0)
			return -1;
		r = symlinkat(real, pfd, base);
		close(pfd);
		if (r < 0)
			return -1;
		if (efd < 0 && (efd = openat(rfd, "info/exclude", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
			return -1;
		snprintf(ex, sizeof ex, "/%s\n", rel);
		if (fd_write_all(efd, ex, strlen(ex)) < 0) {
			close(efd);
			return -1;
		}
		av_push(&g->deplinks, rel);
	}
	if (efd >= 0)
		close(efd);
	return g->deplinks.err ? (errno = ENOMEM, -1) : 0;
}

/* Move dfd/name into STORE/git/trash (gfd: STORE/git) under a new name. */
static int
to_trash(int gfd, int dfd, const char *name, const char *tag)
{
	char t[128];

	if (mkdirat(gfd, "trash", 0700) < 0 && errno != EEXIST)
		return -1;
	for (int i = 0; i < 100; i++) {
		int tfd = openat(gfd, "trash", OPEN_DIR);
		if (tfd < 0)
			return -1;
		snprintf(t, sizeof t, "%.40s.%d.%d", tag, (int)getpid(), i);
		int r = renameat(dfd, name, tfd, t);
		int e = errno;
		close(tfd);
		if (r == 0 || (e != EEXIST && e != ENOTEMPTY))
			return errno = e, r;
	}
	return errno = EEXIST, -1;
}

/* The first free slot of this repository's stable checkouts: its lock
 * held (flock, released when corral ends however it ends); a checkout a
 * killed corral left there goes to the trash. */
static int
take_slot(struct gitws *g, const char *store, int gfd, const char *attempt)
{
	char lock[PATH_MAX], slot[PATH_MAX], *sl;
	int cfd, fd, sfd;

	if ((mkdirat(gfd, "co", 0700) < 0 && errno != EEXIST) || (cfd = openat(gfd, "co", OPEN_DIR)) < 0)
		return -1;
	for (int n = 0; n < 64; n++) {
		gitws_slot_path(store, g->ws, n, slot, lock);
		fd = openat(cfd, strrchr(lock, '/') + 1, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue;
		}
		snprintf(g->work, sizeof g->work, "%s", slot);
		sl = strrchr(slot, '/');
		*sl = '\0';
		if ((mkdirat(cfd, strrchr(slot, '/') + 1, 0700) < 0 && errno != EEXIST) ||
		    (sfd = openat(cfd, strrchr(slot, '/') + 1, OPEN_DIR)) < 0) {
			close(fd);
			break;
		}
		if (fstatat(sfd, sl + 1, &(struct stat){ 0 }, AT_SYMLINK_NOFOLLOW) == 0 &&
		    to_trash(gfd, sfd, sl + 1, attempt) < 0) {
			close(sfd);
			close(fd);
			break;
		}
		close(sfd);
		close(cfd);
		g->lockfd = fd;
		return 0;
	}
	close(cfd);
	if (errno == 0 || errno == EWOULDBLOCK)
		errno = EBUSY;
	return -1;
}

void
gitws_trash_reap(const char *store, int quick)
{
	char t[PATH_MAX + 16];
	struct dirent *de;
	struct stat st;
	pid_t p;
	DIR *d;
	int nul, fd;

	if ((size_t)snprintf(t, sizeof t, "%s/git/trash", store) >= sizeof t || lstat(t, &st) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_nlink <= 2)
		return;
	/* quick (finish, whose output no one reads to its end): one child,
	 * not waited for; when this process ends it goes to the nearest
	 * subreaper (corral), as the grandchild below would, with no fork and
	 * wait on the caller's path */
	if ((p = fork()) != 0) {
		while (!quick && p > 0 && waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		return;
	}
	/* none of the caller's descriptors (pipes someone reads to their
	 * end: corral reads create's output to its end), dropped here, before
	 * the grandchild exists: at nice 19 on a busy machine it would hold
	 * them for tens of milliseconds before it ran at all */
	setsid();
	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0)
		for (int i = 0; i < 3; i++)
			(void)dup3(nul, i, 0);
	(void)fd_close_from(3, NULL, 0);
	/* a grandchild of no one's: corral returns while it removes */
	if (!quick && fork() != 0)
		_exit(0);
	/* garbage, not on anyone's path: it yields the CPU to the run's end
	 * (the report, home-stage finish, session-store end) */
	(void)setpriority(PRIO_PROCESS, 0, 19);
	if ((fd = open(t, OPEN_DIR)) < 0 || (d = fdopendir(fd)) == NULL)
		_exit(1);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			(void)rmtree_at(dirfd(d), de->d_name);
	_exit(0);
}

int
gitws_drop_attempt(const char *store, const char *attempt)
{
	char t[PATH_MAX + 16];
	int gfd, r;

	if ((size_t)snprintf(t, sizeof t, "%s/git", store) >= sizeof t || (gfd = open(t, OPEN_DIR)) < 0)
		return -1;
	/* a rename on the run's path; the removal at nice 19, detached */
	r = to_trash(gfd, gfd, attempt, "attempt");
	if (r < 0)
		r = rmtree_at(gfd, attempt);
	close(gfd);
	return r;
}

void
gitws_release(struct gitws *g, int keep)
{
	char store[PATH_MAX], *e, kept[PATH_MAX], name[NAME_MAX + 1];
	int gfd, sfd;

	/* the slot's lock: held here, or by the holder (hold.c) */
	if (g->mode != GIT_WORKTREE || !g->work[0] || strcmp(g->work, g->ws) == 0)
		return;
	/* STORE/git/co/SLOT/NAME */
	snprintf(store, sizeof store, "%s", g->work);
	for (int i = 0; i < 4 && (e = strrchr(store, '/')) != NULL; i++)
		*e = '\0';
	if ((gfd = open(strcat(store, "/git"), OPEN_DIR)) >= 0) {
		snprintf(kept, sizeof kept, "%s", g->work);
		e = strrchr(kept, '/');
		*e = '\0';
		snprintf(name, sizeof name, "%s", e + 1);
		if ((sfd = open(kept, OPEN_DIR)) >= 0) {
			if (keep && (size_t)snprintf(kept, sizeof kept, "%s/work", g->dir) < sizeof kept &&
			    renameat(sfd, name, AT_FDCWD, kept) == 0) {
				memcpy(g->work, kept, sizeof kept);
				if ((size_t)snprintf(g->repo, sizeof g->repo, "%s/.git", kept) >= sizeof g->repo)
					g->repo[0] = '\0';
			} else if (!keep) {
				(void)to_trash(gfd, sfd, name, "work");
			}
			close(sfd);
		}
		close(gfd);
	}
	if (g->lockfd > 0)
		close(g->lockfd);
	g->lockfd = 0;
	g->work[0] = '\0';
	/* the slot is free: its holder may end now, beside what follows */
	gs_released(g);
}

int
gitws_setup(struct gitws *g, const char *store, const char *attempt, char *why, size_t whyn)
{
	char alt[PATH_MAX * 4], headref[GITREF_NAME_MAX + 1], pwhy[128];
	struct refrun fr = { .pid = -1, .fd = -1 };
	struct stat st;
	int sfd = -1, gfd = -1, afd = -1, rfd = -1, wfd = -1, bfd = -1, r = -1;
	char *stat_out = NULL;
	size_t n = 0, stlen = 0;

	snprintf(g->dir, sizeof g->dir, "%s/git/%s", store, attempt);
	clock_gettime(CLOCK_REALTIME, &g->t0);
	/* made here when missing (corral starts create before home-stage
	 * create, which makes it too), as a store: private, ours */
	if ((sfd = open(store, OPEN_DIR)) < 0 && errno == ENOENT)
		sfd = store_open(store, 1, pwhy, sizeof pwhy);
	if (sfd < 0 ||
	    ((mkdirat(sfd, "git", 0700) < 0 && errno != EEXIST)) ||
	    (gfd = openat(sfd, "git", OPEN_DIR)) < 0 || fstat(gfd, &st) < 0)
		return msg_say(why, whyn, "unable to open %s/git: %s", store, strerror(errno)),
		    sfd >= 0 ? close(sfd) : 0, -1;
	close(sfd);
	if (private_dir_check(&st, pwhy, sizeof pwhy) < 0) {
		close(gfd);
		return msg_say(why, whyn, "%s/git is not a private directory of ours: %s", store, pwhy);
	}
	if (mkdirat(gfd, attempt, 0700) < 0 || (afd = openat(gfd, attempt, OPEN_DIR)) < 0) {
		msg_say(why, whyn, "unable to make %s: %s", g->dir, strerror(errno));
		close(gfd);
		return -1;
	}
	gitws_trash_reap(store, 0);	/* what an earlier attempt left to remove */
	/* the base's objects: never the real repository's, read-only to the agent */
	if ((size_t)snprintf(g->basedir, sizeof g->basedir, "%s/base", g->dir) >= sizeof g->basedir)
		goto toolong;
	if ((n = gitws_alt(g, alt, sizeof alt)) >= sizeof alt)
		goto toolong;
	if (mkdirat(afd, "base", 0755) < 0 || (bfd = openat(afd, "base", OPEN_DIR)) < 0 ||
	    mkdirat(bfd, "info", 0755) < 0 || mkdirat(bfd, "pack", 0755) < 0 ||
	    gitws_write_new(bfd, "info/alternates", alt, n) < 0)
		goto sys;
	n = 0;
	alt[0] = '\0';
	if (g->mode == GIT_WORKTREE) {
		if (take_slot(g, store, gfd, attempt) < 0) {
			if (errno == EBUSY)
				msg_say(why, whyn, "64 attempts already run in %s (their checkouts are all taken)", g->ws);
			else
				msg_say(why, whyn, "unable to take a checkout in %s/git/co: %s", store, strerror(errno));
			goto out;
		}
		if ((size_t)snprintf(g->repo, sizeof g->repo, "%s/.git", g->work) >= sizeof g->repo)
			goto toolong;
		if (mkdir(g->work, 0755) < 0 || (wfd = open(g->work, OPEN_DIR)) < 0 ||
		    mkdirat(wfd, ".git", 0755) < 0 || (rfd = openat(wfd, ".git", OPEN_DIR)) < 0)
			goto sys;
		n = gitws_alt(g, alt, sizeof alt);
	} else {
		/* in-place: confine lays the repository over WORKSPACE/.git and
		 * the real objects over real-objects, in its mount namespace */
		snprintf(g->work, sizeof g->work, "%s", g->ws);
		/* what its nested repositories hold now, by content */
		if (gitnested_scan(g->ws, &g->nested) < 0) {
			msg_say(why, whyn, "unable to read the repositories nested in %s: %s", g->ws,
			    strerror(errno ? errno : ENOMEM));
			goto out;
		}
		if ((size_t)snprintf(g->repo, sizeof g->repo, "%s/repo", g->dir) >= sizeof g->repo)
			goto toolong;
		if (mkdirat(afd, "repo", 0755) < 0 || (rfd = openat(afd, "repo", OPEN_DIR)) < 0 ||
		    mkdirat(afd, "real-objects", 0755) < 0)
			goto sys;
		n = (size_t)snprintf(alt, sizeof alt, "%s/real-objects\n", g->dir);
		for (size_t i = 1; i < g->objects.n && n < sizeof alt; i++)
			n += (size_t)snprintf(alt + n, sizeof alt - n, "%s\n", g->objects.v[i]);
	}
	if (n < sizeof alt)
		n += (size_t)snprintf(alt + n, sizeof alt - n, "%s\n", g->basedir);
	if (n >= sizeof alt) {
toolong:
		errno = ENAMETOOLONG;
		goto sys;
	}
	if (make_repo(g, rfd, alt, &fr, why, whyn) < 0)
		goto out;
	if (g->mode == GIT_WORKTREE) {
		if (checkout(g, rfd, wfd, &fr, headref, &stat_out, &stlen, why, whyn) < 0)
			goto out;
		if (link_deps(g, rfd, wfd) < 0) {
			msg_say(why, whyn, "unable to link your dependency directories into %s: %s", g->work, strerror(errno));
			goto out;
		}
	} else {
		struct gitcall real = { g->git, g->gitdir, g->ws, NULL, NULL, NULL };
		int code;
		if (make_refs(g, rfd, &fr, headref, why, whyn) < 0)
			goto out;
		if (copy_index(g, rfd) < 0) {
			msg_say(why, whyn, "unable to copy %s/index: %s", g->gitdir, strerror(errno));
			goto out;
		}
		if ((code = gitrun(&real, status_args, -1, -1, &stat_out, &stlen, 256 << 20)) != 0) {
			msg_say(why, whyn, "git status in %s failed (status %d)", g->ws, code);
			goto out;
		}
	}
	snprintf(g->base, sizeof g->base, "%s", g->start);
	if (stat_out && make_base(g, rfd, afd, headref, stat_out, stlen, why, whyn) < 0)
		goto out;
	/* the refs it starts with (its branch at the base), where it cannot
	 * reach them: the import takes the branches and tags that moved
	 * (gitxref.c) */
	if (gitws_copy(rfd, "packed-refs", afd, "start-refs", ~0ULL) < 0)
		goto sys;
	if (headref[0] && strcmp(g->base, g->start) != 0) {
		char line[GITREF_NAME_MAX + GITREF_OID_MAX + 4];
		int fd = openat(afd, "start-refs", O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		snprintf(line, sizeof line, "%s %s\n", g->base, headref);
		if (fd < 0 || fd_write_all(fd, line, strlen(line)) < 0 || close(fd) < 0)
			goto sys;
	}
	/* the index as it was at the start, stat information and all, where
	 * the agent cannot reach it: the import starts from it */
	if (gitws_copy_index(rfd, "index", afd, "base.index") < 0 && errno != ENOENT)
		goto sys;
	/* last: what the checkout holds now (no walk: git alone judges) */
	if (g->mode == GIT_WORKTREE)
		(void)gitseen_take(&g->seen, wfd, afd, &g->deplinks);
	r = 0;
	goto out;
sys:
	msg_say(why, whyn, "unable to set up %s: %s", g->dir, strerror(errno));
out:
	refs_drop(&fr);
	free(stat_out);
	if (rfd >= 0)
		close(rfd);
	if (wfd >= 0)
		close(wfd);
	if (bfd >= 0)
		close(bfd);
	if (afd >= 0)
		close(afd);
	if (r < 0) {
		if (g->lockfd > 0) {
			char w[PATH_MAX];
			snprintf(w, sizeof w, "%s", g->work);
			*strrchr(w, '/') = '\0';
			int d = open(w, OPEN_DIR);
			if (d >= 0 && rmtree_at(d, strrchr(g->work, '/') + 1) < 0)
				r = -1;
			if (d >= 0)
				close(d);
			close(g->lockfd);
			g->lockfd = 0;
		}
		(void)rmtree_at(gfd, attempt);
	}
	close(gfd);
	return r;
}
