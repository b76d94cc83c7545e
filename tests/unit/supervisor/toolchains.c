/* The toolchain table against a home full of credentials: no entry ever
 * grants a file or directory that holds one; the lookups (tc_match,
 * tc_which) and the pure parsers of installtree (tree_root, shebang_parse). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "installtree.h"
#include "resolve.h"
#include "tap.h"
#include "toolchains.h"

static char home[256];
static char secrets[512][PATH_MAX];
static int nsecrets;

static void
mkdirs(const char *p)
{
	char b[PATH_MAX], *s;

	snprintf(b, sizeof b, "%s", p);
	for (s = b + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(b, 0755);
		*s = '/';
	}
	mkdir(b, 0755);
}

static void
plant(const char *dir, const char *rel)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	if (nsecrets >= 512)
		return;
	if (strrchr(rel, '.') == NULL && strchr(rel, '/') == NULL && strcmp(rel, "credentials") != 0) {
		mkdirs(p);	/* .ssh, .aws, .gnupg: directories */
		snprintf(secrets[nsecrets++], PATH_MAX, "%s", p);
		snprintf(p + strlen(p), sizeof p - strlen(p), "/id");
	} else {
		char d[PATH_MAX];
		snprintf(d, sizeof d, "%s", p);
		*strrchr(d, '/') = '\0';
		mkdirs(d);
	}
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
		if (write(fd, "token\n", 6) != 6)
			perror("write");
		close(fd);
	}
	snprintf(secrets[nsecrets++], PATH_MAX, "%s", p);
}

/* the relative pattern with '%' as v1 and '*' as x */
static void
concrete(const char *rel, char *out, size_t n)
{
	size_t o = snprintf(out, n, "%s/", home);

	for (; *rel && o + 3 < n; rel++) {
		if (*rel == '%')
			o += snprintf(out + o, n - o, "v1");
		else if (*rel == '*')
			out[o++] = 'x';
		else
			out[o++] = *rel;
	}
	out[o] = '\0';
}

static int ngranted, bad;
static char granted[1024][PATH_MAX];

static int
collect(void *arg, const char *path, int ro)
{
	(void)arg;
	(void)ro;
	for (int i = 0; i < nsecrets; i++)
		if (path_within(path, secrets[i]) || path_within(secrets[i], path)) {
			printf("# %s grants %s, which is or holds %s\n", (const char *)arg, path, secrets[i]);
			bad++;
		}
	if (ngranted < 1024)
		snprintf(granted[ngranted++], PATH_MAX, "%s", path);
	return 0;
}

