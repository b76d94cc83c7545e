/* gitapply: corral apply and corral branches, the user's side of the
 * branches corral makes (corral(1), GIT WORKSPACES). Both run in the
 * user's own repository, with gitrun's fixed environment and settings;
 * what they compute on the way (the tree of the user's working files, the
 * merge) goes to a temporary object directory, never the real one. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fdio.h"
#include "gitcarry.h"
#include "gitref.h"
#include "gitrun.h"
#include "gitws.h"
#include "msg.h"
#include "rmtree.h"
#include "status.h"

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static void
usage_apply(int fd)
{
	fprintf(fd == 1 ? stdout : stderr, "usage: corral apply [-w WORKSPACE] ID\n");
}

static void
usage_branches(int fd)
{
	fprintf(fd == 1 ? stdout : stderr, "usage: corral branches [-w WORKSPACE] [--prune]\n");
}

/* -w WORKSPACE and --prune; the operands stay in argv from *first. */
static int
parse(int argc, char **argv, const char **ws, int *prune, void (*usage)(int))
{
	static const struct option lo[] = {
		{ "workspace", required_argument, NULL, 'w' },
		{ "prune", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:w:h", lo, NULL)) != -1) {
		switch (c) {
		case 'w': *ws = optarg; break;
		case 'P':
			if (prune) {
				*prune = 1;
				break;
			}
			/* fall through */
		default: {
			char cmd[32];
			if (c == 'h') {
				usage(1);
				return msg_stdout_done() == 0 ? 1 : -1;
			}
			snprintf(cmd, sizeof cmd, "corral %.16s", argv[0]);
			msg_badopt(c == 'P' ? '?' : c, argc, argv, cmd);
			return -1;
		}
		}
	}
	return 0;
}

/* The repository holding ws (default: the current directory). -1: reported. */
static int
open_repo(const char *ws, struct gitws *g)
{
	char real[PATH_MAX], top[PATH_MAX], sub[PATH_MAX], why[PATH_MAX + 128];

	memset(g, 0, sizeof *g);
	if (realpath(ws ? ws : ".", real) == NULL)
		return msg_fatal_sys("workspace %s", ws ? ws : "."), -1;
	if (!gitws_find_top(real, top, sub)) {
		msg_fatal("%s is not in a git repository", real);
		msg_hint("run it in the repository corral ran in, or pass -w DIR");
		return -1;
	}
	if ((g->git = gitrun_find()) == NULL)
		return msg_fatal("git is not in /usr/bin, /bin or /usr/local/bin"), -1;
	if (gitws_locate(g, top, why, sizeof why) < 0)
		return msg_fatal("%s", why), -1;
	return 0;
}

/* run git and take its output (NULL: thrown away); its status */
static int
git_out(const struct gitcall *gc, const char *const *args, char **out, size_t *len)
{
	return gitrun(gc, args, -1, -1, out, len, 64 << 20);
}

/* "corral/1a2b3c4d", "1a2b3c4d" or the whole attempt id: the branch. */
static int
branch_of(const char *id, char *ref, size_t n)
{
	const char *h = strncmp(id, "corral/", 7) == 0 ? id + 7 : id;
	size_t l = strlen(h);

	if (l < 8 || l > 64 || strspn(h, "0123456789abcdef") != l)
		return -1;
	snprintf(ref, n, "refs/heads/corral/%.8s", h);
	return 0;
}

/* A scratch object directory in the git directory, reading the real
 * objects through its alternates: STORE into dir. */
static int
scratch(const struct gitws *g, char *dir, size_t n)
{
	char alt[PATH_MAX * 4];
	size_t k = 0;
	int fd, r;

	if ((size_t)snprintf(dir, n, "%s/corral-apply-XXXXXX", g->gitdir) >= n || mkdtemp(dir) == NULL)
		return -1;
	if ((k = gitws_alt(g, alt, sizeof alt)) >= sizeof alt)
		return errno = ENAMETOOLONG, -1;
	if ((fd = open(dir, OPEN_DIR)) < 0)
		return -1;
	r = mkdirat(fd, "objects", 0700) < 0 || mkdirat(fd, "objects/info", 0700) < 0 ||
	    mkdirat(fd, "objects/pack", 0700) < 0 ? -1 : 0;
	if (r == 0) {
		int af = openat(fd, "objects/info/alternates", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		r = af < 0 || fd_write_all(af, alt, k) < 0 ? -1 : 0;
		if (af >= 0)
			close(af);
	}
	close(fd);
	return r;
}

static void
scratch_remove(const char *dir)
{
	if (dir[0])
		(void)rmtree_at(AT_FDCWD, dir);
}

int
cmd_apply(int argc, char **argv, char **envp)
{
	struct gitws g;
	const char *ws = NULL;
	char ref[128], dir[PATH_MAX] = "", idx[PATH_MAX + 16], obj[PATH_MAX + 16], peel[160];
	char t[GITREF_OID_MAX + 1], h[GITREF_OID_MAX + 1] = "", w[GITREF_OID_MAX + 1], wc[GITREF_OID_MAX + 1];
	char r[GITREF_OID_MAX + 1], *out = NULL;
	size_t len = 0, ncount = 0;
	int code, rc = EXIT_USAGE;

	(void)envp;
	if ((code = parse(argc, argv, &ws, NULL, usage_apply)) != 0)
		return code > 0 ? 0 : EXIT_USAGE;
	if (optind != argc - 1) {
		msg_usage(optind >= argc ? "no branch named" : "one branch at a time");
		usage_apply(2);
		return EXIT_USAGE;
	}
	if (branch_of(argv[optind], ref, sizeof ref) < 0) {
		msg_usage("%.80s is not an attempt id or corral/ branch (8 to 64 hex digits)", argv[optind]);
		return EXIT_USAGE;
	}
	if (open_repo(ws, &g) < 0)
		return EXIT_USAGE;
	struct gitcall real = { g.git, g.gitdir, g.ws, NULL, NULL, NULL };
	snprintf(peel, sizeof peel, "%s^{commit}", ref);
	{
		const char *const rp[] = { "rev-parse", "--verify", "-q", peel, NULL };
		const char *const rh[] = { "rev-parse", "--verify", "-q", "HEAD^{commit}", NULL };
		if (gitws_oid(&g, &real, rp, -1, t) < 0) {
			msg_fatal("no branch %s in %s", ref + 11, g.ws);
			msg_hint("corral branches lists them");
			rc = EXIT_NO;
			goto out;
		}
		if (gitws_oid(&g, &real, rh, -1, h) < 0)
			h[0] = '\0';	/* unborn */
	}
	if (scratch(&g, dir, sizeof dir) < 0) {
		msg_fatal_sys("unable to make a scratch directory in %s", g.gitdir);
		goto out;
	}
	snprintf(idx, sizeof idx, "%s/index", dir);
	snprintf(obj, sizeof obj, "%s/objects", dir);
	/* your working files as a tree (tracked ones only) */
	{
		struct gitcall sc = { g.git, g.gitdir, g.ws, idx, obj, NULL };
		const char *const au[] = { "add", "-u", NULL };
		const char *const wt[] = { "write-tree", NULL };
		int gfd = open(g.gitdir, OPEN_DIR), dfd = open(dir, OPEN_DIR);
		int cp = gfd < 0 || dfd < 0 ? -1 : gitws_copy_index(gfd, "index", dfd, "index");
		if (cp < 0 && errno != ENOENT) {
			msg_fatal_sys("unable to copy %s/index", g.gitdir);
			cp = -2;
		}
		if (gfd >= 0)
			close(gfd);
		if (dfd >= 0)
			close(dfd);
		if (cp == -2)
			goto out;
		if ((code = git_out(&sc, au, NULL, NULL)) != 0 || gitws_oid(&g, &sc, wt, -1, w) < 0) {
			msg_fatal("git add -u of your working files failed (status %d)", code);
			goto out;
		}
		const char *const ct[] = { "commit-tree", w, "-m", "corral apply: your working files", h[0] ? "-p" : NULL, h, NULL };
		if (gitws_oid(&g, &sc, ct, -1, wc) < 0) {
			msg_fatal("git commit-tree of your working files failed");
			goto out;
		}
		/* the three-way merge: base where the branch left your history */
		if (h[0]) {
			const char *const mt[] = { "merge-tree", "--write-tree", "--name-only", "--no-messages", wc, t, NULL };
			code = git_out(&sc, mt, &out, &len);
			if ((code != 0 && code != 1) || len < g.hexlen || !gitref_oid_ok(out, g.hexlen, g.hexlen)) {
				msg_fatal("git merge-tree failed (status %d)", code);
				goto out;
			}
			snprintf(r, sizeof r, "%.*s", (int)g.hexlen, out);
			if (code == 1) {
				char *names = out + g.hexlen + strspn(out + g.hexlen, "\n");
				for (char *c = names; *c; c++)
					if (*c == '\n')
						*c = c[1] ? ' ' : '\0';
				msg_fatal("%s conflicts with your working files: %s; nothing was changed", ref + 11, names);
				msg_hint("commit or stash your changes, then git merge %s and resolve the conflicts", ref + 11);
				rc = EXIT_NO;
				goto out;
			}
		} else {
			const char *const et[] = { "hash-object", "-t", "tree", "/dev/null", NULL };
			char empty[GITREF_OID_MAX + 1], tt[GITREF_OID_MAX + 16];
			snprintf(tt, sizeof tt, "%s^{tree}", t);
			const char *const rt[] = { "rev-parse", "--verify", "-q", tt, NULL };
			if (gitws_oid(&g, &sc, et, -1, empty) < 0 || strcmp(empty, w) != 0 ||
			    gitws_oid(&g, &sc, rt, -1, r) < 0) {
				msg_fatal("your repository has no commit yet and files in its index: %s cannot be applied over them; nothing was changed", ref + 11);
				msg_hint("git merge %s", ref + 11);
				rc = EXIT_NO;
				goto out;
			}
		}
		free(out);
		out = NULL;
		/* what it changes in your files; refuse to overwrite an untracked one */
		const char *const dt[] = { "diff-tree", "-r", "-z", "--no-renames", "--name-status", w, r, NULL };
		if ((code = git_out(&sc, dt, &out, &len)) != 0) {
			msg_fatal("git diff-tree failed (status %d)", code);
			goto out;
		}
		int tfd = open(g.ws, OPEN_DIR);
		for (size_t at = 0; tfd >= 0 && at < len; ) {
			const char *st = out + at, *p = st + strlen(st) + 1;
			struct stat sb;
			at = (size_t)(p - out) + strlen(p) + 1;
			ncount++;
			if (*st == 'A' && fstatat(tfd, p, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
				msg_fatal("%s adds %s, and you have an untracked %s there; nothing was changed", ref + 11, p, p);
				msg_hint("move it aside, then corral apply again");
				close(tfd);
				rc = EXIT_NO;
				goto out;
			}
		}
		if (tfd >= 0)
			close(tfd);
		/* the files: git itself moves the working tree from your state to
		 * the result (the scratch index holds your state, stat and all):
		 * written and removed the way git checkout does, nothing touched
		 * when a file is in the way */
		const char *const rt[] = { "read-tree", "-m", "-u", w, r, NULL };
		if ((code = git_out(&sc, rt, NULL, NULL)) != 0) {
			msg_fatal("git read-tree -m -u into %s failed (status %d); nothing was changed", g.ws, code);
			rc = EXIT_NO;
			goto out;
		}
	}
	msg_info("applied %s: %zu file%s changed in your working tree, uncommitted beside your own changes; review: git diff; new files are untracked",
	    ref + 11, ncount, ncount == 1 ? "" : "s");
	rc = 0;
out:
	free(out);
	scratch_remove(dir);
	gitws_free(&g);
	return rc;
}

/* The attempt id a branch was made for, and the commit it started from
 * ("root": none), from its reflog's first line, as data. */
static void
attempt_of(const struct gitws *g, const char *ref, char *id, size_t n, char *from)
{
	char p[PATH_MAX + 160], *buf, *m;
	size_t len;

	snprintf(id, n, "%.8s", ref + 18);
	from[0] = '\0';
	if ((size_t)snprintf(p, sizeof p, "%s/logs/%s", g->common, ref) >= sizeof p ||
	    file_read_bounded(AT_FDCWD, p, 1 << 16, &buf, &len) < 0)
		return;
	if ((m = strstr(buf, "\tcorral: attempt ")) != NULL && strspn(m + 17, "0123456789abcdef") == 32) {
		snprintf(id, n, "%.32s", m + 17);
		m += 49;
		if (strncmp(m, " from root", 10) == 0)
			snprintf(from, GITREF_OID_MAX + 1, "root");
		else if (strncmp(m, " from ", 6) == 0 && strspn(m + 6, "0123456789abcdef") == g->hexlen)
			snprintf(from, GITREF_OID_MAX + 1, "%.*s", (int)g->hexlen, m + 6);
	}
	free(buf);
}

int
cmd_branches(int argc, char **argv, char **envp)
{
	const char *const fer[] = { "for-each-ref", "--format=%(refname) %(objectname) %(committerdate:format:%Y-%m-%d %H:%M)",
		"refs/heads/corral/", NULL };
	const char *const rh[] = { "rev-parse", "--verify", "-q", "HEAD^{commit}", NULL };
	struct gitws g;
	const char *ws = NULL;
	char *list = NULL, h[GITREF_OID_MAX + 1] = "";
	size_t len;
	int prune = 0, code, rc = EXIT_USAGE, shown = 0, removed = 0;

	(void)envp;
	if ((code = parse(argc, argv, &ws, &prune, usage_branches)) != 0)
		return code > 0 ? 0 : EXIT_USAGE;
	if (optind != argc) {
		msg_usage("no operand expected: %.80s", argv[optind]);
		usage_branches(2);
		return EXIT_USAGE;
	}
	if (open_repo(ws, &g) < 0)
		return EXIT_USAGE;
	struct gitcall gc = { g.git, g.gitdir, NULL, NULL, NULL, NULL };
	if (gitws_oid(&g, &gc, rh, -1, h) < 0)
		h[0] = '\0';
	if ((code = git_out(&gc, fer, &list, &len)) != 0) {
		msg_fatal("git for-each-ref in %s failed (status %d)", g.gitdir, code);
		goto out;
	}
	for (char *l = list, *e; *l; l = e) {
		char ref[GITREF_NAME_MAX + 1], oid[GITREF_OID_MAX + 1], base[GITREF_OID_MAX + 1] = "", id[65];
		char neg[GITREF_OID_MAX + 2], *o = NULL, stat[256] = "no files changed", *paths = NULL;
		const char *state = "not merged";
		size_t ol, pl;
		long commits = 0;

		e = l + strcspn(l, "\n");
		if (*e)
			*e++ = '\0';
		if (sscanf(l, "%255s %64s", ref, oid) != 2 || !gitref_name_ok(ref, strlen(ref)) ||
		    !gitref_oid_ok(oid, strlen(oid), g.hexlen))
			continue;
		const char *date = strchr(strchr(l, ' ') + 1, ' ') + 1;
		char from[GITREF_OID_MAX + 1];
		const char *const mb[] = { "merge-base", h, oid, NULL };
		const char *const ia[] = { "merge-base", "--is-ancestor", from, oid, NULL };
		attempt_of(&g, ref, id, sizeof id, from);
		/* where it started (its reflog), else where it left HEAD's history */
		if (strcmp(from, "root") == 0)
			base[0] = '\0';
		else if (from[0] && git_out(&gc, ia, NULL, NULL) == 0)
			snprintf(base, sizeof base, "%s", from);
		else if (h[0] && gitws_oid(&g, &gc, mb, -1, base) < 0)
			base[0] = '\0';
		snprintf(neg, sizeof neg, "^%s", base);
		const char *const rl[] = { "rev-list", "--count", oid, base[0] ? neg : NULL, NULL };
		if (git_out(&gc, rl, &o, &ol) == 0)
			commits = strtol(o, NULL, 10);
		free(o);
		o = NULL;
		const char *const ds[] = { "diff-tree", "-r", "--shortstat", base[0] ? base : "--root", oid, NULL };
		if (git_out(&gc, ds, &o, &ol) == 0) {
			char *s = o + strspn(o, " \n");
			if (!base[0])
				s += strcspn(s, "\n"), s += strspn(s, " \n");
			if (*s)
				snprintf(stat, sizeof stat, "%.*s", (int)strcspn(s, "\n"), s);
		}
		free(o);
		o = NULL;
		/* merged: HEAD holds it; applied: HEAD holds each file it changed as it has it */
		const char *const anc[] = { "merge-base", "--is-ancestor", oid, "HEAD", NULL };
		const char *const dn[] = { "diff-tree", "-r", "-z", "--name-only", base[0] ? base : "--root", oid, NULL };
		if (h[0] && git_out(&gc, anc, NULL, NULL) == 0)
			state = "merged";
		else if (h[0] && base[0] && git_out(&gc, dn, &paths, &pl) == 0 && pl > 0) {
			struct argv q = { 0 };
			av_push(&q, "diff-tree");
			av_push(&q, "--quiet");
			av_push(&q, "-r");
			av_push(&q, "HEAD");
			av_push(&q, oid);
			av_push(&q, "--");
			for (size_t at = 0; at < pl; at += strlen(paths + at) + 1)
				av_pushf(&q, ":(literal)%s", paths + at);
			if (!q.err && git_out(&gc, (const char *const *)q.v, NULL, NULL) == 0)
				state = "applied";
			av_free(&q);
		}
		free(paths);
		if (prune && strcmp(state, "not merged") != 0) {
			const char *const ur[] = { "update-ref", "-d", ref, oid, NULL };
			if (git_out(&gc, ur, NULL, NULL) == 0) {
				printf("removed %s (%s)\n", ref + 11, state);
				removed++;
			} else {
				msg_warn("unable to remove %s", ref + 11);
			}
			continue;
		}
		printf("%-16s  %s  attempt %s  %ld commit%s, %s  %s\n", ref + 11, date, id, commits,
		    commits == 1 ? "" : "s", stat, state);
		shown++;
	}
	if (!shown && !removed)
		msg_info("no corral branches in %s", g.ws);
	rc = msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
out:
	free(list);
	gitws_free(&g);
	return rc;
}
