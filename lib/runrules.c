/* runrules: the table is the whole policy: one pattern and one reason a
 * line. Ordinary sources (a Makefile, package.json scripts) are not in it:
 * a build runs them by the user's choice; these run by being there
 * (opening a folder, entering a directory, starting an agent, a git
 * command). */
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fdio.h"
#include "runrules.h"

static const struct rule {
	const char *pat;	/* relative path; "**" + "/" first: at any depth */
	const char *what;	/* what would execute it */
} rules[] = {
	{ ".vscode/tasks.json", "VS Code runs its tasks, those with \"runOn\": \"folderOpen\" on opening the folder" },
	{ ".vscode/settings.json", "VS Code runs the interpreters, tools and terminal profiles it names" },
	{ ".vscode/launch.json", "VS Code runs its programs and preLaunchTask on debugging" },
	{ ".devcontainer/*", "dev container tools run its initializeCommand on this machine" },
	{ ".devcontainer.json", "dev container tools run its initializeCommand on this machine" },
	{ ".envrc", "direnv runs it on entering the directory" },
	{ ".mcp.json", "Claude Code starts the MCP servers it names" },
	{ ".claude/settings.json", "Claude Code runs its hooks" },
	{ ".claude/settings.local.json", "Claude Code runs its hooks" },
	{ ".gemini/settings.json", "Gemini CLI runs its hooks and starts its MCP servers" },
	{ ".codex/config.toml", "Codex starts the MCP servers and runs the notify program it names" },
	{ ".cursor/mcp.json", "Cursor starts the MCP servers it names" },
	{ ".husky/*", "husky runs it as a git hook: your next git commit runs it, outside corral" },
	{ ".husky/_/*", "husky runs it as a git hook: your next git commit runs it, outside corral" },
	{ "lefthook.yml", "lefthook runs the commands it names as git hooks: your next git commit runs them" },
	{ ".lefthook.yml", "lefthook runs the commands it names as git hooks: your next git commit runs them" },
	{ ".pre-commit-config.yaml", "pre-commit runs the hooks it names on git commit" },
	{ ".npmrc", "npm runs its script-shell and node-options on the next npm command" },
	{ ".yarnrc.yml", "yarn runs the yarnPath and plugins it names" },
	{ "mise.toml", "mise runs its hooks and tasks on entering the directory" },
	{ ".mise.toml", "mise runs its hooks and tasks on entering the directory" },
	{ ".config/mise/config.toml", "mise runs its hooks and tasks on entering the directory" },
	{ ".cargo/config.toml", "cargo runs the runners, linkers and aliases it names on the next cargo command" },
	{ ".zed/tasks.json", "Zed runs its tasks" },
	{ ".idea/runConfigurations/*", "IntelliJ IDEs run its run configuration" },
	{ ".github/workflows/*", "CI runs it on your next push, with the repository's secrets" },
	{ ".gitmodules", "git submodule update fetches the URLs it names and runs its update commands" },
	{ "**/.gitattributes", "git runs the filter, diff and merge drivers it names" },
	{ "**/.git/hooks/*", "git runs it as a hook of that repository" },
	{ "**/.git/config", "git runs what it names (core.fsmonitor, core.sshCommand, hooksPath, aliases) in that repository" },
	/* a bare repository anywhere in the tree (its own HEAD, config and
	 * objects): matched by the walk, not by name */
	{ "", "git runs what it names (core.pager, core.fsmonitor, hooksPath, aliases) when used in that bare repository" },
	{ "", "git runs it as a hook of that bare repository" },
};
enum { NRULES = sizeof rules / sizeof rules[0] };

int
runrules_bare(int hook)
{
	return hook ? NRULES - 1 : NRULES - 2;
}

/* The last component of a path (rel itself when it has no '/'). */
static const char *
base(const char *p, const char **parent, size_t *pn)
{
	const char *s = strrchr(p, '/'), *q;

	if (s == NULL) {
		*parent = "";
		*pn = 0;
		return p;
	}
	for (q = s; q > p && q[-1] != '/'; q--)
		;
	*parent = q;
	*pn = (size_t)(s - q);
	return s + 1;
}

