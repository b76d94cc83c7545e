/* trustpol: a policy the boundary could write, or could have written, is
 * refused: inside the workspace, a write grant, an attempt directory or an
 * agent's full-setup folder; reached through a symbolic link in one of
 * those; not owned by the caller; group- or world-writable; in a directory
 * someone else can write (a sticky directory owned by root or the caller is
 * fine: others cannot replace what the caller owns in it).
 *
 * A per-repository policy is still possible: `corral policy approve FILE`
 * records the SHA-256 of its bytes in STORE/approved/ (outside every grant),
 * keyed by the file's real path; a run then reads it while the bytes it
 * parses hash the same, and refuses it once they differ. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bearssl_hash.h>

#include "fdio.h"
#include "json.h"
#include "linkwalk.h"
#include "msg.h"
#include "store.h"
#include "trustpol.h"

void
trustpol_hash(const void *buf, size_t len, unsigned char out[TRUSTPOL_HASH])
{
	br_sha256_context c;

	br_sha256_init(&c);
	br_sha256_update(&c, buf, len);
	br_sha256_out(&c, out);
}

static void
hex(const unsigned char *h, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
}

/* The record's name: the SHA-256 of the policy's real path, in hex. */
static void
record_name(const char *real, char out[2 * TRUSTPOL_HASH + 1])
{
	unsigned char h[TRUSTPOL_HASH];

	trustpol_hash(real, strlen(real), h);
	hex(h, sizeof h, out);
}

/* The approved hash of real, from STORE/approved: 1 found (into sha), 0 none. */
static int
approved(const char *store, const char *real, char sha[2 * TRUSTPOL_HASH + 1])
{
	char err[256], name[2 * TRUSTPOL_HASH + 1], *buf, path[PATH_MAX];
	jsmntok_t t[8];
	size_t len;
	int sfd, afd, n, k, kp, r = 0;

	if ((sfd = store_open(store, 0, err, sizeof err)) < 0)
		return 0;
	afd = store_subdir(sfd, "approved", 0, err, sizeof err);
	close(sfd);
	if (afd < 0)
		return 0;
	record_name(real, name);
	if (file_read_bounded(afd, name, PATH_MAX * 7, &buf, &len) == 0) {
		n = json_parse(buf, len, t, 8);
		k = n > 0 ? json_get(buf, t, 0, "sha256") : -1;
		kp = n > 0 ? json_get(buf, t, 0, "path") : -1;
		/* the record names the path it is for: a hash collision of names is no approval */
		if (k >= 0 && kp >= 0 && json_str(buf, &t[k], sha, 2 * TRUSTPOL_HASH + 1) == 2 * TRUSTPOL_HASH &&
		    json_str(buf, &t[kp], path, sizeof path) >= 0 && strcmp(path, real) == 0)
			r = 1;
		free(buf);
	}
	close(afd);
	return r;
}

/* Why the boundary could have written real (the file at st), or NULL. */
static const char *
untrusted(const struct polsrc *src, const char *real, const struct plan *pl, char *why, size_t n)
{
	char link[PATH_MAX], where[PATH_MAX + 64], r2[PATH_MAX], dir[PATH_MAX], *s;
	struct stat st;

	if (boundary_writable(pl, real, where, sizeof where))
		return snprintf(why, n, "lies in %s, which the agent can write", where), why;
	if (link_walk(pl, src->path, r2, link, sizeof link, where, sizeof where) == 1)
		return snprintf(why, n, "is reached through the symbolic link %s, in %s, which the agent can write",
		    link, where), why;
	if (src->st.st_uid != getuid())
		return snprintf(why, n, "is owned by uid %u, not by you", (unsigned)src->st.st_uid), why;
	if (src->st.st_mode & 022)
		return snprintf(why, n, "is group- or world-writable"), why;
	snprintf(dir, sizeof dir, "%s", real);
	while ((s = strrchr(dir, '/')) != NULL) {
		s == dir ? (void)(dir[1] = '\0') : (void)(*s = '\0');
		if (lstat(dir, &st) < 0)
			return snprintf(why, n, "lies in %s, which cannot be checked: %s", dir, strerror(errno)), why;
		if (st.st_uid != 0 && st.st_uid != getuid())
			return snprintf(why, n, "lies in %s, owned by uid %u, who can replace it", dir,
			    (unsigned)st.st_uid), why;
		if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
			return snprintf(why, n, "lies in %s, which others can write", dir), why;
		if (strcmp(dir, "/") == 0)
			break;
	}
	return NULL;
}

