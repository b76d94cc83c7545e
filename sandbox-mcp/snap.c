#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "ckpt.h"
#include "git.h"
#include "pkg.h"
#include "rnd.h"
#include "snap.h"
#include "streams.h"
#include "store.h"

static int
snapdir(struct sbx *s, char *out, size_t n, int create, char *err, size_t errn)
{
	char e2[256];
	int fd;

	if ((s->cfg.snapshots_dir ? snprintf(out, n, "%s", s->cfg.snapshots_dir) :
	    snprintf(out, n, "%s/snapshots", s->store)) >= (int)n)
		return sbx_err(err, errn, "snapshots_dir: the path is too long");
	if ((fd = store_open(out, create, e2, sizeof e2)) < 0)
		return sbx_err(err, errn, "snapshots_dir %s: %s", out, e2);
	return fd;
}

/* A snapshot's file name: [A-Za-z0-9._-], ends in .bundle (or drun's
 * .drun), no leading '.'. */
static int
name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 6 || n > SNAP_NAME_MAX || s[0] == '.' ||
	    (strcmp(s + n - 7 * (n >= 8), ".bundle") != 0 && strcmp(s + n - 5, ".drun") != 0))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

/* "path": dir/name, what drun's session_restore takes */
static void
jw_buf_path(struct jw *out, const char *dir, const char *name)
{
	char p[PATH_MAX + 260];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	jw_str(out, p);
}

static void
snap_path(struct sbx *s, const char *name, struct jw *out)
{
	char dir[PATH_MAX], e2[SBX_ERR_MAX];
	int fd = snapdir(s, dir, sizeof dir, 0, e2, sizeof e2);

	if (fd < 0)
		return;
	close(fd);
	jw_key(out, "path");
	jw_buf_path(out, dir, name);
}

/* drun's path argument: a file directly in dir (dir/NAME, the spelling
 * list_snapshots gives), its name into name. 0 absent, 1 given, -1. */
static int
path_arg(const struct targs *a, const char *dir, char *name, size_t n, char *err, size_t errn)
{
	char path[PATH_MAX + SNAP_NAME_MAX + 8];
	size_t dl = strlen(dir);
	int hp = arg_str(a, "path", 0, path, sizeof path, err, errn);

	if (hp <= 0)
		return hp;
	if (strncmp(path, dir, dl) != 0 || path[dl] != '/' || strchr(path + dl + 1, '/') ||
	    strlen(path + dl + 1) >= n || !name_ok(path + dl + 1))
		return sbx_err(err, errn, "path %s: snapshots live only directly in snapshots_dir %s, named [A-Za-z0-9._-] ending in .bundle or .drun (list_snapshots gives the paths)",
		    path, dir);
	strcpy(name, path + dl + 1);
	return 1;
}

/* session_restore's snapshot, or drun's path */
static int
restore_name(const struct targs *a, const char *dir, char *name, size_t n, char *err, size_t errn)
{
	char byname[SNAP_NAME_MAX + 8];
	int hp;

	if (arg_str(a, "snapshot", 0, byname, sizeof byname, err, errn) < 0 ||
	    (hp = path_arg(a, dir, name, n, err, errn)) < 0)
		return -1;
	if (byname[0] && hp)
		return sbx_err(err, errn, "give snapshot or path, not both");
	if (!byname[0] && !hp)
		return sbx_err(err, errn, "argument \"path\" (or \"snapshot\") is required");
	if (byname[0])
		snprintf(name, n, "%s", byname);
	return 0;
}

int
snap_take(struct sbx *s, struct sess *ss, const char *want, char *name, size_t n, char *err, size_t errn)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 64], fin[SNAP_NAME_MAX + 1], id[CKPT_ID_MAX], rnd[9];
	const char *b[] = { "bundle", "create", "-q", tmp, "--all", NULL };
	struct run_res r;
	struct tm tm;
	time_t now = time(NULL);
	int fd, made;

	if (ckpt_commit(s, ss, "snapshot", id, &made, err, errn) < 0 || streams_to_history(s, ss, err, errn) < 0)
		return -1;
	if ((fd = snapdir(s, dir, sizeof dir, 1, err, errn)) < 0)
		return -1;
	gmtime_r(&now, &tm);
	rnd_hex(rnd, 4);
	if ((want ? snprintf(fin, sizeof fin, "%s", want) :
	    snprintf(fin, sizeof fin, "%s-%04d%02d%02dT%02d%02d%02dZ-%s%s%s.bundle", ss->id, tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, rnd, ss->label[0] ? "-" : "",
	    ss->label[0] && strchr(ss->label, ':') == NULL && strchr(ss->label, '+') == NULL ? ss->label : "")) < 0 ||
	    snprintf(tmp, sizeof tmp, "%s/.tmp-%s", dir, fin) < 0) {
		close(fd);
		return sbx_err(err, errn, "snapshot: a name too long");
	}
	if (git_run(s, ss, b, NULL, 0, 0, &r, err, errn) < 0) {
		run_res_free(&r);
		unlink(tmp);
		close(fd);
		return -1;
	}
	run_res_free(&r);
	if (renameat(fd, strrchr(tmp, '/') + 1, fd, fin) < 0) {
		int e = errno;
		unlink(tmp);
		close(fd);
		return sbx_err(err, errn, "snapshot %s/%s: %s", dir, fin, strerror(e));
	}
	fsync(fd);
	close(fd);
	if (name)
		snprintf(name, n, "%s", fin);
	return 0;
}