static int
rule_match(const char *pat, const char *rel)
{
	const char *pb, *pp, *rb, *rp;
	size_t ppn, rpn;

	/* cheap first: the last component (or, for "*", its directory) */
	pb = base(pat, &pp, &ppn);
	rb = base(rel, &rp, &rpn);
	if (strcmp(pb, "*") != 0 ? strcmp(pb, rb) != 0 : ppn != rpn || strncmp(pp, rp, ppn) != 0)
		return 0;
	if (strncmp(pat, "**/", 3) != 0)
		return fnmatch(pat, rel, FNM_PATHNAME) == 0;
	for (const char *p = rel; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
		if (fnmatch(pat + 3, p, FNM_PATHNAME) == 0)
			return 1;
	return 0;
}

/* What a name alone can tell (runrules_name_may, runrules_dir_may): the
 * last components of the patterns, and the directories of those whose last
 * component is "*". Built once; the table is fixed. */
static const char *names[NRULES], *stardirs[NRULES];
static size_t nnames, nstardirs;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void
names_build(void)
{
	for (size_t i = 0; i < NRULES; i++) {
		const char *b, *pp;
		size_t ppn;
		if (!rules[i].pat[0])
			continue;
		b = base(rules[i].pat, &pp, &ppn);
		size_t j = 0;
		while (j < nnames && strcmp(names[j], b) != 0)
			j++;
		if (strcmp(b, "*") != 0 && j == nnames)	/* each name once */
			names[nnames++] = b;
		else
			stardirs[nstardirs++] = pp;	/* "workflows" of .github/workflows, and so on */
	}
}

int
runrules_name_may(const char *name)
{
	pthread_once(&names_once, names_build);
	for (size_t i = 0; i < nnames; i++)
		if (names[i][0] == name[0] && strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

size_t
runrules_names(const char *const **v)
{
	pthread_once(&names_once, names_build);
	*v = names;
	return nnames;
}

int
runrules_dir_may(const char *dir, size_t n)
{
	pthread_once(&names_once, names_build);
	for (size_t i = 0; i < nstardirs; i++)
		if (strncmp(stardirs[i], dir, n) == 0 && stardirs[i][n] == '/')
			return 1;
	return 0;
}

int
runrules_match(const char *rel)
{
	for (int i = 0; i < (int)NRULES; i++)
		if (rules[i].pat[0] && rule_match(rules[i].pat, rel))
			return i;
	return -1;
}

int
runrules_match_deep(const char *rel)
{
	for (const char *p = rel; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL) {
		int i = runrules_match(p);
		if (i >= 0)
			return i;
	}
	return -1;
}

const char *
runrules_what(int i)
{
	return i >= 0 && i < (int)NRULES ? rules[i].what : NULL;
}

int
runrules_is_dotgit(const char *name)
{
	return strcasecmp(name, ".git") == 0;
}

void
runrules_hooks_from(const char *path, char *out, size_t n)
{
	char *buf, *line, *save = NULL, *k, *v;
	size_t len;
	int core = 0;

	if (file_read_bounded(AT_FDCWD, path, 1 << 20, &buf, &len) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (*line == '[') {
			core = strncasecmp(line, "[core]", 6) == 0;
			continue;
		}
		if (!core || (v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		k = line;
		k[strcspn(k, " \t")] = '\0';
		if (strcasecmp(k, "hooksPath") != 0)
			continue;
		v += strspn(v, " \t\"");
		v[strcspn(v, "\"\r")] = '\0';
		for (size_t l = strlen(v); l > 0 && (v[l - 1] == ' ' || v[l - 1] == '\t'); l--)
			v[l - 1] = '\0';
		snprintf(out, n, "%s", v);
	}
	free(buf);
}
