#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy.h"
#include "fdio.h"
#include "jw.h"
#include "rnd.h"

static int
copy_file(int in, const struct stat *st, int dfd, const char *dname, struct copy_opt *o)
{
	char tmp[32], buf[65536];
	int out, e;
	ssize_t n;

	if (st->st_size > o->budget)
		return errno = EFBIG, -1;
	memcpy(tmp, ".sbx-", 5);
	rnd_hex(tmp + 5, 8);
	if ((out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, o->fmode)) < 0)
		return -1;
	if (o->keep_exec && (st->st_mode & S_IXUSR) && fchmod(out, 0755) < 0)
		goto fail;
	while ((n = read(in, buf, sizeof buf)) > 0) {
		if (n > o->budget) {
			errno = EFBIG;
			goto fail;
		}
		o->budget -= n;
		o->bytes += n;
		if (fd_write_all(out, buf, (size_t)n) < 0)
			goto fail;
	}
	if (n < 0 || fsync(out) < 0 || close(out) < 0) {
		out = -1;
		goto fail;
	}
	if (renameat(dfd, tmp, dfd, dname) < 0) {
		out = -1;
		goto fail;
	}
	o->files++;
	return 0;
fail:
	e = errno;
	if (out >= 0)
		close(out);
	unlinkat(dfd, tmp, 0);
	return errno = e, -1;
}

/* A link at depth (directories below the top) whose target t stays inside
 * the tree: relative, its ".." all first and no more of them than depth,
 * then plain names (each link so made lands inside, so chains do too). */
int
copy_link_inside(const char *t, int depth)
{
	int up = 1;

	if (*t == '\0' || *t == '/')
		return 0;
	while (*t) {
		size_t l = strcspn(t, "/");
		if (l == 0 || (l == 1 && t[0] == '.'))
			return 0;
		if (l == 2 && t[0] == '.' && t[1] == '.') {
			if (!up || --depth < 0)
				return 0;
		} else {
			up = 0;
		}
		t += l + (t[l] == '/');
	}
	return !up;
}

static int
copy_link(int sfd, const char *name, int dfd, struct copy_opt *o)
{
	char t[4096];
	ssize_t n = readlinkat(sfd, name, t, sizeof t - 1);

	if (n <= 0)
		return -1;
	t[n] = '\0';
	if (!copy_link_inside(t, o->depth) || symlinkat(t, dfd, name) < 0)
		return -1;
	o->links_kept++;
	return 0;
}

int
copy_at(int sfd, const char *sname, int dfd, const char *dname, struct copy_opt *o)
{
	struct stat st;
	int fd, nd, rc = 0;
	DIR *d;
	struct dirent *de;

	fd = openat(sfd, sname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP)
			o->links_skipped++;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (o->skip && o->skip(o->ctx, o->rel, sfd, sname, &st)) {
		close(fd);
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		fcntl(fd, F_SETFL, 0);
		rc = copy_file(fd, &st, dfd, dname, o);
		close(fd);
		return rc;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		o->others_skipped++;
		return 0;
	}
	if (mkdirat(dfd, dname, 0755) < 0 && errno != EEXIST) {
		close(fd);
		return -1;
	}
	if ((nd = openat(dfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(fd)) == NULL) {
		int e = errno;
		if (nd >= 0)
			close(nd);
		close(fd);
		return errno = e, -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat cs;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &cs, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(cs.st_mode)) {
			if (!o->keep_links || copy_link(dirfd(d), de->d_name, nd, o) < 0)
				o->links_skipped++;
			continue;
		}
		if (S_ISDIR(cs.st_mode) && o->is_overlay && o->is_overlay(o->ctx, de->d_name)) {
			o->overlay(o->ctx, dirfd(d), de->d_name, nd);
			continue;
		}
		if (!S_ISDIR(cs.st_mode) && !S_ISREG(cs.st_mode)) {
			o->others_skipped++;
			continue;
		}
		if (o->skip) {
			size_t l = strlen(o->rel);
			if (l + strlen(de->d_name) + 2 > sizeof o->rel) {
				rc = -1;
				errno = ENAMETOOLONG;
				break;
			}
			snprintf(o->rel + l, sizeof o->rel - l, "%s%s", l ? "/" : "", de->d_name);
			o->depth++;
			rc = copy_at(dirfd(d), de->d_name, nd, de->d_name, o);
			o->depth--;
			o->rel[l] = '\0';
		} else {
			o->depth++;
			rc = copy_at(dirfd(d), de->d_name, nd, de->d_name, o);
			o->depth--;
		}
	}
	{
		int e = errno;
		closedir(d);
		close(nd);
		errno = e;
	}
	return rc;
}

void
copy_counts_json(struct jw *w, const struct copy_opt *o)
{
	jw_key(w, "files");
	jw_int(w, o->files);
	jw_key(w, "bytes");
	jw_int(w, o->bytes);
	jw_key(w, "symlinks_skipped");
	jw_int(w, o->links_skipped);
	if (o->keep_links) {
		jw_key(w, "symlinks_kept");
		jw_int(w, o->links_kept);
	}
}