int
tool_session_snapshot(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char name[SNAP_NAME_MAX + 1], dir[PATH_MAX], want[SNAP_NAME_MAX + 8];
	struct sess ss;
	int rc, fd, hp;

	if ((fd = snapdir(s, dir, sizeof dir, 1, err, errn)) < 0)
		return -1;
	close(fd);
	if ((hp = path_arg(a, dir, want, sizeof want, err, errn)) < 0 || sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	rc = snap_take(s, &ss, hp ? want : NULL, name, sizeof name, err, errn);
	if (rc == 0) {
		jw_key(out, "session_id");
		jw_str(out, ss.id);
		jw_key(out, "snapshot");
		jw_str(out, name);
		snap_path(s, name, out);
	}
	sess_release(&ss);
	return rc;
}

int
tool_list_snapshots(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int fd = snapdir(s, dir, sizeof dir, 0, err, errn);

	jw_key(out, "snapshots_dir");
	jw_str(out, dir);
	jw_key(out, "snapshots");
	jw_open(out, '[');
	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			struct stat st;
			if (!name_ok(de->d_name) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISREG(st.st_mode))
				continue;
			jw_open(out, '{');
			jw_key(out, "snapshot");
			jw_str(out, de->d_name);
			jw_key(out, "path");
			jw_buf_path(out, dir, de->d_name);
			jw_key(out, "bytes");
			jw_int(out, st.st_size);
			jw_key(out, "time");
			jw_int(out, st.st_mtim.tv_sec);
			jw_close(out, '}');
		}
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	jw_close(out, ']');
	return 0;
}

int
tool_session_restore(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char name[SNAP_NAME_MAX + 8], dir[PATH_MAX], label[SBX_LABEL_MAX + 8], src[PATH_MAX + 64],
	    id[CKPT_ID_MAX], e2[SBX_ERR_MAX];
	const char *f[] = { "fetch", "-q", "--no-tags", "--update-head-ok", src, "+refs/heads/main:refs/heads/main",
	    "+refs/tags/*:refs/tags/*", "+refs/meta/*:refs/meta/*", "+refs/replace/*:refs/replace/*", NULL };
	struct run_res r;
	struct sess ss;
	struct stat st;
	int fd, rc = -1, made;

	if (arg_str(a, "label", 0, label, sizeof label, err, errn) < 0)
		return -1;
	if (label[0] && !sess_label_ok(label))
		return sbx_err(err, errn, "label %s: use 1-64 of A-Z a-z 0-9 . _ : + -", label);
	if ((fd = snapdir(s, dir, sizeof dir, 0, err, errn)) < 0)
		return -1;
	if (restore_name(a, dir, name, sizeof name, err, errn) < 0 || !name_ok(name)) {
		close(fd);
		if (name[0] && !name_ok(name))
			sbx_err(err, errn, "snapshot %s: a snapshot is a file name listed by list_snapshots", name);
		return -1;
	}
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return sbx_err(err, errn, "no snapshot %s in %s (or not a regular file)", name, dir);
	}
	close(fd);
	if (snprintf(src, sizeof src, "%s/%s", dir, name) < 0)
		return sbx_err(err, errn, "snapshot: a name too long");
	if (sess_create(s, label[0] ? label : NULL, NULL, &ss, err, errn) < 0)
		return -1;
	if (git_run(s, &ss, f, NULL, 0, 0, &r, err, errn) < 0 || ckpt_head(s, &ss, id, err, errn) < 0 ||
	    ckpt_checkout(s, &ss, id, err, errn) < 0 || ckpt_commit(s, &ss, "restored", id, &made, err, errn) < 0 ||
	    (pkg_record_restore(s, &ss) < 0 && sbx_err(err, errn, "snapshot %s: its package record is malformed", name)) ||
	    streams_from_history(s, &ss, err, errn) < 0) {
		run_res_free(&r);
		sess_release(&ss);
		sess_remove(s, ss.id, e2, sizeof e2);
		return -1;
	}
	run_res_free(&r);
	jw_key(out, "session_id");
	jw_str(out, ss.id);
	jw_key(out, "snapshot");
	jw_str(out, name);
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
	rc = 0;
	sess_release(&ss);
	return rc;
}

int
snap_reap_idle(struct sbx *s)
{
	char (*ids)[SBX_ID_LEN + 1];
	int n, closed = 0;
	time_t now = time(NULL);
	char err[SBX_ERR_MAX];

	if (s->cfg.session_idle_timeout_secs == 0)
		return 0;	/* 0: sessions never idle out */
	if ((ids = malloc(4096 * sizeof *ids)) == NULL)
		return 0;
	n = sess_ids(s, ids, 4096);
	for (int i = 0; i < n; i++) {
		struct sess ss;
		struct stat st;
		if (sess_open(s, ids[i], &ss, err, sizeof err) < 0)
			continue;
		/* a call in flight holds its session's lock: never reaped under it,
		 * and its end (the release's touch) read after the lock is had */
		if (now - ss.used <= s->cfg.session_idle_timeout_secs || sess_lock(s, &ss, 0, err, sizeof err) != 0 ||
		    (fstatat(ss.dirfd, "used", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now - st.st_mtim.tv_sec <= s->cfg.session_idle_timeout_secs)) {
			sess_release(&ss);
			continue;
		}
		if (s->cfg.snapshot_on_close && snap_take(s, &ss, NULL, NULL, 0, err, sizeof err) < 0) {
			fprintf(stderr, "sandbox-mcp: warning: session %s idle, not closed: %s\n", ss.id, err);
			sess_release(&ss);
			continue;
		}
		if (sess_remove(s, ids[i], err, sizeof err) == 0)
			closed++;
		sess_release(&ss);	/* the lock held until it is gone */
	}
	free(ids);
	return closed;
}
