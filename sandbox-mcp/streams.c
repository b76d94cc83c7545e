/* A command's stdout and stderr kept per checkpoint, for drun's
 * checkpoint_read_stdstreams: STORE/sessions/ID/streams/CHECKPOINT.{out,err},
 * written by the server (never reachable by commands), the streams of the
 * last session_bash whose files that checkpoint holds; at most
 * max_checkpoints checkpoints' worth, the oldest going first. Not carried
 * by snapshots. I/O. */
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
#include "streams.h"
#include "window.h"

enum { STREAM_READ_MAX = 1 << 20 };

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
