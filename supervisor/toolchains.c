/* toolchains: the table of toolchain managers in the home, and the grants
 * it makes. See toolchains.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linkwalk.h"
#include "pathmemo.h"
#include "resolve.h"
#include "toolchains.h"

#define NPMRC_OUT "%/etc: npm's global npmrc (etc/npmrc) can hold registry tokens"

const struct toolchain toolchains[] = {
	{ .name = "claude",
	  .bin = { ".local/bin" },
	  .need = ".local/share/claude/versions",
	  .rx = { ".local/bin", ".local/share/claude/versions" },
	  .out = { ".local/share/claude: only its versions are needed",
		   ".claude.json, .claude: the sign-in is staged by home-stage, never granted" },
	  .why = "Claude Code's native installer, ~/.local/bin/claude links to a binary in ~/.local/share/claude/versions" },
	{ .name = "pipx",
	  .bin = { ".local/bin" },
	  .need = ".local/share/pipx/venvs",
	  .rx = { ".local/bin", ".local/share/pipx/venvs", ".local/share/pipx/shared", ".local/share/pipx/py" },
	  .out = { ".pypirc, .config/pip: upload and index credentials" },
	  .why = "each application is a venv in ~/.local/share/pipx/venvs, linked from ~/.local/bin" },
	{ .name = "uv",
	  .bin = { ".local/bin" },
	  .need = ".local/share/uv",
	  .rx = { ".local/bin", ".local/share/uv/tools", ".local/share/uv/python" },
	  .out = { ".local/share/uv/credentials: uv auth's stored credentials",
		   ".config/uv: uv.toml can name index credentials" },
	  .why = "each tool is a venv in ~/.local/share/uv/tools, its Python in ~/.local/share/uv/python" },
	{ .name = "pip-user",
	  .bin = { ".local/bin" },
	  .need = ".local/lib",
	  .rx = { ".local/bin", ".local/lib/python*" },
	  .out = { ".pypirc, .config/pip: upload and index credentials" },
	  .why = "scripts in ~/.local/bin, packages in ~/.local/lib/pythonX.Y" },
	{ .name = "npm-prefix",
	  .bin = { "%/bin" },
	  .need = "%/lib/node_modules",
	  .rx = { "%/bin", "%/lib/node_modules" },
	  .out = { NPMRC_OUT, ".npmrc: the user's npm config holds registry tokens" },
	  .why = "npm config set prefix ~/DIR: DIR/bin links into DIR/lib/node_modules" },
	{ .name = "nvm",
	  .bin = { ".nvm/versions/node/%/bin" },
	  .rx = { ".nvm/versions/node/%" },
	  .out = { ".nvm/versions/node/" NPMRC_OUT, ".nvm/.cache: downloaded archives, not needed",
		   ".npmrc: the user's npm config holds registry tokens" },
	  .why = "node and its global packages live in the version's prefix, ~/.nvm/versions/node/V" },
	{ .name = "fnm",
	  .bin = { ".local/share/fnm/node-versions/%/installation/bin", ".fnm/node-versions/%/installation/bin" },
	  .rx = { ".local/share/fnm/node-versions/%/installation", ".fnm/node-versions/%/installation" },
	  .out = { "the version's etc: npm's global npmrc can hold registry tokens",
		   ".local/state/fnm_multishells: per-shell links, resolved instead" },
	  .why = "a shell's PATH links (fnm_multishells) resolve to a version's installation" },
	{ .name = "volta",
	  .bin = { ".volta/bin" },
	  .rx = { ".volta/bin", ".volta/tools/image", ".volta/tools/shared" },
	  .ro = { ".volta/tools/user" },
	  .env = { "VOLTA_HOME=~/.volta" },
	  .out = { ".volta/tools/inventory: downloaded archives, not needed",
		   ".npmrc: the user's npm config holds registry tokens" },
	  .why = "its shims read the pinned versions in tools/user and run tools/image" },
	{ .name = "pyenv",
	  .bin = { ".pyenv/shims", ".pyenv/bin" },
	  .rx = { ".pyenv/shims", ".pyenv/bin", ".pyenv/libexec", ".pyenv/versions", ".pyenv/plugins", ".pyenv/pyenv.d" },
	  .ro = { ".pyenv/version" },
	  .out = { ".pypirc, .config/pip: upload and index credentials" },
	  .why = "a shim runs ~/.pyenv/libexec/pyenv, which picks a Python in ~/.pyenv/versions" },
	{ .name = "rbenv",
	  .bin = { ".rbenv/shims", ".rbenv/bin" },
	  .rx = { ".rbenv/shims", ".rbenv/bin", ".rbenv/libexec", ".rbenv/versions", ".rbenv/plugins", ".rbenv/rbenv.d" },
	  .ro = { ".rbenv/version" },
	  .out = { ".gem/credentials: the rubygems API key", ".bundle/config: may hold source credentials" },
	  .why = "a shim runs ~/.rbenv/libexec/rbenv, which picks a Ruby in ~/.rbenv/versions" },
	{ .name = "asdf",
	  .bin = { ".asdf/shims", ".asdf/bin" },
	  .rx = { ".asdf/shims", ".asdf/bin", ".asdf/lib", ".asdf/libexec", ".asdf/plugins", ".asdf/installs/*/*" },
	  .ro = { ".tool-versions", ".asdfrc" },
	  .env = { "ASDF_DATA_DIR=~/.asdf" },
	  .out = { ".asdf/downloads: archives, not needed",
		   "an install's etc/npmrc: npm's global config can hold registry tokens" },
	  .why = "a shim runs asdf exec, which picks a version in ~/.asdf/installs by ~/.tool-versions" },
	{ .name = "mise",
	  .bin = { ".local/share/mise/shims" },
	  .rx = { ".local/share/mise/shims", ".local/share/mise/installs/*/*" },
	  .env = { "MISE_DATA_DIR=~/.local/share/mise" },
	  .out = { ".config/mise: its [env] section may hold secrets (versions then come from the workspace)",
		   "an install's etc/npmrc: npm's global config can hold registry tokens" },
	  .why = "a shim runs mise, which picks a version in ~/.local/share/mise/installs" },
	{ .name = "rustup",
	  .bin = { ".cargo/bin" },
	  .rx = { ".cargo/bin", ".rustup/toolchains" },
	  .ro = { ".rustup/settings.toml" },
	  .env = { "RUSTUP_HOME=~/.rustup" },
	  .out = { ".cargo/credentials, .cargo/credentials.toml: registry tokens",
		   ".cargo/registry, .cargo/git: the crate cache (the agent's own $HOME/.cargo is its cache)",
		   ".cargo/config.toml: may name credential providers" },
	  .why = "~/.cargo/bin holds the proxies and installed crates, ~/.rustup/toolchains the compilers" },
	{ .name = "go",
	  .bin = { "go/bin" },
	  .rx = { "go/bin" },
	  .out = { "go/pkg: the module cache (the agent's own $HOME/go is its cache)" },
	  .why = "binaries in ~/go/bin" },
	{ .name = "go-sdk",
	  .bin = { "sdk/%/bin" },
	  .need = "sdk/%/VERSION",
	  .rx = { "sdk/%" },
	  .why = "a Go toolchain in ~/sdk/goX.Y" },
	{ .name = "bun",
	  .bin = { ".bun/bin" },
	  .rx = { ".bun/bin", ".bun/install/global" },
	  .out = { ".bunfig.toml: may hold registry tokens", ".bun/install/cache: the package cache, not needed" },
	  .why = "the bun binary and global packages' links in ~/.bun/bin, the packages in ~/.bun/install/global" },
	{ .name = "deno",
	  .bin = { ".deno/bin" },
	  .rx = { ".deno/bin" },
	  .out = { ".cache/deno: its cache (the agent's own $XDG_CACHE_HOME is its cache)" },
	  .why = "the deno binary and installed scripts in ~/.deno/bin" },
	{ .name = NULL }
};

