#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "ckpt.h"
#include "fdio.h"
#include "json.h"
#include "private.h"
#include "rmtree.h"
#include "rnd.h"
#include "sess.h"

int
sess_id_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == SBX_ID_LEN;
}

int
sess_label_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') || strchr("._:+-", s[i])))
			return 0;
	return i >= 1 && i <= SBX_LABEL_MAX;
}

static int
sessions_fd(struct sbx *s, int create)
{
	if (create && mkdirat(s->storefd, "sessions", 0700) < 0 && errno != EEXIST)
		return -1;
	return openat(s->storefd, "sessions", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

void
sess_release(struct sess *ss)
{
	if (ss->picked && ss->dirfd >= 0)
		sess_touch(ss);
	ss->picked = 0;
	if (ss->locked)
		close(ss->lockfd);	/* the lock goes with the descriptor */
	ss->locked = 0;
	if (ss->dirfd >= 0)
		close(ss->dirfd);
	if (ss->wsfd >= 0)
		close(ss->wsfd);
	ss->dirfd = ss->wsfd = -1;
}

static int
read_meta(struct sess *ss)
{
	jsmntok_t t[32];
	char *buf;
	size_t len;
	int n, v;
	int64_t x;

	if (file_read_bounded(ss->dirfd, "meta.json", 4096, &buf, &len) < 0)
		return -1;
	n = json_parse(buf, len, t, 32);
	if (n < 1 || t[0].type != JSMN_OBJECT) {
		free(buf);
		return errno = EINVAL, -1;
	}
	if ((v = json_get(buf, t, 0, "label")) >= 0 && t[v].type == JSMN_STRING)
		json_str(buf, &t[v], ss->label, sizeof ss->label);
	if ((v = json_get(buf, t, 0, "parent")) >= 0 && t[v].type == JSMN_STRING)
		json_str(buf, &t[v], ss->parent, sizeof ss->parent);
	if ((v = json_get(buf, t, 0, "created_ns")) >= 0 && json_int(buf, &t[v], &x) == 0)
		ss->created = x;
	free(buf);
	if (!sess_label_ok(ss->label))
		ss->label[0] = '\0';
	if (!sess_id_ok(ss->parent))
		ss->parent[0] = '\0';
	return 0;
}

int
sess_save(struct sess *ss)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "{\"id\":\"%s\",\"label\":\"%s\",\"parent\":\"%s\",\"created_ns\":%lld}\n",
	    ss->id, ss->label, ss->parent, (long long)ss->created);

	return file_write_atomic(ss->dirfd, "meta.json", buf, (size_t)n, 0600);
}

