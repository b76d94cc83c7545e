/* sandbox_git: keep a repository's .git from carrying code out of the
 * boundary while `git add` and `git commit` keep working inside.
 *
 * Landlock alone cannot do it: its rights are hierarchical, and git needs to
 * create and remove HEAD.lock (and index.lock) in the .git root, which would
 * also allow replacing .git/config or planting .git/commondir. So the process
 * enters a private mount namespace (a user namespace too when unprivileged)
 * and lays a tmpfs over DIR/.git, seen only inside, holding:
 *   objects/ refs/ logs/ corral-index/  read-write binds of the real ones
 *                                       (what a commit writes, seen outside)
 *   config, hooks/, info/, every other  read-only binds (EROFS; renaming a
 *   directory                           mount point fails with EBUSY)
 *   HEAD, COMMIT_EDITMSG, packed-refs,  private copies: written inside,
 *   any other file                      never seen outside
 *   anything new (commondir, HEAD.lock) private to the tmpfs
 * The index is shared through a symlink: .git/index -> corral-index/index
 * (git's lock files follow it), set up once in the real .git. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fdio.h"
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
	if (mkdirat(g, "logs", 0755) != 0 && errno != EEXIST)
		goto fail;
	return 0;
fail:
	return sb_fail(e, SB_E_PATH, errno, NULL, "--git-protect %s: unable to prepare .git: %s",
	    dir, strerror(errno));
}

static int
write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(s);

	if (fd < 0)
		return -1;
	if (write(fd, s, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* A private mount namespace (with a user namespace when not privileged). */
static int
enter_ns(struct sb_error *e)
{
	static int done;
	char map[64];
	uid_t u = geteuid();
	gid_t g = getegid();

	if (done)
		return 0;
	if (unshare(CLONE_NEWNS) != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			return sb_fail(e, SB_E_UNSUPPORTED, errno,
			    "enable unprivileged user namespaces (user.max_user_namespaces) or drop --git-protect",
			    "--git-protect needs a private mount namespace: %s", strerror(errno));
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)u, (unsigned)u);
		if (write_str("/proc/self/setgroups", "deny") != 0 ||
		    write_str("/proc/self/uid_map", map) != 0)
			goto fail;
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)g, (unsigned)g);
		if (write_str("/proc/self/gid_map", map) != 0)
			goto fail;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		goto fail;
	done = 1;
	return 0;
fail:
	return sb_fail(e, SB_E_SYS, errno, NULL, "--git-protect: mount namespace setup: %s",
	    strerror(errno));
}

static unsigned long
locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) != 0)
		return 0;
	if (sv.f_flag & ST_NOSUID) f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV) f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
	return f;
}