const char *const tc_secrets[] = {
	".npmrc", "etc/npmrc", ".yarnrc", ".yarnrc.yml", ".bunfig.toml", ".pypirc", "pip.conf",
	".netrc", ".git-credentials", ".ssh", ".aws", ".config/gh", ".docker/config.json",
	"credentials", "credentials.toml", ".gem/credentials", ".gnupg", NULL
};

const char *const tc_home_secrets[] = {
	".npmrc", ".yarnrc", ".yarnrc.yml", ".bunfig.toml", ".pypirc", ".pip", ".config/pip",
	".netrc", ".git-credentials", ".ssh", ".aws", ".gnupg", ".config/gh", ".docker",
	".cargo/credentials", ".cargo/credentials.toml", ".cargo/config.toml", ".cargo/config",
	".gem/credentials", ".bundle/config", ".config/uv", ".local/share/uv/credentials",
	".config/mise", ".local/share/keyrings", ".kube", ".config/gcloud", ".azure",
	".claude.json", ".claude", ".codex", ".gemini", NULL
};

/* Match the relative directory rel against pattern pat (components; one may
 * be '%'). Returns 1 and fills cap on a match. */
static int
match(const char *pat, const char *rel, char *cap, size_t capn)
{
	const char *p = pat, *r = rel;

	*cap = '\0';
	for (;;) {
		size_t pl = strcspn(p, "/"), rl = strcspn(r, "/");
		if (pl == 1 && *p == '%') {
			if (rl == 0 || (rl == 1 && *r == '.') || (rl == 2 && r[0] == '.' && r[1] == '.') ||
			    rl >= capn)
				return 0;
			memcpy(cap, r, rl);
			cap[rl] = '\0';
		} else if (pl != rl || strncmp(p, r, pl) != 0) {
			return 0;
		}
		p += pl;
		r += rl;
		if (*p == '\0' || *r == '\0')
			return *p == '\0' && *r == '\0';
		p++;
		r++;
	}
}

