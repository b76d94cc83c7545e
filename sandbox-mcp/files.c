#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "base64.h"
#include "ckpt.h"
#include "fdio.h"
#include "files.h"
#include "rmtree.h"
#include "rnd.h"
#include "sess.h"
#include "wspath.h"
#include "window.h"
#include "wsscan.h"

/* Read a workspace file whole (bounded). */
static int
slurp(struct sess *ss, const char *path, size_t max, char **buf, size_t *len, char *err, size_t errn)
{
	const char *base;
	int d = ws_parent(ss->wsfd, path, 0, &base);

	if (d < 0)
		return sbx_err(err, errn, "%s: %s", path, ws_strerror(errno));
	if (file_read_bounded(d, base, max, buf, len) < 0) {
		int e = errno;
		close(d);
		return sbx_err(err, errn, "%s: %s", path, e == ELOOP ? ws_strerror(e) : e == EFBIG ?
		    "larger than the read limit" : e == EINVAL ? "not a regular file" : strerror(e));
	}
	close(d);
	return 0;
}

int
tool_session_read_file(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char path[WS_PATH_MAX + 1], pat[1024];
	int64_t offset = 0, limit = -1;
	regex_t re;
	struct sess ss;
	char *buf;
	size_t len;
	int haspat;

	if (arg_str(a, "path", 1, path, sizeof path, err, errn) < 0 || ws_path_check(path, err, errn) < 0 ||
	    arg_int(a, "offset", 0, INT64_MAX, &offset, err, errn) < 0 ||
	    arg_int(a, "limit", 0, INT64_MAX, &limit, err, errn) < 0 ||
	    (haspat = arg_str(a, "pattern", 0, pat, sizeof pat, err, errn)) < 0)
		return -1;
	if (haspat && regcomp(&re, pat, REG_EXTENDED | REG_NEWLINE) != 0)
		return sbx_err(err, errn, "pattern is not a valid extended regular expression");
	if (sess_pick(s, a, &ss, err, errn) < 0 || slurp(&ss, path, FILE_READ_MAX, &buf, &len, err, errn) < 0) {
		if (haspat)
			regfree(&re);
		sess_release(&ss);
		return -1;
	}
	jw_key(out, "path");
	jw_str(out, path);
	window_emit(out, buf, len, offset, limit, haspat ? &re : NULL);
	free(buf);
	if (haspat)
		regfree(&re);
	sess_release(&ss);
	return 0;
}

/* The "paths" array arr (-1: arg_tok refused it): bounded, and every path
 * checked before the first is touched. */
static int
paths_check(const struct targs *a, int arr, char *err, size_t errn)
{
	char path[WS_PATH_MAX + 1];

	if (arr < 0)
		return -1;
	if (a->t[arr].size > WS_PATHS_MAX)
		return sbx_err(err, errn, "more than %d paths", WS_PATHS_MAX);
	for (int i = 0; i < a->t[arr].size; i++)
		if (arg_tokstr(a, arg_elem(a, arr, i), "a path", path, sizeof path, err, errn) < 0 ||
		    ws_path_check(path, err, errn) < 0)
			return -1;
	return 0;
}

int
tool_session_read_files(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char path[WS_PATH_MAX + 1], e1[SBX_ERR_MAX];
	int arr = arg_tok(a, "paths", JSMN_ARRAY, 1, err, errn);
	size_t total = 0;
	struct sess ss;

	if (paths_check(a, arr, err, errn) < 0)
		return -1;
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	jw_key(out, "files");
	jw_open(out, '[');
	for (int i = 0; i < a->t[arr].size; i++) {
		char *buf;
		size_t len;
		arg_tokstr(a, arg_elem(a, arr, i), "a path", path, sizeof path, err, errn);
		jw_open(out, '{');
		jw_key(out, "path");
		jw_str(out, path);
		if (total >= FILES_OUT_MAX) {
			jw_key(out, "error");
			jw_str(out, "not read: the answer is full (read it with session_read_file)");
		} else if (slurp(&ss, path, FILE_READ_MAX, &buf, &len, e1, sizeof e1) < 0) {
			jw_key(out, "error");
			jw_str(out, e1);
		} else {
			jw_key(out, "content");
			jw_strn(out, buf, len);
			jw_key(out, "bytes");
			jw_int(out, (int64_t)len);
			total += len;
			free(buf);
		}
		jw_close(out, '}');
	}
	jw_close(out, ']');
	sess_release(&ss);
	return 0;
}