int
main(void)
{
	char t[] = "/tmp/corral-tc.XXXXXX", p[PATH_MAX], cap[256], prog[PATH_MAX];
	const char *pat;
	int i, from;

	if (mkdtemp(t) == NULL)
		return perror("mkdtemp"), 2;
	snprintf(home, sizeof home, "%s/home", t);
	mkdirs(home);

	/* every entry's layout, with every kind of secret in each directory */
	for (i = 0; toolchains[i].name; i++) {
		const struct toolchain *e = &toolchains[i];
		for (int k = 0; k < TC_MAX_BIN && e->bin[k]; k++)
			concrete(e->bin[k], p, sizeof p), mkdirs(p);
		if (e->need)
			concrete(e->need, p, sizeof p), mkdirs(p);
		for (int k = 0; k < TC_MAX_RX && e->rx[k]; k++) {
			concrete(e->rx[k], p, sizeof p);
			mkdirs(p);
			for (int s = 0; tc_secrets[s]; s++)
				plant(p, tc_secrets[s]);
			/* and what the tool needs beside them */
			char f[PATH_MAX + 8];
			snprintf(f, sizeof f, "%s/bin", p);
			mkdir(f, 0755);
			snprintf(f, sizeof f, "%s/tool", p);
			close(open(f, O_WRONLY | O_CREAT, 0755));
		}
		for (int k = 0; k < TC_MAX_RO && e->ro[k]; k++) {
			concrete(e->ro[k], p, sizeof p);
			char d[PATH_MAX];
			snprintf(d, sizeof d, "%s", p);
			*strrchr(d, '/') = '\0';
			mkdirs(d);
			close(open(p, O_WRONLY | O_CREAT, 0644));
		}
	}
	for (int s = 0; tc_home_secrets[s]; s++)
		plant(home, tc_home_secrets[s]);
	/* what the issue names, explicitly */
	plant(home, ".config/gh/hosts.yml");
	plant(home, ".docker/config.json");
	plant(home, ".cargo/credentials.toml");
	plant(home, ".cargo/credentials");
	ok(nsecrets > 100, "a home full of credentials (%d planted)", nsecrets);

	for (i = 0; toolchains[i].name; i++) {
		const struct toolchain *e = &toolchains[i];
		int before = ngranted;
		ok(e->why && *e->why, "%s: has a reason", e->name);
		for (int k = 0; k < TC_MAX_BIN && e->bin[k]; k++) {
			int j;
			concrete(e->bin[k], p, sizeof p);
			from = 0;
			while ((j = tc_match(home, p, &from, cap, sizeof cap)) >= 0 && j != i)
				;
			is_int(j, i, "%s: its PATH directory %s matches it", e->name, e->bin[k]);
			tc_grants(e, home, "v1", collect, (void *)e->name);
		}
		ok(ngranted > before, "%s: grants something in its layout (%d)", e->name, ngranted - before);
	}
	is_int(bad, 0, "no entry grants a file or directory holding a credential");
	bad = 0;
	for (i = 0; i < ngranted; i++)
		if (path_within(home, granted[i]))
			bad++;
	is_int(bad, 0, "no entry grants the home or a parent of it");

	/* narrowing: an nvm version holding etc/npmrc is granted entry by entry */
	concrete(".nvm/versions/node/v1", p, sizeof p);
	int sawbin = 0, sawetc = 0;
	for (i = 0; i < ngranted; i++) {
		char q[PATH_MAX + 8];
		snprintf(q, sizeof q, "%s/bin", p);
		sawbin |= strcmp(granted[i], q) == 0;
		snprintf(q, sizeof q, "%s/etc", p);
		sawetc |= strcmp(granted[i], q) == 0;
	}
	ok(sawbin && !sawetc, "nvm: the version's bin is granted, its etc (npmrc) is not");

	/* lookups */
	from = 0;
	snprintf(p, sizeof p, "%s/bin", home);
	is_int(tc_match(home, p, &from, cap, sizeof cap), -1, "~/bin matches no entry");
	from = 0;
	snprintf(p, sizeof p, "%s/.nvm/versions/node/../bin", home);
	ok(tc_match(home, p, &from, cap, sizeof cap) < 0 || strcmp(cap, "..") != 0, "'%%' never matches ..");
	from = 0;
	snprintf(p, sizeof p, "/elsewhere/.cargo/bin");
	is_int(tc_match(home, p, &from, cap, sizeof cap), -1, "outside the home: no entry");
	snprintf(p, sizeof p, "%s/.rustup/toolchains/stable/bin/rustc", home);
	ok(tc_which(home, p, &pat) && strcmp(tc_which(home, p, &pat)->name, "rustup") == 0 &&
	    strcmp(pat, ".rustup/toolchains") == 0, "why: rustc under ~/.rustup/toolchains comes from rustup");
	snprintf(p, sizeof p, "%s/.nvm/versions/node/v20.1.0/lib/node_modules/x", home);
	ok(tc_which(home, p, &pat) && strcmp(tc_which(home, p, NULL)->name, "nvm") == 0, "why: a global package of nvm's node");
	snprintf(p, sizeof p, "%s/.cargo/credentials.toml", home);
	ok(tc_which(home, p, &pat) == NULL, "why: ~/.cargo/credentials.toml is granted by no entry");
	snprintf(p, sizeof p, "%s/.ssh/id_ed25519", home);
	ok(tc_which(home, p, &pat) == NULL, "why: ~/.ssh is granted by no entry");
	snprintf(p, sizeof p, "%s/.config", home);
	ok(tc_is_secret(home, p), "~/.config holds a secret (gh)");

	/* tree_root */
	const char *tr[][2] = {
		{ "/opt/x/lib/node_modules/hello/bin.js", "/opt/x/lib/node_modules/hello" },
		{ "/opt/x/lib/node_modules/@openai/codex/bin/codex.js", "/opt/x/lib/node_modules/@openai/codex" },
		{ "/p/lib/node_modules/a/node_modules/b/x.js", "/p/lib/node_modules/a" },
		{ "/w/node_modules/.bin/tsc", "" },
		{ "/h/.nvm/versions/node/v20.1.0/bin/node", "/h/.nvm/versions/node/v20.1.0" },
		{ "/h/.local/share/claude/versions/2.1.197", "/h/.local/share/claude/versions/2.1.197" },
		{ "/h/.pyenv/versions/3.12.1/bin/python3.12", "/h/.pyenv/versions/3.12.1" },
		{ "/h/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo", "/h/.rustup/toolchains/stable-x86_64-unknown-linux-gnu" },
		{ "/h/.asdf/installs/nodejs/20.1.0/bin/node", "/h/.asdf/installs/nodejs/20.1.0" },
		{ "/h/.local/share/uv/tools/ruff/bin/ruff", "/h/.local/share/uv/tools/ruff" },
		{ "/h/.local/share/pipx/venvs/black/bin/black", "/h/.local/share/pipx/venvs/black" },
		{ "/h/.volta/tools/image/node/20.1.0/bin/node", "/h/.volta/tools/image/node/20.1.0" },
		{ "/h/.local/share/fnm/node-versions/v20.1.0/installation/bin/node", "/h/.local/share/fnm/node-versions/v20.1.0/installation" },
		{ "/usr/bin/env", "" },
		{ "/h/versions", "" },
	};
	for (size_t k = 0; k < sizeof tr / sizeof tr[0]; k++) {
		size_t l = tree_root(tr[k][0]);
		char got[PATH_MAX];
		snprintf(got, sizeof got, "%.*s", (int)l, tr[k][0]);
		is_str(got, tr[k][1], "tree_root %s", tr[k][0]);
	}

	/* shebang_parse */
	const char *sb[][2] = {
		{ "#!/usr/bin/env node\nconsole.log(1)", "node" },
		{ "#! /usr/bin/env -S node --no-warnings\n", "node" },
		{ "#!/usr/bin/env NODE_OPTIONS=x node\n", "node" },
		{ "#!/home/u/.local/share/pipx/venvs/black/bin/python\n", "/home/u/.local/share/pipx/venvs/black/bin/python" },
		{ "#!/bin/sh -e\n", "/bin/sh" },
		{ "#!node\n", "" },
		{ "#!/usr/bin/env\n", "" },
		{ "\x7f" "ELF", "" },
		{ "#!", "" },
	};
	for (size_t k = 0; k < sizeof sb / sizeof sb[0]; k++) {
		int r = shebang_parse(sb[k][0], strlen(sb[k][0]), prog, sizeof prog);
		is_str(r == 0 ? prog : "", sb[k][1], "shebang_parse %.*s", (int)strcspn(sb[k][0], "\n"), sb[k][0]);
	}
	char longl[600];
	memset(longl, 'a', sizeof longl);
	memcpy(longl, "#!/usr/bin/env ", 15);
	is_int(shebang_parse(longl, sizeof longl, prog, sizeof prog), -1, "a #! line past what was read: refused");

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	if (system(cmd) != 0)
		perror("rm");
	return done_testing();
}