/* rel with '%' replaced by cap, under home, into out. */
static int
subst(const char *home, const char *rel, const char *cap, char *out, size_t n)
{
	size_t o = strlen(home) + 1;

	if (o >= n)
		return -1;
	memcpy(out, home, o - 1);
	out[o - 1] = '/';
	for (const char *s = rel; *s; s++) {
		size_t l = *s == '%' ? strlen(cap) : 1;
		if (o + l >= n)
			return -1;
		if (*s == '%')
			memcpy(out + o, cap, l);
		else
			out[o] = *s;
		o += l;
	}
	out[o] = '\0';
	return 0;
}

int
tc_match(const char *home, const char *dir, int *from, char *cap, size_t capn)
{
	size_t hl = strlen(home);
	const char *rel;

	if (!home[0] || strncmp(dir, home, hl) != 0 || dir[hl] != '/')
		return -1;
	rel = dir + hl + 1;
	for (int i = *from; toolchains[i].name; i++)
		for (int b = 0; b < TC_MAX_BIN && toolchains[i].bin[b]; b++) {
			char p[PATH_MAX];
			struct stat st;
			if (!match(toolchains[i].bin[b], rel, cap, capn))
				continue;
			if (toolchains[i].need && (subst(home, toolchains[i].need, cap, p, sizeof p) < 0 ||
			    stat(p, &st) < 0))
				continue;
			*from = i + 1;
			return i;
		}
	return -1;
}

/* dir holds rel (one of tc_secrets): lstat, so a dangling link counts too.
 * dfd is dir opened O_PATH (-1: none): the probe then looks up rel alone,
 * not dir's every component again (narrow asks 17 names of each grant). */
static int
holds(int dfd, const char *dir, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	if (strlen(dir) + 1 + strlen(rel) >= sizeof p)
		return 0;	/* as the path would not fit */
	if (dfd >= 0)
		return fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
	return path_cat(p, sizeof p, dir, rel) == 0 && lstat(p, &st) == 0;
}