static int
copy_file(int g, const char *nm, const char *dst)
{
	char buf[65536];
	ssize_t n;
	int in, out, r = 0;

	in = openat(g, nm, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (fd_write_all(out, buf, (size_t)n) != 0) {
			r = -1;
			break;
		}
	if (n < 0)
		r = -1;
	close(in);
	if (close(out) != 0)
		r = -1;
	return r;
}

/* Writable inside and seen outside: what a commit writes. */
static int
shared_rw(const char *name)
{
	return strcmp(name, "objects") == 0 || strcmp(name, "refs") == 0 ||
	    strcmp(name, "logs") == 0 || strcmp(name, IDX_DIR) == 0;
}

/* Lay a private tmpfs over dir/.git holding: HEAD (a private copy), the
 * index symlink, read-write binds of the shared_rw() directories and
 * read-only binds of everything else. */
static int
overlay_git(const char *dir, const char *gitp, struct sb_error *e)
{
	char src[64], dst[PATH_MAX], lnk[PATH_MAX];
	struct stat st;
	struct dirent *de;
	DIR *d;
	int g, fd, r = -1;

	ssize_t n;

	/* The directory fd must belong to the new namespace: bind mounts
	 * refuse sources from another one. */
	if (enter_ns(e) != 0)
		return -1;
	g = open(gitp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (g < 0)
		return sb_fail(e, SB_E_PATH, errno, NULL, "--git-protect %s: %s", dir, strerror(errno));
	if (mount("corral-git", gitp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64m") != 0)
		goto sys;
	d = fdopendir(dup(g));
	if (d == NULL)
		goto sys;
	while ((de = readdir(d)) != NULL) {
		const char *nm = de->d_name;

		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0)
			continue;
		if (fstatat(g, nm, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		snprintf(src, sizeof src, "/proc/self/fd/%d/", g);
		if (strlen(src) + strlen(nm) >= sizeof src ||
		    snprintf(dst, sizeof dst, "%s/%s", gitp, nm) >= (int)sizeof dst) {
			closedir(d);
			errno = ENAMETOOLONG;
			goto sys;
		}
		strcat(src, nm);
		if (S_ISLNK(st.st_mode)) {
			n = readlinkat(g, nm, lnk, sizeof lnk - 1);
			if (n < 0 || (lnk[n] = '\0', symlink(lnk, dst) != 0)) {
				closedir(d);
				goto sys;
			}
			continue;
		}
		if (S_ISREG(st.st_mode) && strcmp(nm, "config") != 0) {
			/* Transient state (COMMIT_EDITMSG, ORIG_HEAD, packed-refs
			 * ...): a private copy, so git can rewrite it inside. */
			if (copy_file(g, nm, dst) != 0) {
				closedir(d);
				goto sys;
			}
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (mkdir(dst, 0755) != 0) {
				closedir(d);
				goto sys;
			}
		} else {
			fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0) {
				closedir(d);
				goto sys;
			}
			close(fd);
		}
		if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    (!shared_rw(nm) && mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY |
		    locked_flags(dst), NULL) != 0)) {
			closedir(d);
			goto sys;
		}
	}
	closedir(d);
	r = 0;
	goto out;
sys:
	sb_fail(e, SB_E_SYS, errno, NULL, "--git-protect %s: unable to set up .git: %s",
	    dir, strerror(errno));
out:
	close(g);
	return r;
}

/* The mounts keep config, hooks and info read-only, but the shared
 * directories (objects, refs, logs, the index) stay writable, and a git run
 * outside follows symlinks there (a logs/HEAD symlink would make it append
 * reflog lines to any file it can write). So no symlink may be made or moved
 * into .git: the workspace root is granted without MAKE_SYM and REFER
 * (hierarchical, so .git inherits that), each existing top-level entry but
 * .git with every right, and .git/objects with REFER (git moves objects
 * across its directories). */
static int
workspace_rules(const char *dir, const char *gitp, struct sb_extra *x, struct sb_error *e)
{
	const uint64_t nosym = ~(LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER);
	struct stat st;
	struct dirent *de;
	DIR *d;

	if (extra(x, e, dir, NULL, 0, sb_fs_access(SB_W | SB_X, 1, 99) & nosym) != 0 ||
	    extra(x, e, gitp, "objects", 0, sb_fs_access(SB_W, 1, 99) &
		~LANDLOCK_ACCESS_FS_MAKE_SYM) != 0)
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
	return 0;
}

/* A path rule granting write rights on DIR, an ancestor of it, or anything
 * in DIR/.git would cover .git (Landlock rights add up) and undo the
 * protection: refuse the policy. */
int
sb_git_conflicts(const struct sb_policy *p, const char *dir, struct sb_error *e)
{
	char g[PATH_MAX], r[PATH_MAX];
	size_t i, n;

	if (realpath(dir, g) == NULL)
		return sb_fail(e, SB_E_PATH, errno, "name the top directory of a repository",
		    "--git-protect %s: %s", dir, strerror(errno));
	for (i = 0; i < p->npath; i++) {
		if (!(p->path[i].rights & (SB_W | SB_WALL)) && !(p->path[i].raw &
		    ~(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
		    LANDLOCK_ACCESS_FS_EXECUTE)))
			continue;
		if (realpath(p->path[i].path, r) == NULL)
			continue;	/* reported (or skipped) when the rule is added */
		n = strlen(r);
		if ((strncmp(g, r, n) == 0 && (g[n] == '\0' || g[n] == '/' || n == 1)) ||
		    (strncmp(r, g, strlen(g)) == 0 && strncmp(r + strlen(g), "/.git", 5) == 0 &&
		    (r[strlen(g) + 5] == '\0' || r[strlen(g) + 5] == '/')))
			return sb_fail(e, SB_E_POLICY, EINVAL,
			    "grant the workspace through --git-protect alone",
			    "write grant on %s would cover the .git that --git-protect %s protects",
			    p->path[i].path, dir);
	}
	return 0;
}

int
sb_git_prepare(const char *dir, struct sb_extra *x, struct sb_error *e)
{
	char gitp[PATH_MAX];
	struct stat st;
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
	if (r != 0 || overlay_git(dir, gitp, e) != 0)
		return -1;
	return workspace_rules(dir, gitp, x, e);
}