int
trustpol_check(const struct polsrc *src, const struct plan *pl)
{
	char real[PATH_MAX], why[PATH_MAX * 3 + 256], want[2 * TRUSTPOL_HASH + 1], got[2 * TRUSTPOL_HASH + 1];
	struct stat st;
	int have;

	if (!src->set)
		return 0;
	/* the file read is the file checked: same inode as the real path now */
	if (realpath(src->path, real) == NULL || stat(real, &st) < 0 ||
	    st.st_dev != src->st.st_dev || st.st_ino != src->st.st_ino) {
		msg_fatal("policy %s changed while it was read: refused", src->path);
		msg_hint("run again; keep your policies in ~/.config/corral/");
		return -1;
	}
	hex(src->sha, TRUSTPOL_HASH, got);
	have = approved(pl->store, real, want);
	if (have && strcmp(want, got) == 0)
		return 0;
	if (untrusted(src, real, pl, why, sizeof why) == NULL)
		return 0;
	if (have) {
		msg_fatal("policy %s %s, and it changed since you approved it (sha256 now %.16s...): refused",
		    src->path, why, got);
		msg_hint("review it, then approve it again: corral policy approve %s", src->path);
	} else {
		msg_fatal("policy %s %s: refused", src->path, why);
		msg_hint("keep your policies in ~/.config/corral/ (yours, not writable by others), or review this one and run: corral policy approve %s",
		    src->path);
	}
	return -1;
}

int
trustpol_extra(const char *path, const char *what, const struct plan *pl, char *real)
{
	char why[PATH_MAX * 3 + 256];
	struct polsrc src;
	int fd;

	if (path == NULL)
		return 0;
	memset(&src, 0, sizeof src);
	snprintf(src.path, sizeof src.path, "%s", path);
	errno = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0 || fstat(fd, &src.st) < 0 ||
	    !S_ISREG(src.st.st_mode) || realpath(path, real) == NULL) {
		if (fd >= 0)
			close(fd);
		msg_fatal("%s %s: %s", what, path, fd < 0 || errno ? strerror(errno) : "not a regular file");
		return -1;
	}
	close(fd);
	if (untrusted(&src, real, pl, why, sizeof why) != NULL) {
		msg_fatal("%s %s %s: refused", what, path, why);
		msg_hint("keep it in ~/.config/corral/ (yours, not writable by others)");
		return -1;
	}
	return 0;
}

int
trustpol_record(const char *real, const struct polsrc *src, char *const envp[])
{
	char store[PATH_MAX], err[256], name[2 * TRUSTPOL_HASH + 1], sha[2 * TRUSTPOL_HASH + 1];
	char q[PATH_MAX * 6 + 3], *rec;
	int sfd, afd, r, n;

	if (store_default_path(envp, store, sizeof store) < 0) {
		msg_fatal("no state directory: HOME and XDG_STATE_HOME are unset");
		return EXIT_USAGE;
	}
	if ((sfd = store_open(store, 1, err, sizeof err)) < 0) {
		msg_fatal("state directory %s: %s", store, err);
		return EXIT_USAGE;
	}
	afd = store_subdir(sfd, "approved", 1, err, sizeof err);
	close(sfd);
	if (afd < 0) {
		msg_fatal("state directory %s/approved: %s", store, err);
		return EXIT_USAGE;
	}
	record_name(real, name);
	hex(src->sha, TRUSTPOL_HASH, sha);
	if (json_quote(real, strlen(real), q, sizeof q) < 0 || (rec = malloc(sizeof q + 128)) == NULL) {
		close(afd);
		return msg_fatal("out of memory"), EXIT_USAGE;
	}
	n = snprintf(rec, sizeof q + 128, "{\"path\":%s,\"sha256\":\"%s\"}\n", q, sha);
	r = file_write_atomic(afd, name, rec, (size_t)n, 0600);
	free(rec);
	close(afd);
	if (r < 0)
		return msg_fatal_sys("unable to record the approval in %s/approved", store), EXIT_USAGE;
	printf("approved %s (sha256 %s)\n", real, sha);
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}
