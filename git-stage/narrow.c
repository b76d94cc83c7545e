/* narrow: git-stage finish's boundary (gs.h), applied before it reads a
 * byte the agent wrote. Landlock grants only: the attempt's directory,
 * the checkout's slot and the trash in the store; in the real repository
 * only what the import writes (objects, refs, logs), the rest of it (its
 * work tree, config, hooks, index) read-only (in-place: what the agent
 * made there may be moved out, nothing made or written); the system's
 * programs executable (git and what git runs), of /etc what git reads;
 * nothing of the user's home beyond the repository. No network. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gs.h"
#include "landlock.h"
#include "msg.h"
#include "selfnarrow.h"

/* Every entry of ws's top but .git, SB_W (paths kept until exit). */
static int
top_entries(struct sb_policy *pol, const char *ws)
{
	struct dirent *de;
	DIR *d = opendir(ws);
	int r = 0;

	if (d == NULL)
		return -1;
	while (r == 0 && (de = readdir(d)) != NULL) {
		char *p;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
			continue;
		if (asprintf(&p, "%s/%s", ws, de->d_name) < 0)
			r = -1;
		else if (sb_policy_add_path(pol, p, SB_W, SB_OPTIONAL) < 0)
			r = (errno = E2BIG, -1);
	}
	closedir(d);
	return r;
}

int
gs_narrow(const struct gitws *g, const char *store, char *why, size_t whyn)
{
	static struct sb_policy pol;
	static char p[8][PATH_MAX + 32];
	static const char *const etc[] = { "/etc/ld.so.cache", "/etc/passwd", "/etc/group",
		"/etc/nsswitch.conf", "/etc/localtime", NULL };
	static const char *const sys[] = { "/usr", "/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin", NULL };
	char w[PATH_MAX];
	int r = 0;

	sb_policy_init(&pol);
	pol.net = SB_NET_NONE;
	pol.dev = 1;			/* /dev/null for git's stdin and stdout */
	for (size_t i = 0; sys[i]; i++)
		r |= sb_policy_add_path(&pol, sys[i], SB_X, SB_OPTIONAL);
	/* of /etc only what git reads (a grant of /etc is made entry by
	 * entry, lib/sandbox_etc: 180 rules, most of this step's cost) */
	for (size_t i = 0; etc[i]; i++)
		r |= sb_policy_add_path(&pol, etc[i], SB_R, SB_OPTIONAL);
	/* the store: this attempt, its slot, the trash (and STORE/git listed,
	 * where the trash is found) */
	snprintf(p[4], sizeof p[4], "%s/git", store);
	r |= sb_policy_add_path(&pol, p[4], SB_R, 0);
	snprintf(p[0], sizeof p[0], "%s/git/trash", store);
	(void)mkdir(p[0], 0700);
	r |= sb_policy_add_path(&pol, p[0], SB_W, 0);
	r |= sb_policy_add_path(&pol, g->dir, SB_W, 0);
	if (g->mode == GIT_WORKTREE) {
		snprintf(w, sizeof w, "%s", g->work);
		*strrchr(w, '/') = '\0';
		snprintf(p[1], sizeof p[1], "%s", w);
		r |= sb_policy_add_path(&pol, p[1], SB_W, 0);
	}
	/* the repository: read; the objects, refs and logs: write */
	r |= sb_policy_add_path(&pol, g->ws, SB_R, 0);
	if (g->mode == GIT_INPLACE && r == 0) {
		/* in-place: the nested repositories and special files the agent
		 * made in the workspace are moved aside into g->dir. Its top:
		 * entries may be moved out, nothing made or written there; each
		 * entry but .git: as the attempt's directory (a move must not
		 * gain rights, or Landlock refuses it) */
		pol.path[pol.npath - 1].raw = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
		    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REFER;
		if (top_entries(&pol, g->ws) < 0)
			return msg_say(why, whyn, "unable to list %s for its boundary: %s", g->ws, strerror(errno));
	}
	r |= sb_policy_add_path(&pol, g->gitdir, SB_R, 0);
	r |= sb_policy_add_path(&pol, g->common, SB_R, 0);
	for (size_t i = 1; i < g->objects.n; i++)
		r |= sb_policy_add_path(&pol, g->objects.v[i], SB_R, SB_OPTIONAL);
	r |= sb_policy_add_path(&pol, g->objects.v[0], SB_W, 0);
	snprintf(p[2], sizeof p[2], "%s/refs", g->common);
	r |= sb_policy_add_path(&pol, p[2], SB_W, 0);
	snprintf(p[3], sizeof p[3], "%s/logs", g->common);
	/* a reflog for the new branch: its directory made first */
	if (mkdir(p[3], 0755) < 0 && errno != EEXIST)
		return msg_say(why, whyn, "unable to make %s: %s", p[3], strerror(errno));
	r |= sb_policy_add_path(&pol, p[3], SB_W, 0);
	if (r != 0)
		return msg_say(why, whyn, "too many paths for its boundary");
	return selfnarrow_exec(&pol, why, whyn);
}
