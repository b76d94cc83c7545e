/* A command's stdout and stderr kept per checkpoint, for drun's
 * checkpoint_read_stdstreams: STORE/sessions/ID/streams/CHECKPOINT.{out,err},
 * written by the server (never reachable by commands), the streams of the
 * last session_bash whose files that checkpoint holds; at most
 * max_checkpoints checkpoints' worth, the oldest going first. A snapshot
 * or a fork carries them in the history, as the tree refs/meta/streams
 * (streams_to_history), and the new session takes them back from it
 * (streams_from_history). I/O. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "ckpt.h"
#include "fdio.h"
#include "git.h"
#include "run.h"
#include "streams.h"
#include "window.h"

enum {
	STREAM_READ_MAX = 1 << 20,
	STREAMS_HIST_MAX = 512 << 20,	/* all of a history's streams, read back */
};

/* NAME is CHECKPOINT.out or CHECKPOINT.err (40 lowercase hex) */
static int
name_ok(const char *n, size_t l)
{
	if (l != 44 || (memcmp(n + 40, ".out", 4) && memcmp(n + 40, ".err", 4)))
		return 0;
	for (size_t i = 0; i < 40; i++)
		if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			return 0;
	return 1;
}

/* the oldest pairs go while more than keep are there */
static void
prune(int dfd, long keep)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	long n = 0;
	char old[64] = "";
	time_t ot = 0;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (;;) {
		struct stat st;
		rewinddir(d);
		n = 0;
		old[0] = '\0';
		while ((de = readdir(d)) != NULL) {
			size_t l = strlen(de->d_name);
			if (l != 44 || strcmp(de->d_name + 40, ".out") != 0 ||
			    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			n++;
			if (!old[0] || st.st_mtime < ot) {
				snprintf(old, sizeof old, "%.40s", de->d_name);
				ot = st.st_mtime;
			}
		}
		if (n <= keep || !old[0])
			break;
		{
			char f[64];
			snprintf(f, sizeof f, "%s.out", old);
			unlinkat(dirfd(d), f, 0);
			snprintf(f, sizeof f, "%s.err", old);
			unlinkat(dirfd(d), f, 0);
		}
	}
	closedir(d);
}