int
sess_touch(struct sess *ss)
{
	int fd = openat(ss->dirfd, "used", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	futimens(fd, NULL);
	close(fd);
	ss->used = time(NULL);
	return 0;
}

/* Leftover temporary files of a killed call (the session's lock held). */
static void
clean_stage(struct sess *ss)
{
	int fd = openat(ss->dirfd, "stage", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			rmtree_at(dirfd(d), de->d_name);
	closedir(d);
}

int
sess_open(struct sbx *s, const char *id, struct sess *ss, char *err, size_t errn)
{
	char why[128];
	struct stat st;
	int sd;

	memset(ss, 0, sizeof *ss);
	ss->dirfd = ss->wsfd = -1;
	if (!sess_id_ok(id))
		return sbx_err(err, errn, "no session %s (a session id is %d hex digits)", id, SBX_ID_LEN);
	strcpy(ss->id, id);
	if ((sd = sessions_fd(s, 0)) < 0 || (ss->dirfd = openat(sd, id, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (sd >= 0)
			close(sd);
		return sbx_err(err, errn, "no session %s", id);
	}
	close(sd);
	if (fstat(ss->dirfd, &st) < 0 || private_dir_check(&st, why, sizeof why) < 0) {
		sess_release(ss);
		return sbx_err(err, errn, "session %s: its directory is not private: %s", id, why);
	}
	if ((ss->wsfd = openat(ss->dirfd, "workspace", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    read_meta(ss) < 0) {
		sess_release(ss);
		return sbx_err(err, errn, "session %s is damaged (no workspace or meta.json)", id);
	}
	if (fstatat(ss->dirfd, "used", &st, AT_SYMLINK_NOFOLLOW) == 0)
		ss->used = st.st_mtim.tv_sec;
	if (strlen(s->store) + 64 >= sizeof ss->dir) {
		sess_release(ss);
		return sbx_err(err, errn, "the store's path is too long");
	}
	if (snprintf(ss->dir, sizeof ss->dir, "%s/sessions/%s", s->store, id) < 0 ||
	    snprintf(ss->ws, sizeof ss->ws, "%s/workspace", ss->dir) < 0 ||
	    snprintf(ss->tmp, sizeof ss->tmp, "%s/tmp", ss->dir) < 0 ||
	    snprintf(ss->git, sizeof ss->git, "%s/history.git", ss->dir) < 0)
		return sess_release(ss), sbx_err(err, errn, "the store's path is too long");
	return 0;
}

int
sess_current(struct sbx *s, char *id)
{
	if (s->cur == NULL || !sess_id_ok(s->cur))
		return -1;
	strcpy(id, s->cur);
	return 0;
}

int
sess_set_current(struct sbx *s, const char *id)
{
	if (s->cur)
		snprintf(s->cur, SBX_ID_LEN + 1, "%s", id ? id : "");
	return 0;
}

static void
store_lock(struct sbx *s, int on)
{
	while (flock(s->lockfd, on ? LOCK_EX : LOCK_UN) < 0 && errno == EINTR)
		;
	s->store_locked = on;
}

int
sess_lock(struct sbx *s, struct sess *ss, int wait, char *err, size_t errn)
{
	struct stat st;
	int fd, relock = 0;

	if (ss->locked)
		return 0;
	fd = openat(ss->dirfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return sbx_err(err, errn, "session %s: unable to open its lock: %s", ss->id, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			close(fd);
			return sbx_err(err, errn, "session %s: unable to lock: %s", ss->id, strerror(errno));
		}
		if (!wait)
			return close(fd), 1;
		/* another call works on it: wait for it without the store */
		if (s->store_locked) {
			store_lock(s, 0);
			relock = 1;
		}
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
		if (relock)
			store_lock(s, 1);
		/* closed (removed) while this call waited */
		if (fstat(ss->dirfd, &st) < 0 || st.st_nlink == 0) {
			close(fd);
			return sbx_err(err, errn, "session %s was closed while this call waited for it", ss->id);
		}
	}
	ss->lockfd = fd;
	ss->locked = 1;
	clean_stage(ss);	/* no call works on it: what is there, a killed one left */
	return 0;
}

int
sess_pick(struct sbx *s, const struct targs *a, struct sess *ss, char *err, size_t errn)
{
	char id[64];
	int n = arg_str(a, "session_id", 0, id, sizeof id, err, errn);

	if (n < 0)
		return -1;
	if (n == 0 && sess_current(s, id) < 0) {
		memset(ss, 0, sizeof *ss);
		ss->dirfd = ss->wsfd = -1;
		return sbx_err(err, errn, "no current session on this connection: call create_session or session_switch (or pass session_id)");
	}
	if (sess_open(s, id, ss, err, errn) < 0)
		return -1;
	if (sess_lock(s, ss, 1, err, errn) < 0) {
		sess_release(ss);
		return -1;
	}
	sess_touch(ss);
	ss->picked = 1;
	if (s->store_release && s->store_locked)
		store_lock(s, 0);	/* its own session only from here */
	return 0;
}

/* The created member of ID/meta.json (0 when unreadable). */
static int64_t
meta_created(int sd, const char *id)
{
	struct sess ss = { .dirfd = -1, .wsfd = -1 };

	if ((ss.dirfd = openat(sd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	read_meta(&ss);
	close(ss.dirfd);
	return ss.created;
}

static int
cmp_created(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return strcmp((const char *)(x + 1), (const char *)(y + 1));
}

int
sess_ids(struct sbx *s, char (*ids)[SBX_ID_LEN + 1], int max)
{
	struct { int64_t created; char id[SBX_ID_LEN + 1]; } *v;
	int sd = sessions_fd(s, 0), n = 0, cap = 64;
	struct dirent *de;
	DIR *d;

	if (sd < 0 || (d = fdopendir(sd)) == NULL) {
		if (sd >= 0)
			close(sd);
		return 0;
	}
	if ((v = malloc((size_t)cap * sizeof *v)) == NULL) {
		closedir(d);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (!sess_id_ok(de->d_name) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (n == cap) {
			void *q = realloc(v, (size_t)(cap *= 2) * sizeof *v);
			if (q == NULL)
				break;
			v = q;
		}
		v[n].created = meta_created(dirfd(d), de->d_name);
		strcpy(v[n].id, de->d_name);
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, cmp_created);
	for (int i = 0; i < n && i < max; i++)
		strcpy(ids[i], v[i].id);
	free(v);
	return n < max ? n : max;
}

int
sess_remove(struct sbx *s, const char *id, char *err, size_t errn)
{
	char cur[SBX_ID_LEN + 1];
	int sd;

	if (!sess_id_ok(id) || (sd = sessions_fd(s, 0)) < 0)
		return sbx_err(err, errn, "no session %s", id);
	if (rmtree_at(sd, id) < 0) {
		int e = errno;
		close(sd);
		return sbx_err(err, errn, "session %s: unable to remove: %s", id, strerror(e));
	}
	close(sd);
	if (sess_current(s, cur) == 0 && strcmp(cur, id) == 0)
		sess_set_current(s, NULL);
	return 0;
}

int
sess_create(struct sbx *s, const char *label, const char *parent, struct sess *ss,
    char *err, size_t errn)
{
	char id[SBX_ID_LEN + 1];
	static const char *const sub[] = { "workspace", "tmp", "stage", NULL };
	int sd, n, dfd;

	{
		char (*all)[SBX_ID_LEN + 1] = malloc(4097 * sizeof *all);
		if (all == NULL)
			return sbx_err(err, errn, "out of memory");
		n = sess_ids(s, all, 4097);
		free(all);
	}
	if (n >= s->cfg.max_sessions)
		return sbx_err(err, errn, "%d sessions are open, and max_sessions is %lld: close one first (session_close)",
		    n, (long long)s->cfg.max_sessions);
	if ((sd = sessions_fd(s, 1)) < 0)
		return sbx_err(err, errn, "unable to open %s/sessions: %s", s->store, strerror(errno));
	if (rnd_hex(id, SBX_ID_LEN / 2) < 0 || mkdirat(sd, id, 0700) < 0) {
		close(sd);
		return sbx_err(err, errn, "unable to create a session directory: %s", strerror(errno));
	}
	dfd = openat(sd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (int i = 0; sub[i] && dfd >= 0; i++)
		if (mkdirat(dfd, sub[i], 0700) < 0)
			goto fail;
	if (dfd < 0)
		goto fail;
	memset(ss, 0, sizeof *ss);
	ss->dirfd = dfd;
	ss->wsfd = -1;
	strcpy(ss->id, id);
	snprintf(ss->label, sizeof ss->label, "%s", label ? label : "");
	snprintf(ss->parent, sizeof ss->parent, "%s", parent ? parent : "");
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ss->created = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	if (sess_save(ss) < 0)
		goto fail;
	sess_release(ss);
	if (sess_open(s, id, ss, err, errn) < 0 || ckpt_init(s, ss, err, errn) < 0) {
		sess_release(ss);
		rmtree_at(sd, id);
		close(sd);
		return -1;
	}
	sess_touch(ss);
	close(sd);
	sess_set_current(s, id);
	return 0;
fail:
	{
		int e = errno;
		if (dfd >= 0)
			close(dfd);
		rmtree_at(sd, id);
		close(sd);
		return sbx_err(err, errn, "unable to create session %s: %s", id, strerror(e));
	}
}

