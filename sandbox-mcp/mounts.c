#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "fdio.h"
#include "mounts.h"
#include "path.h"
#include "stepdir.h"

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
	struct stat st;

	if (fstatat(ss->wsfd, ".packages/pip", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		av_pushf(env, "PYTHONPATH=%s/.packages/pip", ss->ws);
	if (fstatat(ss->wsfd, ".packages/npm/node_modules", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		av_pushf(env, "NODE_PATH=%s/.packages/npm/node_modules", ss->ws);
	return env->err ? -1 : 0;
}
