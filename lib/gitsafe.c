/* gitsafe: see gitsafe.h. The union of what corral's gitrun and
 * sandbox-mcp's checkpoint runner each forced before they shared it, but
 * GIT_NO_REPLACE_OBJECTS: corral sets it (it reads repositories the agent
 * wrote), sandbox-mcp may not (its history, written by the server alone,
 * is pruned with replace grafts). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "gitsafe.h"

const char *const gitsafe_cfg[] = {
	"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.pager=cat",
	"core.sshCommand=false", "core.askPass=", "core.editor=false",
	"core.alternateRefsCommand=", "core.untrackedCache=false", "core.splitIndex=false",
	"core.excludesFile=/dev/null", "core.attributesFile=/dev/null",
	"credential.helper=", "diff.external=", "uploadpack.packObjectsHook=",
	"commit.gpgSign=false", "tag.gpgSign=false", "protocol.allow=never",
	"submodule.recurse=false", "gc.auto=0", "maintenance.auto=false", "index.skipHash=false",
	NULL
};

const char *const gitsafe_env[] = {
	"HOME=/nonexistent", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_TERMINAL_PROMPT=0", "GIT_ATTR_NOSYSTEM=1", "GIT_PAGER=cat", NULL
};

/* Does s's key (before '=') equal the key of an entry of t? Config keys
 * are case-insensitive in git; variable names are not. */
static int
taken(const char *const t[], const char *s, int icase)
{
	size_t k = strcspn(s, "=");

	for (size_t i = 0; t[i]; i++)
		if (strcspn(t[i], "=") == k &&
		    (icase ? strncasecmp(t[i], s, k) : strncmp(t[i], s, k)) == 0)
			return 1;
	return 0;
}

int
gitsafe_push_cfg(struct argv *av, const char *const extra[])
{
	for (size_t i = 0; extra && extra[i]; i++)
		if (taken(gitsafe_cfg, extra[i], 1))
			return errno = EINVAL, -1;
	for (size_t i = 0; gitsafe_cfg[i]; i++) {
		av_push(av, "-c");
		av_push(av, gitsafe_cfg[i]);
	}
	for (size_t i = 0; extra && extra[i]; i++) {
		av_push(av, "-c");
		av_push(av, extra[i]);
	}
	return av->err ? (errno = ENOMEM, -1) : 0;
}

int
gitsafe_push_env(struct argv *ev, const char *const extra[])
{
	for (size_t i = 0; extra && extra[i]; i++)
		if (taken(gitsafe_env, extra[i], 0))
			return errno = EINVAL, -1;
	av_pushv(ev, (char *const *)gitsafe_env);
	av_pushv(ev, (char *const *)extra);
	return ev->err ? (errno = ENOMEM, -1) : 0;
}
