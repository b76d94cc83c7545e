/* agentsock: see agentsock.h.
 *
 * codex 0.171's app server always binds /tmp/codex-daemon-UID/HASH, HASH
 * the SHA-256 (hex) of the path of its control socket in the home,
 * $HOME/.codex/app-server-control/app-server-control.sock, which it makes a
 * link to that socket (short enough for sun_path, wherever the home is),
 * whatever TMPDIR says, after taking a lock on HASH.lock beside it. /tmp
 * is no write grant of the agent's, and granting
 * that directory would let the agent take the name the user's own codex
 * connects to (the SHA-256 of the user's home path) or remove it; the
 * broker makes exactly this attempt's name and nothing else there, and the
 * lock file corral makes is granted alone (read and write, not remove). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentsock.h"
#include "trustpol.h"

static const struct {
	const char *agent, *dir, *control;	/* dir: the uid follows */
} rules[] = {
	{ "codex", "/tmp/codex-daemon-", "/home/.codex/app-server-control/app-server-control.sock" },
};

int
agentsock_path(const char *agent, const char *attempt_dir, unsigned uid, char *out, size_t n)
{
	unsigned char h[TRUSTPOL_HASH];
	char ctl[4096];
	int l;

	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		if (strcmp(agent, rules[i].agent) != 0)
			continue;
		if ((size_t)snprintf(ctl, sizeof ctl, "%s%s", attempt_dir, rules[i].control) >= sizeof ctl)
			return errno = ENAMETOOLONG, -1;
		trustpol_hash(ctl, strlen(ctl), h);
		l = snprintf(out, n, "%s%u", rules[i].dir, uid);
		if (l < 0 || (size_t)l + 1 + 2 * sizeof h >= n)
			return errno = ENAMETOOLONG, -1;
		out[l++] = '/';
		for (size_t k = 0; k < sizeof h; k++)
			l += snprintf(out + l, n - (size_t)l, "%02x", h[k]);
		return 1;
	}
	return 0;
}

int
agentsock_prepare(const char *path, char *why, size_t whyn)
{
	char dir[4096];
	const char *sl = strrchr(path, '/');
	struct stat st;
	int fd, lk;

	snprintf(dir, sizeof dir, "%.*s", (int)(sl - path), path);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return snprintf(why, whyn, "unable to create %s: %s", dir, strerror(errno)), -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return snprintf(why, whyn, "%s: %s", dir, errno == ELOOP || errno == ENOTDIR ?
		    "not a directory (a link?)" : strerror(errno)), -1;
	if (fstat(fd, &st) < 0) {
		snprintf(why, whyn, "%s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(why, whyn, "%s is owned by uid %u, mode %03o: not yours alone", dir,
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	/* its lock, made here so that a grant can name it */
	snprintf(dir, sizeof dir, "%s%s", sl + 1, AGENTSOCK_LOCK);
	lk = openat(fd, dir, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (lk < 0 || fstat(lk, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(why, whyn, "unable to make its lock %s%s: %s", path, AGENTSOCK_LOCK,
		    lk < 0 ? strerror(errno) : "not a file of yours");
		if (lk >= 0)
			close(lk);
		close(fd);
		return -1;
	}
	close(lk);
	close(fd);
	return 0;
}

void
agentsock_remove(const char *path)
{
	struct stat st;

	char lock[4096];

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
		(void)unlink(path);
	snprintf(lock, sizeof lock, "%s%s", path, AGENTSOCK_LOCK);
	if (lstat(lock, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		(void)unlink(lock);
}

int
agentsock_explain(const char *agent, char *out, size_t n)
{
	out[0] = '\0';
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (strcmp(agent, rules[i].agent) == 0)
			return snprintf(out, n, "AGENT_SOCK=%s$(id -u)/$(printf %%s \"$ATTEMPT_DIR\"'%s' | sha256sum | cut -c1-64)"
			    " && (umask 077 && mkdir -p \"${AGENT_SOCK%%/*}\" && : >> \"$AGENT_SOCK\"%s)\n",
			    rules[i].dir, rules[i].control, "'" AGENTSOCK_LOCK "'") < (int)n ? 1 : -1;
	return 0;
}