/* Size of the regular file at path now (0 when absent); -1 and a reason
 * when something other than a regular file (or a symlink) is in the way. */
static int64_t
current_size(struct sess *ss, const char *path, char *err, size_t errn)
{
	const char *base;
	struct stat st;
	int d = ws_parent(ss->wsfd, path, 0, &base);

	if (d < 0) {
		if (errno == ENOENT)
			return 0;
		return sbx_err(err, errn, "%s: %s", path, ws_strerror(errno));
	}
	if (fstatat(d, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(d);
		return 0;
	}
	close(d);
	if (S_ISDIR(st.st_mode))
		return sbx_err(err, errn, "%s is a directory", path);
	return S_ISREG(st.st_mode) ? st.st_size : 0;
}

int
files_put(struct sess *ss, const char *path, const char *data, size_t len, char *err, size_t errn)
{
	char tmp[40];
	const char *base;
	int sfd, fd, d, e;

	if ((d = ws_parent(ss->wsfd, path, 1, &base)) < 0)
		return sbx_err(err, errn, "%s: %s", path, ws_strerror(errno));
	if ((sfd = openat(ss->dirfd, "stage", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		close(d);
		return sbx_err(err, errn, "the session's stage directory: %s", strerror(errno));
	}
	memcpy(tmp, "w.", 2);
	rnd_hex(tmp + 2, 8);
	fd = openat(sfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fd_write_all(fd, data, len) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
	    renameat(sfd, tmp, d, base) < 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		unlinkat(sfd, tmp, 0);
		close(sfd);
		close(d);
		return sbx_err(err, errn, "%s: unable to write: %s", path, strerror(e));
	}
	fsync(d);
	close(sfd);
	close(d);
	return 0;
}

int
files_put_all(struct sess *ss, int n, char *const *paths, char *const *data, const size_t *lens, char *err, size_t errn)
{
	char (*tmp)[24] = calloc((size_t)n + 1, sizeof *tmp);
	const char *base;
	int sfd = -1, fd, d, i, placed = 0, rc = -1;

	if (tmp == NULL)
		return sbx_err(err, errn, "out of memory");
	/* every folder reached (made) without a symlink before a byte is written */
	for (i = 0; i < n; i++) {
		if ((d = ws_parent(ss->wsfd, paths[i], 1, &base)) < 0) {
			sbx_err(err, errn, "%s: %s: nothing saved", paths[i], ws_strerror(errno));
			goto out;
		}
		close(d);
	}
	if ((sfd = openat(ss->dirfd, "stage", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		sbx_err(err, errn, "the session's stage directory: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++) {
		memcpy(tmp[i], "w.", 2);
		rnd_hex(tmp[i] + 2, 8);
		fd = openat(sfd, tmp[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || fd_write_all(fd, data[i], lens[i]) < 0 || fsync(fd) < 0 || close(fd) < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			n = i + 1;
			sbx_err(err, errn, "%s: unable to write: %s: nothing saved", paths[i], strerror(e));
			goto out;
		}
	}
	/* then each renamed into place */
	for (i = 0; i < n; i++) {
		if ((d = ws_parent(ss->wsfd, paths[i], 1, &base)) < 0 || renameat(sfd, tmp[i], d, base) < 0) {
			int e = errno;
			if (d >= 0)
				close(d);
			sbx_err(err, errn, "%s: unable to write: %s (%d of %d files saved)", paths[i],
			    d < 0 ? ws_strerror(e) : strerror(e), placed, n);
			goto out;
		}
		tmp[i][0] = '\0';
		placed++;
		fsync(d);
		close(d);
	}
	rc = 0;
out:
	for (i = 0; sfd >= 0 && i < n; i++)
		if (tmp[i][0])
			unlinkat(sfd, tmp[i], 0);
	if (sfd >= 0)
		close(sfd);
	free(tmp);
	return rc;
}

static void
checkpoint(struct sbx *s, struct sess *ss, const char *msg, struct jw *out)
{
	char id[CKPT_ID_MAX], e1[SBX_ERR_MAX];
	int made;

	if (ckpt_commit(s, ss, msg, id, &made, e1, sizeof e1) < 0) {
		jw_key(out, "checkpoint_error");
		jw_str(out, e1);
		return;
	}
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
}

/* Entry ea's content, decoded from base64 when is_base64 (a fresh buffer). */
static int
entry_data(const struct targs *ea, int b64, char **data, size_t *len, char *err, size_t errn)
{
	long l;

	if (arg_blob(ea, "content", 1, b64 ? B64_LEN(FILE_WRITE_MAX) : FILE_WRITE_MAX, data, len, err, errn) < 0)
		return -1;
	if (!b64)
		return 0;
	/* decoding never grows: in place */
	if ((l = b64_decode(*data, *len, *data, *len)) < 0) {
		free(*data);
		*data = NULL;
		return sbx_err(err, errn, "content with is_base64 is not standard base64 (A-Z a-z 0-9 + /, padded with =)");
	}
	*len = (size_t)l;
	return 0;
}

int
tool_session_write_files(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	int arr = arg_tok(a, "entries", JSMN_ARRAY, 1, err, errn), n, rc = -1;
	char (*paths)[WS_PATH_MAX + 1] = NULL;
	int *b64 = NULL;
	int64_t usage, delta = 0, max;
	struct sess ss = { .dirfd = -1, .wsfd = -1 };

	if (arr < 0)
		return -1;
	if ((n = a->t[arr].size) > WS_PATHS_MAX)
		return sbx_err(err, errn, "more than %d entries", WS_PATHS_MAX);
	if ((paths = calloc((size_t)n + 1, sizeof *paths)) == NULL || (b64 = calloc((size_t)n + 1, sizeof *b64)) == NULL) {
		free(paths);
		return sbx_err(err, errn, "out of memory");
	}
	if (sess_pick(s, a, &ss, err, errn) < 0)
		goto out;
	/* every entry is checked before the first is written */
	for (int i = 0; i < n; i++) {
		int e = arg_elem(a, arr, i), p, c;
		struct targs ea = { a->js, a->t, e };
		int64_t cur;
		if (a->t[e].type != JSMN_OBJECT) {
			sbx_err(err, errn, "entries[%d] must be an object {path, content, is_base64}", i);
			goto out;
		}
		for (int j = 0, k = e + 1; j < a->t[e].size; j++, k = json_next(a->t, k + 1))
			if (!json_eq(a->js, &a->t[k], "path") && !json_eq(a->js, &a->t[k], "content") &&
			    !json_eq(a->js, &a->t[k], "is_base64")) {
				sbx_err(err, errn, "entries[%d] has an argument an entry does not take (path, content, is_base64)", i);
				goto out;
			}
		if (arg_bool(&ea, "is_base64", &b64[i], err, errn) < 0)
			goto out;
		if ((p = arg_tok(&ea, "path", JSMN_STRING, 1, err, errn)) < 0 ||
		    (c = arg_tok(&ea, "content", JSMN_STRING, 1, err, errn)) < 0 ||
		    arg_tokstr(&ea, p, "a path", paths[i], sizeof paths[i], err, errn) < 0 ||
		    ws_path_check(paths[i], err, errn) < 0)
			goto out;
		for (int j = 0; j < i; j++)
			if (strcmp(paths[i], paths[j]) == 0) {
				sbx_err(err, errn, "path %s is given twice", paths[i]);
				goto out;
			}
		if ((cur = current_size(&ss, paths[i], err, errn)) < 0)
			goto out;
		if (b64[i]) {
			/* decoded here, so bad base64 refuses the call before any write */
			char *data;
			size_t len;
			if (entry_data(&ea, 1, &data, &len, err, errn) < 0)
				goto out;
			free(data);
			delta += (int64_t)len - cur;
			continue;
		}
		/* the unescaped length is at most the raw one */
		delta += (a->t[c].end - a->t[c].start) - cur;
	}
	usage = ws_usage(ss.wsfd);
	max = s->cfg.max_workspace_mb << 20;
	if (usage < 0 || usage + delta > max) {
		/* the raw length overestimates escapes: measure exactly */
		delta = 0;
		for (int i = 0; i < n; i++) {
			struct targs ea = { a->js, a->t, arg_elem(a, arr, i) };
			char *data;
			size_t len;
			if (entry_data(&ea, b64[i], &data, &len, err, errn) < 0)
				goto out;
			free(data);
			delta += (int64_t)len - current_size(&ss, paths[i], err, errn);
		}
		if (usage < 0 || usage + delta > max) {
			sbx_err(err, errn, "the write would take the workspace to %lld bytes, over max_workspace_mb (%lld MiB): nothing written",
			    (long long)(usage + delta), (long long)s->cfg.max_workspace_mb);
			goto out;
		}
	}
	jw_key(out, "written");
	jw_open(out, '[');
	for (int i = 0; i < n; i++) {
		struct targs ea = { a->js, a->t, arg_elem(a, arr, i) };
		char *data;
		size_t len;
		if (entry_data(&ea, b64[i], &data, &len, err, errn) < 0 ||
		    files_put(&ss, paths[i], data, len, err, errn) < 0) {
			free(data);
			goto out;
		}
		free(data);
		jw_open(out, '{');
		jw_key(out, "path");
		jw_str(out, paths[i]);
		jw_key(out, "bytes");
		jw_int(out, (int64_t)len);
		jw_close(out, '}');
	}
	jw_close(out, ']');
	checkpoint(s, &ss, "session_write_files", out);
	rc = 0;
out:
	free(paths);
	free(b64);
	sess_release(&ss);
	return rc;
}

int
tool_session_delete_files(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char path[WS_PATH_MAX + 1];
	int arr = arg_tok(a, "paths", JSMN_ARRAY, 1, err, errn), rc = -1;
	struct sess ss;

	if (paths_check(a, arr, err, errn) < 0)
		return -1;
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	/* every parent is reached without a symlink before the first removal */
	for (int i = 0; i < a->t[arr].size; i++) {
		const char *base;
		int d;
		arg_tokstr(a, arg_elem(a, arr, i), "a path", path, sizeof path, err, errn);
		if ((d = ws_parent(ss.wsfd, path, 0, &base)) < 0 && errno != ENOENT) {
			sbx_err(err, errn, "%s: %s", path, ws_strerror(errno));
			goto out;
		}
		if (d >= 0)
			close(d);
	}
	jw_key(out, "deleted");
	jw_open(out, '[');
	for (int i = 0; i < a->t[arr].size; i++) {
		const char *base;
		struct stat st;
		int d, gone = 0;
		arg_tokstr(a, arg_elem(a, arr, i), "a path", path, sizeof path, err, errn);
		if ((d = ws_parent(ss.wsfd, path, 0, &base)) >= 0) {
			if (fstatat(d, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
				gone = (S_ISDIR(st.st_mode) ? rmtree_at(d, base) : unlinkat(d, base, 0)) == 0;
			close(d);
		}
		jw_open(out, '{');
		jw_key(out, "path");
		jw_str(out, path);
		jw_key(out, "deleted");
		jw_bool(out, gone);
		jw_close(out, '}');
	}
	jw_close(out, ']');
	checkpoint(s, &ss, "session_delete_files", out);
	rc = 0;
out:
	sess_release(&ss);
	return rc;
}
