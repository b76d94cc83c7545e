#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execenv.h"
#include "fdio.h"
#include "json.h"
#include "store.h"

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errn, const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	if (err != NULL && errn > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errn, fmt, ap);
		va_end(ap);
	}
	errno = e ? e : EINVAL;
	return -1;
}

int
store_default_path(char *const envp[], char *out, size_t n)
{
	const char *x = env_get(envp, "XDG_STATE_HOME"), *h = env_get(envp, "HOME");
	int r;

	if (x != NULL && x[0] == '/')
		r = snprintf(out, n, "%s/corral", x);
	else if (h != NULL && h[0] == '/')
		r = snprintf(out, n, "%s/.local/state/corral", h);
	else
		return errno = ENOENT, -1;
	if (r < 0 || (size_t)r >= n)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

int
store_check(int fd, char *err, size_t errn)
{
	static uid_t euid = (uid_t)-1;	/* asked once: every directory is checked against it */
	struct stat st;

	if (fstat(fd, &st) < 0)
		return fail(err, errn, "unable to stat: %s", strerror(errno));
	if (euid == (uid_t)-1)
		euid = geteuid();
	errno = EPERM;
	if (!S_ISDIR(st.st_mode))
		return fail(err, errn, "not a directory");
	if (st.st_uid != euid)
		return fail(err, errn, "owned by uid %u, not by the caller (uid %u)",
		    (unsigned)st.st_uid, (unsigned)euid);
	if (st.st_mode & 022)
		return fail(err, errn, "group- or world-writable (mode %04o)", (unsigned)(st.st_mode & 07777));
	return 0;
}

int
store_open(const char *path, int create, char *err, size_t errn)
{
	char buf[4096], *p;
	int fd;

	if (path[0] != '/')
		return errno = EINVAL, fail(err, errn, "not an absolute path");
	if (strlen(path) >= sizeof buf)
		return errno = ENAMETOOLONG, fail(err, errn, "path too long");
	/* Speed: the store is there on every run but the first; the parents
	 * are made (each mkdir a lookup under the parent's lock) only then */
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC */
	fd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		strcpy(buf, path);
		for (p = buf + 1; (p = strchr(p, '/')) != NULL; p++) {
			*p = '\0';
			if (mkdir(buf, 0700) < 0 && errno != EEXIST)
				return fail(err, errn, "unable to create %s: %s", buf, strerror(errno));
			*p = '/';
		}
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return fail(err, errn, "unable to create: %s", strerror(errno));
		fd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return fail(err, errn, "unable to open: %s", strerror(errno));
	if (store_check(fd, err, errn) < 0) {
		close(fd);
		return errno = EPERM, -1;
	}
	return fd;
}

int
store_subdir(int storefd, const char *name, int create, char *err, size_t errn)
{
	int fd;

	fd = openat(storefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {	/* made only when missing */
		if (mkdirat(storefd, name, 0700) < 0 && errno != EEXIST)
			return fail(err, errn, "unable to create %s: %s", name, strerror(errno));
		fd = openat(storefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return fail(err, errn, "unable to open %s: %s", name, strerror(errno));
	if (store_check(fd, err, errn) < 0) {
		char e2[160];
		snprintf(e2, sizeof e2, "%s: %s", name, err);
		snprintf(err, errn, "%s", e2);
		close(fd);
		return errno = EPERM, -1;
	}
	return fd;
}

int
store_lock(int storefd)
{
	int fd = openat(storefd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			return errno = e, -1;
		}
	}
	return fd;
}

static int
hex_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int
store_id_ok(const char *s)
{
	return s != NULL && strlen(s) == STORE_ID_LEN && hex_ok(s, STORE_ID_LEN);
}

int
store_label_ok(const char *s)
{
	size_t i;

	if (s == NULL || *s == '\0' || strlen(s) > STORE_LABEL_MAX)
		return 0;
	for (i = 0; s[i]; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == ':' || c == '+' || c == '-'))
			return 0;
	}
	return 1;
}

int
store_tree_name_ok(const char *name, size_t len)
{
	return len == 1 + STORE_TREE_NONCE_LEN && name[0] == 'a' && hex_ok(name + 1, STORE_TREE_NONCE_LEN);
}

int
store_tree_id(int storefd, const char *name, char *id)
{
	char buf[STORE_ID_LEN + 2];
	ssize_t n;
	int dfd, fd;

	if (!store_tree_name_ok(name, strlen(name)))
		return errno = EINVAL, -1;
	if ((dfd = openat(storefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	fd = openat(dfd, "id", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf);
	close(fd);
	if (n != STORE_ID_LEN + 1 || buf[STORE_ID_LEN] != '\n' || !hex_ok(buf, STORE_ID_LEN))
		return errno = EINVAL, -1;
	memcpy(id, buf, STORE_ID_LEN);
	id[STORE_ID_LEN] = '\0';
	return 0;
}

const char *
store_tree_rest(const char *dir, const char *p)
{
	size_t dl = strlen(dir), tl;

	if (dl == 0 || strncmp(p, dir, dl) != 0 || p[dl] != '/')
		return NULL;
	p += dl + 1;
	tl = strcspn(p, "/");
	return store_tree_name_ok(p, tl) ? p + tl : NULL;
}

int
attempt_format(const struct attempt *a, char *buf, size_t n)
{
	int r;

	if (a->ended)
		r = snprintf(buf, n, "{\"id\":\"%s\",\"agent\":\"%s\",\"pid\":%" PRId64 ",\"pid_start\":%" PRIu64
		    ",\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"status\":%d,\"platform\":\"%s\",\"tier\":\"%s\"}\n",
		    a->id, a->agent, a->pid, a->pid_start, a->start, a->end, a->status, a->platform, a->tier);
	else
		r = snprintf(buf, n, "{\"id\":\"%s\",\"agent\":\"%s\",\"pid\":%" PRId64 ",\"pid_start\":%" PRIu64
		    ",\"start\":%" PRId64 ",\"end\":null}\n", a->id, a->agent, a->pid, a->pid_start, a->start);
	if (r < 0 || (size_t)r >= n)
		return errno = ENOSPC, -1;
	return r;
}

static int
get_i64(const char *js, const jsmntok_t *t, const char *key, int64_t min, int64_t max, int64_t *v)
{
	int k = json_get(js, t, 0, key);

	if (k < 0 || json_int(js, &t[k], v) < 0 || *v < min || *v > max)
		return -1;
	return 0;
}

static int
get_s(const char *js, const jsmntok_t *t, const char *key, char *out, size_t n, int optional)
{
	int k = json_get(js, t, 0, key), l;

	if (k == -1 && optional) {
		out[0] = '\0';
		return 0;
	}
	if (k < 0 || t[k].type != JSMN_STRING)
		return -1;
	l = json_str(js, &t[k], out, n);
	if (l < 0 || (size_t)l != strlen(out))
		return -1;
	return 0;
}

int
attempt_parse(const char *buf, size_t len, struct attempt *a)
{
	jsmntok_t t[32];
	int64_t v;
	int n, k;

	memset(a, 0, sizeof *a);
	n = json_parse(buf, len, t, 32);
	if (n < 0 || t[0].type != JSMN_OBJECT)
		return errno = EINVAL, -1;
	if (get_s(buf, t, "id", a->id, sizeof a->id, 0) < 0 || !store_id_ok(a->id) ||
	    get_s(buf, t, "agent", a->agent, sizeof a->agent, 0) < 0 || !prof_name_ok(a->agent) ||
	    get_i64(buf, t, "pid", 0, INT32_MAX, &a->pid) < 0 ||
	    get_i64(buf, t, "pid_start", 0, INT64_MAX, &v) < 0 ||
	    get_i64(buf, t, "start", 0, INT64_MAX, &a->start) < 0)
		return errno = EINVAL, -1;
	a->pid_start = (uint64_t)v;
	k = json_get(buf, t, 0, "end");
	if (k < 0)
		return errno = EINVAL, -1;
	if (t[k].type == JSMN_PRIMITIVE && buf[t[k].start] == 'n')
		return 0;
	a->ended = 1;
	if (get_i64(buf, t, "end", 0, INT64_MAX, &a->end) < 0 ||
	    get_i64(buf, t, "status", 0, 255, &v) < 0 ||
	    get_s(buf, t, "platform", a->platform, sizeof a->platform, 1) < 0 ||
	    get_s(buf, t, "tier", a->tier, sizeof a->tier, 1) < 0)
		return errno = EINVAL, -1;
	a->status = (int)v;
	if ((a->platform[0] && !store_label_ok(a->platform)) || (a->tier[0] && !store_label_ok(a->tier)))
		return errno = EINVAL, -1;
	return 0;
}

int
cred_header_format(const struct credhdr *h, char *buf, size_t n)
{
	char q[2 * PROF_ACCOUNT_MAX + 8 * PROF_ACCOUNT_MAX];
	int r;

	if (json_quote(h->account, strlen(h->account), q, sizeof q) < 0)
		return errno = ENOSPC, -1;
	r = snprintf(buf, n, "{\"v\":1,\"agent\":\"%s\",\"account\":%s,\"since\":%" PRId64 ",\"renewed\":%" PRId64 "}\n",
	    h->agent, q, h->since, h->renewed);
	if (r < 0 || (size_t)r >= n)
		return errno = ENOSPC, -1;
	return r;
}

int
cred_split(const char *buf, size_t len, struct credhdr *h, size_t *off)
{
	const char *nl = memchr(buf, '\n', len < 4096 ? len : 4096);
	jsmntok_t t[16];
	int64_t v;
	int n;

	memset(h, 0, sizeof *h);
	if (nl == NULL)
		return errno = EINVAL, -1;
	n = json_parse(buf, (size_t)(nl - buf), t, 16);
	if (n < 0 || t[0].type != JSMN_OBJECT || get_i64(buf, t, "v", 1, 1, &v) < 0 ||
	    get_s(buf, t, "agent", h->agent, sizeof h->agent, 0) < 0 ||
	    get_s(buf, t, "account", h->account, sizeof h->account, 0) < 0)
		return errno = EINVAL, -1;
	/* since and renewed came later: absent in older stores */
	if ((json_get(buf, t, 0, "since") >= 0 && get_i64(buf, t, "since", 0, INT64_MAX, &h->since) < 0) ||
	    (json_get(buf, t, 0, "renewed") >= 0 && get_i64(buf, t, "renewed", 0, INT64_MAX, &h->renewed) < 0))
		return errno = EINVAL, -1;
	if (h->agent[0] != '\0' && (!prof_name_ok(h->agent) || h->account[0] == '\0'))
		return errno = EINVAL, -1;
	*off = (size_t)(nl - buf) + 1;
	return 0;
}

int
proc_starttime(int64_t pid, uint64_t *out)
{
	char path[64], buf[1024], *p;
	uint64_t v = 0;
	ssize_t n;
	int fd, field;

	if (pid <= 0)
		return errno = ENOENT, -1;
	snprintf(path, sizeof path, "/proc/%" PRId64 "/stat", pid);
	fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return errno = EIO, -1;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields restart after the last ')' */
	p = strrchr(buf, ')');
	if (p == NULL)
		return errno = EIO, -1;
	for (field = 2; field < 22 && *p; p++)
		if (*p == ' ')
			field++;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	*out = v;
	return 0;
}

int
store_read_attempt(int afd, const char *id, struct attempt *a)
{
	/* on the stack, not file_read_bounded's heap: a record is small,
	 * and each heap buffer was an mmap and a munmap (musl) */
	char buf[STORE_RECORD_MAX + 1];
	struct stat st;
	ssize_t n;
	int fd, r, e;

	fd = openat(afd, id, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && (errno = EINVAL)) ||
	    (n = fd_read_bounded(fd, buf, STORE_RECORD_MAX)) < 0) {
		e = errno;
		close(fd);
		return errno = e, -1;
	}
	close(fd);
	buf[n] = '\0';
	r = attempt_parse(buf, (size_t)n, a);
	if (r < 0 || strcmp(a->id, id) != 0)
		return errno = EINVAL, -1;
	return 0;
}

/* Release STORE/sub/name for attempt id into out, at most once: the marker
 * released/ID.MARKER. creds: skip the header line. */
static int
release_once(int storefd, const char *sub, const char *name, const char *marker_name, int creds,
    const char *what, const char *id, int out, char *err, size_t errn)
{
	char marker[STORE_ID_LEN + PROF_NAME_MAX + 8], *buf = NULL;
	int afd = -1, cfd = -1, rfd = -1, m, r = -1, e;
	struct credhdr h;
	struct attempt a;
	size_t len = 0, off = 0;

	if ((afd = store_subdir(storefd, "attempts", 1, err, errn)) < 0 ||
	    (cfd = store_subdir(storefd, sub, 1, err, errn)) < 0 ||
	    (rfd = store_subdir(storefd, "released", 1, err, errn)) < 0) {
		r = errno == EPERM ? 1 : -1;
		goto out;
	}
	if (store_read_attempt(afd, id, &a) < 0) {
		r = errno == ENOENT ? 1 : -1;
		fail(err, errn, "attempt %s: %s", id, errno == ENOENT ? "no such attempt" : "unreadable record");
		goto out;
	}
	if (a.ended) {
		r = 1;
		fail(err, errn, "release refused: attempt %s has ended", id);
		goto out;
	}
	if (file_read_bounded(cfd, name, STORE_SECRET_MAX + 4096, &buf, &len) < 0) {
		r = errno == ENOENT ? 1 : -1;
		fail(err, errn, "%s %s: %s", what, name, strerror(errno));
		goto out;
	}
	if (creds && cred_split(buf, len, &h, &off) < 0) {
		fail(err, errn, "%s %s: damaged header", what, name);
		goto out;
	}
	/* The marker is the at-most-once: O_EXCL lets exactly one process
	 * create it, and it exists before a byte of the secret leaves. */
	snprintf(marker, sizeof marker, "%s.%s", id, marker_name);
	m = openat(rfd, marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (m < 0) {
		if (errno == EEXIST) {
			r = 1;
			fail(err, errn, "release refused: %s%s was already released for attempt %s",
			    creds ? "" : "the environment of project ", name, id);
		} else {
			fail(err, errn, "unable to mark the release: %s", strerror(errno));
		}
		goto out;
	}
	close(m);
	if (fd_write_all(out, buf + off, len - off) < 0) {
		fail(err, errn, "unable to write %s: %s", name, strerror(errno));
		goto out;
	}
	r = 0;
out:
	e = errno;
	if (buf != NULL) {
		explicit_bzero(buf, len);
		free(buf);
	}
	if (afd >= 0)
		close(afd);
	if (cfd >= 0)
		close(cfd);
	if (rfd >= 0)
		close(rfd);
	errno = e;
	return r;
}

int
store_release(int storefd, const char *name, const char *id, int out, char *err, size_t errn)
{
	return release_once(storefd, "creds", name, name, 1, "credential", id, out, err, errn);
}

int
store_release_env(int storefd, const char *project, const char *id, int out, char *err, size_t errn)
{
	char marker[PROF_NAME_MAX + 8];

	/* ':' is in no credential name: the two kinds of marker never meet */
	snprintf(marker, sizeof marker, "env:%s", project);
	return release_once(storefd, "env", project, marker, 0, "project environment", id, out, err, errn);
}