/* 1 when p is or lies within one of the home's secrets; 2 when it holds one */
static int
home_secret(const char *home, const char *p)
{
	size_t hl = strlen(home);
	char s[PATH_MAX];
	int r = 0;

	if (!home[0])
		return 0;
	/* p beneath the home (every grant narrow meets): compare what follows
	 * "HOME/" with each secret, as path_within would the joined paths */
	if (strncmp(p, home, hl) == 0 && p[hl] == '/' && p[hl + 1] && p[hl + 1] != '/') {
		const char *rest = p + hl + 1;
		for (int i = 0; tc_home_secrets[i]; i++) {
			const char *sec = tc_home_secrets[i];
			size_t k = 0;
			if (hl + 1 + strlen(sec) >= sizeof s)
				continue;	/* as the joined path would not fit */
			while (rest[k] && rest[k] == sec[k])
				k++;
			if (sec[k] == '\0' && (rest[k] == '\0' || rest[k] == '/'))
				return 1;	/* path_within(rest, sec) */
			if (rest[k] == '\0' && sec[k] == '/')
				r = 2;		/* path_within(sec, rest) */
		}
		return r;
	}
	for (int i = 0; tc_home_secrets[i]; i++) {
		if (path_cat(s, sizeof s, home, tc_home_secrets[i]) < 0)
			continue;
		if (path_within(p, s))
			return 1;
		if (path_within(s, p))
			r = 2;
	}
	return r;
}

int
tc_is_secret(const char *home, const char *p)
{
	return home_secret(home, p) != 0;
}

/* Grant dir, or when it holds a secret (one of tc_secrets, or of the
 * suffixes extra[0..nx) carried down from its parent), each of its entries
 * but the secret, recursively; depth bounds the narrowing. */
static int
narrow(const char *home, const char *dir, int ro, tc_fn fn, void *arg, int depth,
    const char *const *extra, size_t nx)
{
	const char *found[48];
	size_t nf = 0;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int r = 0, hs, dfd;

	if ((hs = home_secret(home, dir)) == 1)
		return 0;
	/* (the grant itself tc_grant has just resolved: asked once) */
	if (hs == 0 && nx == 0 && (depth == 0 ? memo_lstat(dir, &st) : lstat(dir, &st)) == 0 &&
	    !S_ISDIR(st.st_mode))
		return fn(arg, dir, ro);	/* a file holds nothing */
	/* followed as lstat of dir/NAME follows dir; where it does not open
	 * (not a directory, gone, no descriptor left), holds asks by path */
	dfd = openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);	/* musl's open adds an fcntl */
	for (int i = 0; tc_secrets[i] && nf < 48; i++)
		if (holds(dfd, dir, tc_secrets[i]))
			found[nf++] = tc_secrets[i];
	for (size_t i = 0; i < nx && nf < 48; i++)
		if (holds(dfd, dir, extra[i]))
			found[nf++] = extra[i];
	if (dfd >= 0)
		close(dfd);
	if (nf == 0 && hs == 0)
		return fn(arg, dir, ro);
	if (depth > 6 || (dp = opendir(dir)) == NULL)
		return 0;	/* fail closed: grant nothing of it */
	while ((d = readdir(dp)) != NULL && r == 0) {
		const char *sub[48];
		char c[PATH_MAX];
		size_t l = strlen(d->d_name), ns = 0;
		int skip = 0;

		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		for (size_t i = 0; i < nf; i++) {
			if (strncmp(found[i], d->d_name, l) != 0)
				continue;
			if (found[i][l] == '\0')
				skip = 1;	/* the secret itself */
			else if (found[i][l] == '/')
				sub[ns++] = found[i] + l + 1;	/* beneath this entry */
		}
		if (skip || path_cat(c, sizeof c, dir, d->d_name) < 0)
			continue;
		r = narrow(home, c, ro, fn, arg, depth + 1, sub, ns);
	}
	closedir(dp);
	return r;
}

