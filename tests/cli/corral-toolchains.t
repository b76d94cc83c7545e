#!/bin/sh
# Toolchain managers in the home: a PATH directory that matches an entry of
# the table is granted exactly what the entry says; others are left out and
# named, with the policy line that would grant them; no credential of the
# home is ever reachable, wherever it lies.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
tool() {	# tool PATH [LINE]: an executable shell script
	mkdir -p "$(dirname "$1")"
	printf '#!/bin/sh\n%s\n' "${2:-echo $(basename "$1") ok}" > "$1"
	chmod 0755 "$1"
}
secret() {	# secret PATH: a credential file
	mkdir -p "$(dirname "$1")"
	echo "credential-$(basename "$1")" > "$1"
}
layout() {	# layout HOME
	h=$1
	# nvm, with npm's global config (a token) inside the version's prefix
	n=$h/.nvm/versions/node/v20.1.0
	tool "$n/bin/node" 'echo node from nvm'
	tool "$n/lib/node_modules/pkg/cli.sh" 'echo pkg ok'
	ln -s ../lib/node_modules/pkg/cli.sh "$n/bin/pkg"
	secret "$n/etc/npmrc"
	mkdir -p "$h/.nvm/versions/node/v18.0.0/bin"; secret "$h/.nvm/versions/node/v18.0.0/other"
	# an npm user prefix
	tool "$h/.npm-global/lib/node_modules/g/cli.sh" 'echo g ok'
	mkdir -p "$h/.npm-global/bin"; ln -s ../lib/node_modules/g/cli.sh "$h/.npm-global/bin/g"
	secret "$h/.npm-global/etc/npmrc"
	# rustup and cargo
	tool "$h/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc" 'echo rustc ok'
	tool "$h/.cargo/bin/cargo" 'echo "cargo ok RUSTUP_HOME=$RUSTUP_HOME"; cat "$RUSTUP_HOME/settings.toml"'
	echo 'default_toolchain = "stable"' > "$h/.rustup/settings.toml"
	secret "$h/.cargo/credentials.toml"; secret "$h/.cargo/credentials"
	mkdir -p "$h/.cargo/registry/index"; secret "$h/.cargo/registry/index/x"
	# pyenv: a shim runs libexec, which picks a version
	tool "$h/.pyenv/versions/3.12.1/bin/python" 'echo python 3.12.1'
	tool "$h/.pyenv/libexec/pyenv" 'exec "$PYENV_ROOT/versions/$(cat "$PYENV_ROOT/version")/bin/$2"'
	tool "$h/.pyenv/shims/python" "PYENV_ROOT=$h/.pyenv exec $h/.pyenv/libexec/pyenv exec python"
	echo 3.12.1 > "$h/.pyenv/version"
	# go, bun, Claude Code's native installer, pipx
	tool "$h/go/bin/gopls" 'echo gopls ok'
	mkdir -p "$h/go/pkg/mod"; secret "$h/go/pkg/mod/cache"
	tool "$h/.bun/bin/bun" 'echo bun ok'
	tool "$h/.local/share/claude/versions/9.9.9" 'echo claude native ok'
	mkdir -p "$h/.local/bin"; ln -s ../share/claude/versions/9.9.9 "$h/.local/bin/claude"
	mkdir -p "$h/.local/share/keyrings"; secret "$h/.local/share/keyrings/login.keyring"
	secret "$h/.local/share/claude/other"
	# a PATH directory no entry knows
	tool "$h/bin/mine" 'echo mine'
	# the credentials the issue names, and a few more
	for f in .npmrc .pypirc .netrc .git-credentials .config/gh/hosts.yml .docker/config.json \
	    .aws/credentials .ssh/id_ed25519 .gnupg/secring .bunfig.toml .config/pip/pip.conf; do
		secret "$h/$f"
	done
}
SECRETS=".npmrc .pypirc .netrc .git-credentials .config/gh/hosts.yml .docker/config.json .aws/credentials
 .ssh/id_ed25519 .cargo/credentials.toml .cargo/credentials .cargo/registry/index/x .nvm/versions/node/v20.1.0/etc/npmrc
 .npm-global/etc/npmrc .bunfig.toml .config/pip/pip.conf .local/share/keyrings/login.keyring go/pkg/mod/cache
 .local/share/claude/other .nvm/versions/node/v18.0.0/other"

