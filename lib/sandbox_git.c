/* sandbox_git: keep a repository's .git from carrying code out of the
 * boundary while `git add` and `git commit` keep working inside.
 *
 * Landlock rights are hierarchical, so the workspace cannot be granted as a
 * whole: that would cover .git/hooks and .git/config. Instead each top-level
 * entry but .git is granted on its own, and inside .git only what a commit
 * writes: objects/, refs/, logs/, COMMIT_EDITMSG (an existing file, written
 * in place) and the index. The index is renamed into place by git's lock
 * files, which needs create+remove rights on its directory; git follows a
 * symlinked index to its target directory, so .git/index becomes a symlink
 * into .git/corral-index/, the one directory where that is granted. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock.h"
#include "sandbox.h"
#include "sandbox_int.h"

#define IDX_DIR "corral-index"
#define IDX_LINK IDX_DIR "/index"

static int
extra(struct sb_extra *x, struct sb_error *e, const char *a, const char *b,
    unsigned rights, uint64_t raw)
{
	char *s;
	size_t la = strlen(a), lb = b ? strlen(b) : 0;

	if (x->n >= SB_MAX_EXTRA)
		return sb_fail(e, SB_E_POLICY, E2BIG, "move files into subdirectories",
		    "--git-protect %s: more than %d top-level entries", a, SB_MAX_EXTRA - 8);
	s = malloc(la + lb + 2);
	if (s == NULL)
		return sb_fail(e, SB_E_SYS, ENOMEM, NULL, "out of memory");
	memcpy(s, a, la);
	s[la] = '\0';
	if (b != NULL) {
		s[la] = '/';
		memcpy(s + la + 1, b, lb + 1);
	}
	x->path[x->n].path = s;
	x->path[x->n].rights = rights;
	x->path[x->n].flags = 0;
	x->path[x->n].raw = raw;
	x->n++;
	return 0;
}

/* Make .git/index a symlink into corral-index/, moving an existing index. */
static int
prepare_index(int g, const char *dir, struct sb_error *e)
{
	struct stat st;
	char buf[64];
	ssize_t r;
	int fd;

	if (mkdirat(g, IDX_DIR, 0755) != 0 && errno != EEXIST)
		goto fail;
	if (fstatat(g, IDX_DIR, &st, AT_SYMLINK_NOFOLLOW) != 0)
		goto fail;
	if (!S_ISDIR(st.st_mode))
		return sb_fail(e, SB_E_POLICY, ENOTDIR, NULL,
		    "--git-protect %s: .git/" IDX_DIR " is not a directory", dir);
	if (fstatat(g, "index", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			r = readlinkat(g, "index", buf, sizeof buf - 1);
			if (r < 0)
				goto fail;
			buf[r] = '\0';
			if (strcmp(buf, IDX_LINK) != 0)
				return sb_fail(e, SB_E_POLICY, EINVAL, NULL,
				    "--git-protect %s: .git/index is a foreign symlink", dir);
		} else if (S_ISREG(st.st_mode)) {
			if (renameat(g, "index", g, IDX_LINK) != 0 ||
			    symlinkat(IDX_LINK, g, "index") != 0)
				goto fail;
		} else
			return sb_fail(e, SB_E_POLICY, EINVAL, NULL,
			    "--git-protect %s: .git/index is not a file", dir);
	} else if (errno == ENOENT) {
		if (symlinkat(IDX_LINK, g, "index") != 0)
			goto fail;
	} else
		goto fail;
	/* COMMIT_EDITMSG is written in place: it must exist beforehand. */
	fd = openat(g, "COMMIT_EDITMSG", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	close(fd);
	if (mkdirat(g, "logs", 0755) != 0 && errno != EEXIST)
		goto fail;
	return 0;
fail:
	return sb_fail(e, SB_E_PATH, errno, NULL, "--git-protect %s: unable to prepare .git: %s",
	    dir, strerror(errno));
}

int
sb_git_prepare(const char *dir, struct sb_extra *x, struct sb_error *e)
{
	char gitp[PATH_MAX];
	struct stat st;
	struct dirent *de;
	DIR *d;
	int g, r;

	if (snprintf(gitp, sizeof gitp, "%s/.git", dir) >= (int)sizeof gitp)
		return sb_fail(e, SB_E_POLICY, ENAMETOOLONG, NULL, "--git-protect %s: path too long", dir);
	if (lstat(gitp, &st) != 0)
		return sb_fail(e, SB_E_PATH, errno, "name the top directory of a repository",
		    "--git-protect %s: unable to open .git: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sb_fail(e, SB_E_UNSUPPORTED, ENOTDIR,
		    "protect the main worktree, whose .git is a directory",
		    "--git-protect %s: .git is not a directory (linked worktrees and gitfiles are not supported)",
		    dir);
	g = open(gitp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (g < 0)
		return sb_fail(e, SB_E_PATH, errno, NULL, "--git-protect %s: unable to open .git: %s",
		    dir, strerror(errno));
	r = prepare_index(g, dir, e);
	close(g);
	if (r != 0)
		return -1;

	/* The top directory: read and execute; nothing can be created in it. */
	if (extra(x, e, dir, NULL, SB_X, 0) != 0)
		return -1;
	d = opendir(dir);
	if (d == NULL)
		return sb_fail(e, SB_E_PATH, errno, NULL, "--git-protect %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, ".git") == 0)
			continue;
		/* Symlinks are skipped: a grant must never follow one out. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		if (extra(x, e, dir, de->d_name, SB_W | SB_X, 0) != 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	if (extra(x, e, gitp, "objects", SB_W, 0) != 0 ||
	    extra(x, e, gitp, "refs", SB_W, 0) != 0 ||
	    extra(x, e, gitp, "logs", SB_W, 0) != 0 ||
	    extra(x, e, gitp, "COMMIT_EDITMSG", 0, LANDLOCK_ACCESS_FS_READ_FILE |
		LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE) != 0 ||
	    /* No symlinks, no subdirectories: only the index and its lock. */
	    extra(x, e, gitp, IDX_DIR, 0, LANDLOCK_ACCESS_FS_READ_FILE |
		LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_WRITE_FILE |
		LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		LANDLOCK_ACCESS_FS_TRUNCATE) != 0)
		return -1;
	return 0;
}