int
tc_grant(const char *home, const char *dir, int ro, tc_fn fn, void *arg)
{
	char real[PATH_MAX];

	/* the grant is what the kernel will resolve: check the real path
	 * (realpath(3), each component asked of the kernel once a plan) */
	if (link_realpath(dir, real) < 0)
		return 0;
	if (home[0] && path_within(home, real))
		return 0;	/* the home itself, or a parent of it: never */
	return narrow(home, real, ro, fn, arg, 0, NULL, 0);
}

/* Escape glob metacharacters of s into out. */
static int
gquote(const char *s, char *out, size_t n)
{
	size_t o = 0;

	for (; *s; s++) {
		if (o + 3 >= n)
			return -1;
		if (strchr("*?[]\\", *s))
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o] = '\0';
	return 0;
}

static int
one(const char *home, const char *rel, const char *cap, int ro, tc_fn fn, void *arg)
{
	char qh[PATH_MAX * 2], qc[NAME_MAX * 2 + 2], pat[PATH_MAX * 3];
	glob_t g;
	int r = 0;

	if (strchr(rel, '*') == NULL) {
		char p[PATH_MAX];
		if (subst(home, rel, cap, p, sizeof p) < 0)
			return 0;
		return tc_grant(home, p, ro, fn, arg);
	}
	if (gquote(home, qh, sizeof qh) < 0 || gquote(cap, qc, sizeof qc) < 0 ||
	    subst(qh, rel, qc, pat, sizeof pat) < 0)
		return 0;
	if (glob(pat, GLOB_NOSORT, NULL, &g) != 0)
		return 0;	/* nothing matches: nothing granted */
	for (size_t i = 0; i < g.gl_pathc && r == 0; i++)
		r = tc_grant(home, g.gl_pathv[i], ro, fn, arg);
	globfree(&g);
	return r;
}

int
tc_grants(const struct toolchain *e, const char *home, const char *cap, tc_fn fn, void *arg)
{
	int r = 0;

	for (int i = 0; i < TC_MAX_RX && e->rx[i] && r == 0; i++)
		r = one(home, e->rx[i], cap, 0, fn, arg);
	for (int i = 0; i < TC_MAX_RO && e->ro[i] && r == 0; i++)
		r = one(home, e->ro[i], cap, 1, fn, arg);
	return r;
}

/* p under home matches the pattern rel ('%' and '*' one component each),
 * or lies beneath what it names */
static int
covers(const char *home, const char *rel, const char *p)
{
	size_t hl = strlen(home);
	const char *r = p + hl + 1, *q = rel;

	if (strncmp(p, home, hl) != 0 || p[hl] != '/')
		return 0;
	for (;;) {
		size_t ql = strcspn(q, "/"), rl = strcspn(r, "/");
		char comp[NAME_MAX + 1], pc[NAME_MAX + 1];
		if (ql > NAME_MAX || rl > NAME_MAX || rl == 0)
			return 0;
		memcpy(comp, q, ql), comp[ql] = '\0';
		memcpy(pc, r, rl), pc[rl] = '\0';
		if (strcmp(comp, "%") == 0)
			comp[0] = '*';
		if (!(strchr(comp, '*') ? fnmatch(comp, pc, FNM_PERIOD) == 0 : strcmp(comp, pc) == 0))
			return 0;
		q += ql;
		r += rl;
		if (*q == '\0')
			return *r == '\0' || *r == '/';
		if (*r == '\0')
			return 0;
		q++;
		r++;
	}
}

const struct toolchain *
tc_which(const char *home, const char *p, const char **pattern)
{
	if (!home[0] || tc_is_secret(home, p))
		return NULL;
	for (int i = 0; toolchains[i].name; i++) {
		const struct toolchain *e = &toolchains[i];
		for (int k = 0; k < TC_MAX_RX + TC_MAX_RO; k++) {
			const char *rel = k < TC_MAX_RX ? e->rx[k] : e->ro[k - TC_MAX_RX];
			if (rel && covers(home, rel, p)) {
				if (pattern)
					*pattern = rel;
				return e;
			}
		}
	}
	return NULL;
}
