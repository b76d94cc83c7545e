#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "ckpt.h"
#include "copy.h"
#include "wspath.h"
#include "fdio.h"
#include "mounts.h"
#include "path.h"
#include "pkgspec.h"
#include "stepdir.h"
#include "storeseen.h"
#include "wsscan.h"

/* 1 when real lies within one of the mount_allowlist entries (resolved). */
int mount_allowed(const struct sbx *s, const char *real);

int
mount_allowed(const struct sbx *s, const char *real)
{
	char r[PATH_MAX];

	for (int i = 0; i < s->cfg.mount_allowlist.n; i++)
		if (realpath(s->cfg.mount_allowlist.v[i], r) != NULL && path_within(real, r))
			return 1;
	return 0;
}

int
mount_roots_check(const struct sbx *s, char *err, size_t errn)
{
	char r[PATH_MAX];

	for (int i = 0; i < s->cfg.mount_allowlist.n; i++) {
		const char *e = s->cfg.mount_allowlist.v[i];
		if (realpath(e, r) == NULL)
			continue;	/* not there: grants nothing */
		if (strcmp(r, "/") == 0 || path_within(s->store, r) || path_within(r, s->store) ||
		    (s->home[0] && path_within(s->home, r)))
			return sbx_err(err, errn, "config %s: mount_allowlist entry %s %s: refused (list the project directories themselves)",
			    s->cfgpath, e, strcmp(r, "/") == 0 ? "is the whole file system" :
			    path_within(r, s->store) ? "lies in the store" : "holds the home or the store");
	}
	return 0;
}

int
mounts_grants(struct sbx *s, const struct sess *ss, struct argv *av, char *err, size_t errn)
{
	char *buf, real[PATH_MAX];
	size_t len;

	if (file_read_bounded(ss->dirfd, "overlays", 1 << 20, &buf, &len) < 0)
		return errno == ENOENT ? 0 : sbx_err(err, errn, "session %s: overlays: %s", ss->id, strerror(errno));
	for (char *p = buf, *e; *p; p = e) {
		e = p + strcspn(p, "\n");
		if (*e)
			*e++ = '\0';
		if (p[0] != '/' || realpath(p, real) == NULL || strcmp(real, p) != 0)
			continue;
		if (!mount_allowed(s, real) || path_within(real, s->store) || path_within(s->store, real) ||
		    (s->home[0] && path_within(s->home, real)))
			continue;
		av_push(av, "-r");
		av_push(av, real);
	}
	free(buf);
	return 0;
}

int
mounts_env(const struct sess *ss, struct argv *env)
{
	char *rec = NULL;
	size_t len;

	/* what session_package_install recorded in the session directory
	 * (never what the workspace holds: the agent writes that) */
	if (file_read_bounded(ss->dirfd, "packages", 4096, &rec, &len) < 0)
		return errno == ENOENT ? 0 : -1;
	if (pkg_recorded(rec, PKG_PIP))
		av_pushf(env, "PYTHONPATH=%s/.packages/pip", ss->ws);
	if (pkg_recorded(rec, PKG_NPM))
		av_pushf(env, "NODE_PATH=%s/.packages/npm/node_modules", ss->ws);
	free(rec);
	return env->err ? -1 : 0;
}

struct mctx {
	const struct sbx *s;
	struct buf list;	/* overlay paths, one a line */
	long linked;		/* links made in the copy */
};

static int
is_overlay(void *ctx, const char *name)
{
	const struct mctx *m = ctx;

	for (int i = 0; i < m->s->cfg.mount_overlay_paths.n; i++)
		if (strcmp(m->s->cfg.mount_overlay_paths.v[i], name) == 0)
			return 1;
	return 0;
}

/* An overlay is recorded for the session's grants (read-only, at its host
 * path) and linked into the copy where it was, as drun links it: the
 * project's node_modules resolves from the copy, and a write through the
 * link meets the read-only grant. */
static void
overlay(void *ctx, int parentfd, const char *name, int dstfd)
{
	struct mctx *m = ctx;
	char link[64], dir[PATH_MAX + 256];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", parentfd);
	if ((n = readlink(link, dir, PATH_MAX - 1)) <= 0)
		return;
	dir[n] = '\0';
	snprintf(dir + n, sizeof dir - (size_t)n, "/%s", name);
	buf_adds(&m->list, dir);
	buf_adds(&m->list, "\n");
	if (symlinkat(dir, dstfd, name) == 0)
		m->linked++;
}

/* 1 when the newline-separated list has the line l (n bytes). */
static int
has_line(const char *list, size_t len, const char *l, size_t n)
{
	for (size_t i = 0; i < len; ) {
		size_t e = i;
		while (e < len && list[e] != '\n')
			e++;
		if (e - i == n && memcmp(list + i, l, n) == 0)
			return 1;
		i = e + 1;
	}
	return 0;
}

/* Add the overlay lines of add to the session's record (no duplicates). */
static int
record(struct sess *ss, const struct buf *add)
{
	struct buf all = { 0 };
	char *old = NULL;
	size_t len = 0;
	int rc;