for who in root nobody; do
	B=$TMP/$who H=$B/home W=$B/ws
	mkdir -p "$H" "$W" "$B/state"
	layout "$H"
	if [ $who = root ]; then pre=""; else pre=as_nobody; chown -R nobody:nogroup "$B"; fi
	cd "$W"
	PTH=$H/.nvm/versions/node/v20.1.0/bin:$H/.npm-global/bin:$H/.cargo/bin:$H/.pyenv/shims:$H/go/bin:$H/.bun/bin:$H/.local/bin:$H/bin:/usr/bin:/bin
	E="env -i HOME=$H PATH=$PTH XDG_STATE_HOME=$B/state"

	run $pre $E sh -c "cd $H && cat $(echo $SECRETS)"
	is "$rc" 0 "$who: every credential is readable bare (control)"

	run $pre $E "$C" run -- sh -c 'node; pkg; g; cargo; rustc 2>&1 || ~/.rustup/x; python; gopls; bun; claude'
	run $pre $E "$C" run -- sh -c 'node && pkg && g && cargo && python && gopls && bun && claude'
	is "$rc" 0 "$who: a tool of every manager runs under corral run"
	like "$out" "node from nvm" "$who: nvm's node"
	like "$out" "pkg ok" "$who: a global package of nvm's npm"
	like "$out" "g ok" "$who: a package of an npm user prefix"
	like "$out" "cargo ok RUSTUP_HOME=$H/.rustup" "$who: cargo, with RUSTUP_HOME pointing at the real ~/.rustup"
	like "$out" 'default_toolchain = "stable"' "$who: rustup's settings are readable"
	like "$out" "python 3.12.1" "$who: a pyenv shim through libexec and versions"
	like "$out" "gopls ok" "$who: go install's binary"
	like "$out" "bun ok" "$who: bun"
	like "$out" "claude native ok" "$who: Claude Code's native installer (~/.local/bin/claude -> versions/V)"
	run $pre $E "$C" run -- sh -c "$H/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc"
	is "$rc:$out" "0:rustc ok" "$who: a rustup toolchain"
	run $pre $E "$C" run -- mine
	is "$rc" 127 "$who: ~/bin, which no entry matches, is left out"

	for s in $SECRETS; do
		run $pre $E "$C" run -- cat "$H/$s"
		like "$rc:$err" "^1:.*Permission denied" "$who: ~/$s stays out"
	done

	run $pre $E "$C" explain -- true
	like "$out" "^# granted: $H/.nvm/versions/node/v20.1.0/bin \\(toolchain nvm: " "$who: explain: nvm's bin, and why"
	like "$out" " -x $H/.nvm/versions/node/v20.1.0/lib " "$who: explain: nvm's lib"
	unlike "$out" " -x $H/.nvm/versions/node/v20.1.0( |/etc)" "$who: explain: not the prefix's etc (npmrc)"
	unlike "$out" " -x $H/.nvm/versions/node/v18" "$who: explain: not a version off PATH"
	like "$out" " -x $H/.npm-global/bin -x $H/.npm-global/lib/node_modules " "$who: explain: the npm prefix's bin and lib/node_modules"
	like "$out" " -x $H/.cargo/bin -x $H/.rustup/toolchains " "$who: explain: ~/.cargo/bin and ~/.rustup/toolchains"
	like "$out" " -r $H/.rustup/settings.toml " "$who: explain: rustup's settings read-only"
	like "$out" " -s RUSTUP_HOME=$H/.rustup " "$who: explain: RUSTUP_HOME set"
	like "$out" " -x $H/.local/share/claude/versions " "$who: explain: the native installer's versions"
	like "$out" "^# left out: PATH directory $H/bin is in your home and no toolchain entry matches it: not granted; to grant it: \"exec\": \\[\"~/bin\"\\]$" "$who: explain: ~/bin left out, with the policy line"
	unlike "$out" " -[rxwW] $H( |/\\.ssh|/\\.config|/\\.local/share( |/keyrings)|/\\.cargo( |/cred|/reg))" "$who: explain: nothing that holds a credential"

	run $pre $E "$C" doctor
	like "$out" "^install trees, toolchains and system trees:$" "$who: doctor: a section for them"
	like "$out" "^  granted: $H/.cargo/bin \\(toolchain rustup: " "$who: doctor: what is granted, and why"
	like "$out" "^  left out: PATH directory $H/bin .*\"exec\": \\[\"~/bin\"\\]$" "$who: doctor: what is left out, with the policy line"
	run $pre $E "$C" doctor --json
	printf '%s' "$out" > "$B/d.json"
	run python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["policy"]["notes"]; print(sum(1 for x in n if x.startswith("left out: PATH directory")), sum(1 for x in n if "toolchain nvm" in x) > 0)' "$B/d.json"
	is "$out" "1 True" "$who: doctor --json: the same notes"

	# corral why names the entry behind a grant, and grants no credential
	run $pre $E "$C" why "$H/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc"
	like "$rc:$out" "^0:.*toolchain rustup \\(~/.cargo/bin holds the proxies" "$who: why: rustc comes from the rustup entry, with its reason"
	run $pre $E "$C" why "$H/.cargo/credentials.toml"
	is "$rc" 1 "$who: why: ~/.cargo/credentials.toml is denied"
	unlike "$out" "toolchain" "$who: why: no entry behind it"

	# the policy line it names grants it
	printf '{"exec": ["/usr", "/bin", "/lib*", "/sbin", "/etc", "~/bin"]}' > "$B/p.json"
	[ $who = nobody ] && chown nobody:nogroup "$B/p.json"	# a policy must be the caller's own
	run $pre $E "$C" run -p "$B/p.json" -- mine
	is "$rc:$out" "0:mine" "$who: the policy line named grants it"
done
done_testing
