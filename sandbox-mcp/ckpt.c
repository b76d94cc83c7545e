#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "ckpt.h"
#include "fdio.h"
#include "git.h"
#include "tree.h"
#include "wspath.h"
#include "wsscan.h"

static int head(struct sbx *s, struct sess *ss, char *id, char *err, size_t errn);
static void fp_record(struct sess *ss);

int
ckpt_label_ok(const char *l)
{
	size_t n = strlen(l);

	if (n < 1 || n > SBX_LABEL_MAX || l[0] == '.' || l[0] == '-' || l[n - 1] == '.' ||
	    strstr(l, "..") || (n >= 5 && strcmp(l + n - 5, ".lock") == 0))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((l[i] >= '0' && l[i] <= '9') || (l[i] >= 'a' && l[i] <= 'z') ||
		    (l[i] >= 'A' && l[i] <= 'Z') || l[i] == '.' || l[i] == '_' || l[i] == '-'))
			return 0;
	return 1;
}

static int
hex_ok(const char *s, size_t min, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i >= min && i <= max;
}

/* A killed server may leave git's lock files; the session's lock is held
 * (sess_lock), so no git of ours is running on this repository. */
static void
unlock_stale(struct sess *ss)
{
	int fd = openat(ss->dirfd, "history.git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	unlinkat(fd, "index.lock", 0);
	unlinkat(fd, "HEAD.lock", 0);
	unlinkat(fd, "refs/heads/main.lock", 0);
	unlinkat(fd, "packed-refs.lock", 0);
	unlinkat(fd, "refs/sbx/new.lock", 0);
	close(fd);
}

int
ckpt_init(struct sbx *s, struct sess *ss, char *err, size_t errn)
{
	const char *init[] = { "init", "-q", NULL };
	char id[CKPT_ID_MAX];
	int made;
	struct run_res r;

	if (git_run(s, ss, init, NULL, 0, 0, &r, err, errn) < 0) {
		run_res_free(&r);
		return -1;
	}
	run_res_free(&r);
	return ckpt_commit(s, ss, "session created", id, &made, err, errn);
}

int
ckpt_head(struct sbx *s, struct sess *ss, char *id, char *err, size_t errn)
{
	if (head(s, ss, id, err, errn) < 0)
		return -1;
	return *id ? 0 : sbx_err(err, errn, "session %s has no checkpoint", ss->id);
}

static int
head(struct sbx *s, struct sess *ss, char *id, char *err, size_t errn)
{
	const char *a[] = { "rev-parse", "-q", "--verify", "refs/heads/main^{commit}", NULL };
	char e2[SBX_ERR_MAX];

	if (git_line(s, ss, a, id, CKPT_ID_MAX, e2, sizeof e2) < 0) {
		*id = '\0';
		return 0;	/* no checkpoint yet */
	}
	return hex_ok(id, 40, 64) ? 0 : sbx_err(err, errn, "history: a malformed head");
}

/* Drop what is beyond max_checkpoints from the history shown: the oldest
 * kept checkpoint becomes a root (git replace --graft; ids do not change). */
static void
prune(struct sbx *s, struct sess *ss)
{
	char skip[32], old[CKPT_ID_MAX], e2[SBX_ERR_MAX];
	const char *a[] = { "rev-list", "--max-count=1", skip, "refs/heads/main", NULL };
	const char *g[] = { "replace", "-f", "--graft", old, NULL };
	long n = ckpt_count(s, ss);
	struct run_res r;

	if (n <= s->cfg.max_checkpoints)
		return;
	snprintf(skip, sizeof skip, "--skip=%lld", (long long)s->cfg.max_checkpoints - 1);
	if (git_line(s, ss, a, old, sizeof old, e2, sizeof e2) < 0 || !hex_ok(old, 40, 64))
		return;
	git_run(s, ss, g, NULL, 0, 0, &r, e2, sizeof e2);
	run_res_free(&r);
}

int
ckpt_commit(struct sbx *s, struct sess *ss, const char *msg, char *id, int *made,
    char *err, size_t errn)
{
	char parent[CKPT_ID_MAX], m[256];
	const char *ur[] = { "update-ref", "-m", "checkpoint", "refs/heads/main", id, parent, NULL };
	struct run_res r;
	int same;

	*made = 0;
	unlock_stale(ss);
	if (head(s, ss, parent, err, errn) < 0)
		return -1;
	/* one line of plain text */
	snprintf(m, sizeof m, "%s", msg);
	for (size_t i = 0; m[i]; i++)
		if ((unsigned char)m[i] < 0x20)
			m[i] = ' ';
	if (m[0] == '\0')
		strcpy(m, "checkpoint");
	if (tree_commit(s, ss, parent, m, id, &same, err, errn) < 0)
		return -1;
	if (same) {
		fp_record(ss);
		return 0;
	}
	if (!hex_ok(id, 40, 64))
		return sbx_err(err, errn, "git fast-import: a malformed id");
	if (!parent[0])
		ur[5] = NULL;
	if (git_run(s, ss, ur, NULL, 0, 0, &r, err, errn) < 0)
		return run_res_free(&r), -1;
	run_res_free(&r);
	*made = 1;
	fp_record(ss);
	prune(s, ss);
	return 0;
}

int
ckpt_checkout(struct sbx *s, struct sess *ss, const char *id, char *err, size_t errn)
{
	unlock_stale(ss);
	unlinkat(ss->dirfd, "fp", 0);
	return tree_checkout(s, ss, id, s->cfg.max_workspace_mb << 20, err, errn);
}

/* drun's checkpoint numbers: n-th of the line, 0 the oldest shown */
static int
by_number(struct sbx *s, struct sess *ss, long n, char *out, char *err, size_t errn)
{
	const char *a[] = { "rev-list", "--reverse", "refs/heads/main", NULL };
	struct run_res r;
	const char *p;
	long i = 0;

	if (git_run(s, ss, a, NULL, 0, 64 << 20, &r, err, errn) < 0) {
		run_res_free(&r);
		return -1;
	}
	for (p = r.out.p ? r.out.p : ""; *p && i < n; i++)
		p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
	if (*p == '\0' || strcspn(p, "\n") != 40) {
		run_res_free(&r);
		return sbx_err(err, errn, "no checkpoint number %ld in session %s (session_history numbers them from 0)", n, ss->id);
	}
	memcpy(out, p, 40);
	out[40] = '\0';
	run_res_free(&r);
	return 0;
}

/* The number (0 the oldest) of checkpoint id on the line, or -1. */
long
ckpt_number(struct sbx *s, struct sess *ss, const char *id)
{
	const char *a[] = { "rev-list", "--count", id, NULL };
	char n[32], e2[SBX_ERR_MAX];

	if (git_line(s, ss, a, n, sizeof n, e2, sizeof e2) < 0)
		return -1;
	return atol(n) - 1;
}

int
ckpt_resolve(struct sbx *s, struct sess *ss, const char *id, const char *label, char *out,
    char *err, size_t errn)
{
	char spec[CKPT_ID_MAX + 32], e2[SBX_ERR_MAX];
	const char *a[] = { "rev-parse", "-q", "--verify", spec, NULL };

	if (id && *id && strlen(id) <= 6 && strspn(id, "0123456789") == strlen(id))
		return by_number(s, ss, atol(id), out, err, errn);
	if (id && *id) {
		if (!hex_ok(id, 4, 64))
			return sbx_err(err, errn, "checkpoint_id %s is not a checkpoint id (hex digits)", id);
		snprintf(spec, sizeof spec, "%s^{commit}", id);
	} else if (label && *label) {
		if (!ckpt_label_ok(label))
			return sbx_err(err, errn, "checkpoint_label %s is not a valid label", label);
		snprintf(spec, sizeof spec, "refs/tags/%s^{commit}", label);
	} else {
		return sbx_err(err, errn, "give checkpoint_id or checkpoint_label");
	}
	if (git_line(s, ss, a, out, CKPT_ID_MAX, e2, sizeof e2) < 0 || !hex_ok(out, 40, 64))
		return sbx_err(err, errn, "no checkpoint %s in session %s", id && *id ? id : label, ss->id);
	/* only checkpoints of this session's line count */
	{
		const char *anc[] = { "merge-base", "--is-ancestor", out, "refs/heads/main", NULL };
		struct run_res r;
		int rc = git_run(s, ss, anc, NULL, 0, 0, &r, e2, sizeof e2);
		run_res_free(&r);
		if (rc < 0)
			return sbx_err(err, errn, "no checkpoint %s in session %s", id && *id ? id : label, ss->id);
	}
	return 0;
}

/* The workspace as the checkpoint just made (or found equal) saw it. */
static void
fp_record(struct sess *ss)
{
	uint64_t fp = WS_FP_INIT;
	char b[32];

	if (ws_scan(ss->wsfd, &fp) < 0) {
		unlinkat(ss->dirfd, "fp", 0);
		return;
	}
	snprintf(b, sizeof b, "%016llx\n", (unsigned long long)fp);
	if (file_replace_atomic(ss->dirfd, "fp", b, strlen(b), 0600) < 0)
		unlinkat(ss->dirfd, "fp", 0);
}

int
ckpt_fp_same(struct sess *ss, uint64_t fp)
{
	char *buf, want[32];
	size_t len;
	int same;

	if (file_read_bounded(ss->dirfd, "fp", 64, &buf, &len) < 0)
		return 0;
	snprintf(want, sizeof want, "%016llx\n", (unsigned long long)fp);
	same = strcmp(buf, want) == 0;
	free(buf);
	return same;
}

int
ckpt_head_fast(struct sess *ss, char *id)
{
	char *buf;
	size_t len;

	if (file_read_bounded(ss->dirfd, "history.git/refs/heads/main", 128, &buf, &len) < 0)
		return -1;
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (!hex_ok(buf, 40, 64)) {
		free(buf);
		return -1;
	}
	memcpy(id, buf, len + 1);
	free(buf);
	return 0;
}

long
ckpt_count(struct sbx *s, struct sess *ss)
{
	const char *a[] = { "rev-list", "--count", "refs/heads/main", NULL };
	char n[32], e2[SBX_ERR_MAX];

	if (git_line(s, ss, a, n, sizeof n, e2, sizeof e2) < 0)
		return 0;
	return strtol(n, NULL, 10);
}