	if (file_read_bounded(ss->dirfd, "overlays", 1 << 20, &old, &len) < 0 && errno != ENOENT)
		return -1;
	if (old)
		buf_add(&all, old, len);
	for (const char *p = add->p ? add->p : ""; *p; ) {
		size_t l = strcspn(p, "\n");
		if (!has_line(all.p ? all.p : "", all.len, p, l)) {
			buf_add(&all, p, l);
			buf_adds(&all, "\n");
		}
		p += l + (p[l] == '\n');
	}
	rc = file_replace_atomic(ss->dirfd, "overlays", all.p ? all.p : "", all.len, 0600);
	free(old);
	buf_free(&all);
	return rc;
}

int
tool_session_mount(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char path[PATH_MAX], real[PATH_MAX], dir[PATH_MAX], id[CKPT_ID_MAX], other[PATH_MAX];
	struct mctx m = { s, { 0 }, 0 };
	struct copy_opt o = { .fmode = 0644, .is_overlay = is_overlay, .overlay = overlay, .ctx = &m };
	struct sess ss;
	struct stat st;
	const char *base;
	int pfd, rc = -1, made;
	int64_t usage;

	if (arg_str(a, "path", 1, path, sizeof path, err, errn) < 0)
		return -1;
	if (path[0] != '/')
		return sbx_err(err, errn, "path %s: give the host path, absolute", path);
	if (s->cfg.mount_allowlist.n == 0)
		return sbx_err(err, errn, "mount_allowlist is empty: nothing can be mounted (set it in %s)", s->cfgpath);
	if (realpath(path, real) == NULL)
		return sbx_err(err, errn, "%s: %s", path, strerror(errno));
	if (!mount_allowed(s, real))
		return sbx_err(err, errn, "%s is not under a mount_allowlist entry: refused", real);
	if ((s->home[0] && path_within(s->home, real)) || path_within(real, s->store) || path_within(s->store, real))
		return sbx_err(err, errn, "%s would expose the home or the store: refused", real);
	if (strcmp(real, "/") == 0 || lstat(real, &st) < 0)
		return sbx_err(err, errn, "%s: refused", real);
	/* another server's or corral's store, whatever the allowlist says:
	 * its sessions, attempts and sign-ins are not this agent's */
	switch (store_near(real, other, sizeof other)) {
	case 1:
		return sbx_err(err, errn, "%s %s the store %s: refused (mount a project directory that holds no store)",
		    real, strcmp(real, other) == 0 ? "is" : path_within(real, other) ? "lies in" : "holds", other);
	case -1:
		return sbx_err(err, errn, "%s: unable to check for a store beneath it: %s: refused", real, strerror(errno));
	}
	if (sess_pick(s, a, &ss, err, errn) < 0)
		return -1;
	base = strrchr(real, '/') + 1;
	if (S_ISDIR(st.st_mode) && is_overlay(&m, base)) {
		buf_adds(&m.list, real);
		buf_adds(&m.list, "\n");
		o.files = 0;
		if (symlinkat(real, ss.wsfd, base) == 0)
			m.linked++;
	} else {
		snprintf(dir, sizeof dir, "%.*s", (int)(base - real - 1 > 0 ? base - real - 1 : 1), real);
		usage = ws_usage(ss.wsfd);
		o.budget = (s->cfg.max_workspace_mb << 20) - (usage > 0 ? usage : 0);
		if ((pfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			sbx_err(err, errn, "%s: %s", dir, strerror(errno));
			goto out;
		}
		if (copy_at(pfd, base, ss.wsfd, base, &o) < 0) {
			int e = errno;
			close(pfd);
			sbx_err(err, errn, "%s: %s", real, e == EFBIG ? "the copy would take the workspace over max_workspace_mb" :
			    strerror(e));
			goto out;
		}
		close(pfd);
	}
	if (m.list.len && record(&ss, &m.list) < 0) {
		sbx_err(err, errn, "session %s: unable to record the overlays", ss.id);
		goto out;
	}
	jw_key(out, "path");
	jw_str(out, real);
	jw_key(out, "copied_to");
	if (o.files || !(S_ISDIR(st.st_mode) && is_overlay(&m, base))) jw_str(out, base); else jw_null(out);
	copy_counts_json(out, &o);
	jw_key(out, "overlays");
	jw_open(out, '[');
	for (const char *p = m.list.p ? m.list.p : ""; *p; ) {
		size_t l = strcspn(p, "\n");
		jw_strn(out, p, l);
		p += l + (p[l] == '\n');
	}
	jw_close(out, ']');
	jw_key(out, "overlays_linked");
	jw_int(out, m.linked);
	if (ckpt_commit(s, &ss, "session_mount", id, &made, err, errn) < 0)
		goto out;
	jw_key(out, "checkpoint_id");
	jw_str(out, id);
	rc = 0;
out:
	buf_free(&m.list);
	sess_release(&ss);
	return rc;
}