void
streams_save(struct sbx *s, struct sess *ss, const char *id, const struct buf *o, const struct buf *e)
{
	char f[64];
	int dfd;

	if (strlen(id) != 40)
		return;
	if (mkdirat(ss->dirfd, "streams", 0700) < 0 && errno != EEXIST)
		return;
	if ((dfd = openat(ss->dirfd, "streams", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	snprintf(f, sizeof f, "%s.out", id);
	file_replace_atomic(dfd, f, o->p ? o->p : "", o->len, 0600);
	snprintf(f, sizeof f, "%s.err", id);
	file_replace_atomic(dfd, f, e->p ? e->p : "", e->len, 0600);
	prune(dfd, s->cfg.max_checkpoints);
	close(dfd);
}

int
streams_to_history(struct sbx *s, struct sess *ss, char *err, size_t errn)
{
	const char *h[] = { "hash-object", "-w", "--no-filters", "--stdin-paths", NULL };
	const char *mk[] = { "mktree", NULL };
	const char *del[] = { "update-ref", "-d", "refs/meta/streams", NULL };
	char tree[CKPT_ID_MAX];
	const char *u[] = { "update-ref", "refs/meta/streams", tree, NULL };
	struct buf paths = { 0 }, names = { 0 }, lines = { 0 };
	struct run_res r = { 0 };
	struct dirent *de;
	DIR *d = NULL;
	int fd, rc = -1;
	size_t n = 0;

	if ((fd = openat(ss->dirfd, "streams", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
	    (d = fdopendir(fd)) == NULL)
		close(fd);
	while (d && (de = readdir(d)) != NULL) {
		struct stat st;
		if (!name_ok(de->d_name, strlen(de->d_name)) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		buf_adds(&paths, ss->dir);
		buf_adds(&paths, "/streams/");
		buf_adds(&paths, de->d_name);
		buf_adds(&paths, "\n");
		buf_add(&names, de->d_name, 45);	/* with its NUL */
		n++;
	}
	if (d)
		closedir(d);
	if (n == 0) {
		/* none: no stale tree either */
		char e2[SBX_ERR_MAX];
		git_run(s, ss, del, NULL, 0, 0, &r, e2, sizeof e2);	/* absent already: fine */
		rc = 0;
		goto out;
	}
	if (git_run(s, ss, h, paths.p, paths.len, n * 41 + 1, &r, err, errn) < 0 || r.out.len != n * 41)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		buf_adds(&lines, "100644 blob ");
		buf_add(&lines, r.out.p + i * 41, 40);
		buf_adds(&lines, "\t");
		buf_adds(&lines, names.p + i * 45);
		buf_adds(&lines, "\n");
	}
	run_res_free(&r);
	if (git_run(s, ss, mk, lines.p, lines.len, 128, &r, err, errn) < 0 || r.out.len < 40)
		goto fail;
	snprintf(tree, sizeof tree, "%.40s", r.out.p);
	run_res_free(&r);
	rc = git_run(s, ss, u, NULL, 0, 0, &r, err, errn);
	goto out;
fail:
	if (err[0] == '\0')
		sbx_err(err, errn, "session %s: unable to keep the command streams in its history", ss->id);
out:
	run_res_free(&r);
	buf_free(&paths);
	buf_free(&names);
	buf_free(&lines);
	return rc;
}

int
streams_from_history(struct sbx *s, struct sess *ss, char *err, size_t errn)
{
	const char *ls[] = { "ls-tree", "refs/meta/streams", NULL };
	const char *cat[] = { "cat-file", "--batch", NULL };
	const char *ck[] = { "cat-file", "-t", "refs/meta/streams", NULL };
	struct run_res r = { 0 }, b = { 0 };
	struct buf want = { 0 }, names = { 0 };
	char e2[SBX_ERR_MAX];
	size_t n = 0, at = 0;
	int dfd = -1, rc = -1;

	/* none there (a snapshot from before, a session that ran nothing) */
	if (git_run(s, ss, ck, NULL, 0, 64, &r, e2, sizeof e2) < 0) {
		run_res_free(&r);
		return 0;
	}
	run_res_free(&r);
	if (git_run(s, ss, ls, NULL, 0, 1 << 20, &r, err, errn) < 0)
		goto out;
	/* "100644 blob SHA\tNAME": what a snapshot holds is not trusted */
	for (char *p = r.out.p ? r.out.p : "", *e; *p; p = e) {
		char *tab;
		e = p + strcspn(p, "\n");
		if (*e)
			*e++ = '\0';
		if (strncmp(p, "100644 blob ", 12) || (tab = strchr(p, '\t')) == NULL || tab - p != 52 ||
		    !name_ok(tab + 1, strlen(tab + 1))) {
			sbx_err(err, errn, "session %s: refs/meta/streams holds an entry that is not a stream: refused", ss->id);
			goto out;
		}
		buf_add(&want, p + 12, 40);
		buf_adds(&want, "\n");
		buf_add(&names, tab + 1, 45);
		n++;
	}
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (git_run(s, ss, cat, want.p, want.len, STREAMS_HIST_MAX, &b, err, errn) < 0)
		goto out;
	if (b.out_bytes > b.out.len) {
		sbx_err(err, errn, "session %s: its command streams are over %d MiB: refused", ss->id, STREAMS_HIST_MAX >> 20);
		goto out;
	}
	if (mkdirat(ss->dirfd, "streams", 0700) < 0 && errno != EEXIST)
		goto sys;
	if ((dfd = openat(ss->dirfd, "streams", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		goto sys;
	/* "SHA blob SIZE\n" then SIZE bytes and "\n", each in turn */
	for (size_t i = 0; i < n; i++) {
		char *nl = at < b.out.len ? memchr(b.out.p + at, '\n', b.out.len - at) : NULL;
		unsigned long long size;
		char *end;
		if (nl == NULL || nl - (b.out.p + at) < 47 || memcmp(b.out.p + at + 40, " blob ", 6))
			goto bad;
		size = strtoull(b.out.p + at + 46, &end, 10);
		if (end != nl || size > STREAM_READ_MAX || (size_t)(nl + 1 - b.out.p) + size + 1 > b.out.len)
			goto bad;
		if (file_replace_atomic(dfd, names.p + i * 45, nl + 1, (size_t)size, 0600) < 0)
			goto sys;
		at = (size_t)(nl + 1 - b.out.p) + (size_t)size + 1;
	}
	prune(dfd, s->cfg.max_checkpoints);
	rc = 0;
	goto out;
bad:
	sbx_err(err, errn, "session %s: its command streams did not read back", ss->id);
	goto out;
sys:
	sbx_err(err, errn, "session %s: streams: %s", ss->id, strerror(errno));
out:
	if (dfd >= 0)
		close(dfd);
	run_res_free(&r);
	run_res_free(&b);
	buf_free(&want);
	buf_free(&names);
	return rc;
}

int
tool_checkpoint_read_stdstreams(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char cs[CKPT_ID_MAX + 8], id[CKPT_ID_MAX], stream[16], pat[1024], f[80];
	int64_t offset = 0, limit = -1;
	struct sess ss;
	char *buf = NULL;
	size_t len = 0;
	int haspat, rc = -1;
	regex_t re;

	if (arg_ckpt(a, "checkpoint_id", cs, sizeof cs, err, errn) < 0 ||
	    arg_str(a, "stream", 0, stream, sizeof stream, err, errn) < 0 ||
	    arg_int(a, "offset", 0, INT64_MAX, &offset, err, errn) < 0 ||
	    arg_int(a, "limit", 0, INT64_MAX, &limit, err, errn) < 0 ||
	    (haspat = arg_str(a, "pattern", 0, pat, sizeof pat, err, errn)) < 0)
		return -1;
	if (stream[0] && strcmp(stream, "stdout") && strcmp(stream, "stderr"))
		return sbx_err(err, errn, "argument \"stream\" must be \"stdout\" or \"stderr\"");
	if (haspat && regcomp(&re, pat, REG_EXTENDED | REG_NEWLINE) != 0)
		return sbx_err(err, errn, "pattern is not a valid extended regular expression");
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out0;
	if ((cs[0] ? ckpt_resolve(s, &ss, cs, NULL, id, err, errn) : ckpt_head(s, &ss, id, err, errn)) < 0)
		goto out;
	snprintf(f, sizeof f, "streams/%s.%s", id, strcmp(stream, "stderr") == 0 ? "err" : "out");
	if (file_read_bounded(ss.dirfd, f, STREAM_READ_MAX + 1, &buf, &len) < 0) {
		if (errno != ENOENT) {
			sbx_err(err, errn, "checkpoint %.12s: %s", id, strerror(errno));
			goto out;
		}
		buf = NULL;
		len = 0;
	}
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
	jw_key(out, "stream");
	jw_str(out, stream[0] ? stream : "stdout");
	window_emit(out, buf, len, offset, limit, haspat ? &re : NULL);
	rc = 0;
out:
	free(buf);
	sess_release(&ss);
out0:
	if (haspat)
		regfree(&re);
	return rc;
}
