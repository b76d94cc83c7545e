#!/bin/sh
# The command's own install tree: corral resolves CMD in the agent's PATH,
# follows its links, and grants the package or version directory it leads
# into (read + execute), nothing beside it; the same for its "#!"
# interpreter. A link the agent can write never widens a grant.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
P=$TMP/opt/x			# an npm prefix outside the home
mkdir -p "$P/bin" "$P/lib/node_modules/hello" "$P/lib/node_modules/@acme/tool/bin" "$P/lib/node_modules/other"
# the packages are shell scripts run by an interpreter of their own, a copy of
# dash in a versioned runtime: its tree holds the library the script loads
R=$TMP/rt/versions/1.0
mkdir -p "$R/bin" "$R/lib" "$TMP/rt/versions/2.0"
cp /bin/dash "$R/bin/mysh"
echo 'echo "runtime 1.0 loaded"' > "$R/lib/init.sh"
echo 'sibling-version-secret' > "$TMP/rt/versions/2.0/s"
cat > "$P/lib/node_modules/hello/cli.sh" <<'S'
#!/usr/bin/env mysh
. "$(dirname "$(command -v mysh)")/../lib/init.sh"
echo "hello from $0"
S
cat > "$P/lib/node_modules/@acme/tool/bin/tool.sh" <<'S'
#!/bin/sh
echo "acme tool"
S
echo 'sibling-package-secret' > "$P/lib/node_modules/other/s"
chmod 0755 "$P/lib/node_modules/hello/cli.sh" "$P/lib/node_modules/@acme/tool/bin/tool.sh"
ln -s ../lib/node_modules/hello/cli.sh "$P/bin/hello"
ln -s ../lib/node_modules/@acme/tool/bin/tool.sh "$P/bin/acme"
# a venv outside PATH, named by an absolute #!
V=$TMP/venvs/app
mkdir -p "$V/bin" "$V/lib"
echo "home = /usr/bin" > "$V/pyvenv.cfg"
cp /bin/dash "$V/bin/python"
echo 'echo "venv lib"' > "$V/lib/site.sh"
echo 'beside-the-venv' > "$TMP/venvs/s"
mkdir -p "$P/lib/node_modules/pyapp"
printf '#!%s\n. %s/lib/site.sh\n' "$V/bin/python" "$V" > "$P/lib/node_modules/pyapp/app"
chmod 0755 "$P/lib/node_modules/pyapp/app" "$TMP/venvs" "$TMP/opt"
ln -s ../lib/node_modules/pyapp/app "$P/bin/app"
# an npm package whose launcher runs a binary from its platform package,
# installed beside it (codex: @openai/codex-linux-x64)
mkdir -p "$P/lib/node_modules/plat/bin" "$P/lib/node_modules/plat-linux-x64/bin" "$P/lib/node_modules/plat-helper"
printf '{"name": "plat", "optionalDependencies": {"plat-linux-x64": "1.0", "plat-helper": "1.0", "../other": "1.0", "plat-absent": "1.0"}}\n' > "$P/lib/node_modules/plat/package.json"
printf '{"name": "plat-linux-x64", "os": ["linux"], "cpu": ["x64"]}\n' > "$P/lib/node_modules/plat-linux-x64/package.json"
printf '{"name": "plat-helper"}\n' > "$P/lib/node_modules/plat-helper/package.json"
echo 'helper-not-a-platform-package' > "$P/lib/node_modules/plat-helper/s"
printf '#!/bin/sh\necho native plat ran\n' > "$P/lib/node_modules/plat-linux-x64/bin/native"
printf '#!/bin/sh\nd=$(dirname "$(readlink -f "$0")")/../..\n"$d/plat-linux-x64/bin/native"\ncat "$d/plat-helper/s" 2>/dev/null || echo helper refused\ncat "$d/other/s" 2>/dev/null || echo other refused\n' > "$P/lib/node_modules/plat/bin/plat.sh"
chmod 0755 "$P/lib/node_modules/plat/bin/plat.sh" "$P/lib/node_modules/plat-linux-x64/bin/native"
ln -s ../lib/node_modules/plat/bin/plat.sh "$P/bin/plat"
nmx=$("$CORRAL_TOP/mk/npm" agent-codex @openai/codex@0.171.0)
status_ok $? "codex fetched (once) from npm"

for who in root nobody; do
	B=$TMP/$who H=$B/home W=$B/ws
	mkdir -p "$H" "$W"
	echo "home-secret" > "$H/.netrc"
	if [ $who = root ]; then pre=""; else pre=as_nobody; chown -R nobody:nogroup "$B"; fi
	cd "$W"
	E="env -i HOME=$H PATH=$P/bin:$R/bin:/usr/bin:/bin"

	# control: bare, everything runs and every sibling is readable
	run $pre $E hello
	is "$rc:$out" "0:runtime 1.0 loaded${nl:-
}hello from $P/bin/hello" "$who: hello runs bare (control)"
	run $pre cat "$P/lib/node_modules/other/s" "$TMP/rt/versions/2.0/s" "$TMP/venvs/s"
	is "$rc" 0 "$who: the siblings are readable bare (control)"

	run $pre $E "$C" run -- hello
	is "$rc" 0 "$who: an npm package outside the home runs (its bin link leads into node_modules/hello)"
	like "$out" "^runtime 1.0 loaded" "$who: its #!/usr/bin/env interpreter's tree is granted (lib beside bin)"
	run $pre $E "$C" run -- acme
	is "$rc:$out" "0:acme tool" "$who: a scoped package (node_modules/@acme/tool) runs"
	run $pre $E "$C" run -- app
	is "$rc:$out" "0:venv lib" "$who: an absolute #! into a venv: the venv is granted"
	run $pre $E "$C" run -- cat "$P/lib/node_modules/other/s"
	like "$rc:$err" "^1:.*Permission denied" "$who: a sibling package stays out"
	run $pre $E "$C" run -- cat "$TMP/rt/versions/2.0/s"
	like "$rc:$err" "^1:.*Permission denied" "$who: a sibling version of the interpreter stays out"
	run $pre $E "$C" run -- cat "$TMP/venvs/s"
	like "$rc:$err" "^1:.*Permission denied" "$who: what lies beside the venv stays out"
	run $pre $E "$C" run -- hello
	run $pre $E "$C" run -- cat "$H/.netrc"
	like "$rc:$err" "^1:.*Permission denied" "$who: the home stays out"

	# the explain lines
	run $pre $E "$C" explain -- hello
	like "$out" "^# granted: $P/lib/node_modules/hello \\(the install tree of hello\\)$" "$who: explain: the package, and why"
	like "$out" "^# granted: $R \\(the install tree of hello's interpreter\\)$" "$who: explain: the interpreter's tree"
	like "$out" " -x $P/lib/node_modules/hello " "$who: explain: confine grants the package"
	unlike "$out" " -x $P/lib/node_modules( |/other)" "$who: explain: and nothing beside it"
	unlike "$out" " -x $TMP/rt/versions " "$who: explain: not every version"

	# a link in the workspace never widens a grant to its target
	ln -sf "$P/lib/node_modules/hello/cli.sh" "$W/hello-link"
	[ $who = nobody ] && chown -h nobody:nogroup "$W/hello-link"
	run $pre $E "$C" run -- ./hello-link
	is "$rc" 126 "$who: a link in the workspace: its target's tree is not granted (126)"
	run $pre $E "$C" explain -- ./hello-link
	like "$out" "^# left out: $W/hello-link is reached through the symbolic link $W/hello-link, which the agent can write" "$who: explain says why"
	unlike "$out" " -x $P/lib/node_modules/hello " "$who: no grant from it"
	mkdir -p "$W/bin" && ln -sf "$P/lib/node_modules/hello/cli.sh" "$W/bin/hello"
	run $pre env -i HOME=$H PATH=$W/bin:$R/bin:/usr/bin:/bin "$C" explain -- hello
	unlike "$out" " -x $P/lib/node_modules/hello " "$who: a PATH directory in the workspace: its links widen nothing"
	# a link elsewhere, outside the agent's reach, is followed (control)
	ln -sf "$P/lib/node_modules/hello/cli.sh" "$TMP/opt/hello-link"
	run $pre $E "$C" run -- "$TMP/opt/hello-link"
	is "$rc" 0 "$who: the same link outside the workspace is followed (control)"
	rm -f "$TMP/opt/hello-link"

	# the platform package beside an npm package is part of its tree
	run $pre $E plat
	is "$rc:$out" "0:native plat ran
helper-not-a-platform-package
sibling-package-secret" "$who: plat runs bare, every sibling readable (control)"
	run $pre $E "$C" run --quiet -- plat
	is "$rc:$out" "0:native plat ran
helper refused
other refused" "$who: under corral run its platform package runs; an optional package with no os/cpu and a name outside stay out"
	run $pre $E "$C" explain -- plat
	like "$out" " -x $P/lib/node_modules/plat-linux-x64 " "$who: explain: the platform package is granted"
	unlike "$out" " -x $P/lib/node_modules/(plat-helper|other|plat-absent)" "$who: explain: nothing else beside it"
	run $pre env -i HOME=$H PATH=$nmx/.bin:/usr/bin:/bin "$C" run --quiet -- codex --version
	is "$rc:$out" "0:codex-cli 0.171.0" "$who: codex from npm (node_modules/.bin on PATH): its launcher runs @openai/codex-linux-x64's binary"

	# a link from a PATH directory in the home into a versions/V directory
	# (cursor-agent's layout): found on the user's PATH, its version granted
	L=$H/.local/share/mytool
	mkdir -p "$H/.local/bin" "$L/versions/1.2.3" "$L/versions/0.9"
	echo "version data" > "$L/versions/1.2.3/data.txt"
	echo "beside-the-version" > "$L/beside.txt"
	echo "other-version-secret" > "$L/versions/0.9/s"
	printf '#!/bin/sh\necho mytool ran\ncat "$(dirname "$(readlink -f "$0")")/data.txt"\ncat %s/beside.txt %s/versions/0.9/s 2>/dev/null || echo beside refused\nls %s/.local/bin >/dev/null 2>&1 || echo bin unlisted\nother; echo "other: $?"\n' \
	    "$L" "$L" "$H" > "$L/versions/1.2.3/mytool"
	printf '#!/bin/sh\necho other ran\n' > "$H/.local/bin/other"
	cp "$H/.local/bin/other" "$H/.local/bin/plain"
	chmod 0755 "$L/versions/1.2.3/mytool" "$H/.local/bin/other" "$H/.local/bin/plain"
	ln -s "$L/versions/1.2.3/mytool" "$H/.local/bin/mytool"
	[ $who = nobody ] && chown -R nobody:nogroup "$H/.local"
	EH="env -i HOME=$H PATH=$H/.local/bin:/usr/bin:/bin"
	run $pre $EH mytool
	is "$rc:$out" "0:mytool ran
version data
beside-the-version
other-version-secret
other ran
other: 0" "$who: mytool runs bare, everything beside it reachable (control)"
	run $pre $EH "$C" run --quiet -- mytool
	is "$rc" 0 "$who: ~/.local/bin/mytool -> versions/1.2.3: found on the user's PATH, runs under corral run"
	is "$out" "mytool ran
version data
beside refused
bin unlisted
other: 126" "$who: ... its version directory granted; beside it, the other version and ~/.local/bin's other entries not"
	run $pre $EH "$C" explain -- mytool
	like "$out" " -x $L/versions/1.2.3 " "$who: explain: the version directory is granted"
	like "$out" "# granted: $H/.local/bin on the agent's PATH for mytool only: the directory itself stays ungranted" "$who: explain: ~/.local/bin on the agent's PATH, ungranted"
	unlike "$out" " -[rxwW] ($H/.local/bin|$L|$L/versions|$L/versions/0.9) " "$who: explain: not ~/.local/bin, the tool's folder or another version"
	run $pre $EH "$C" run --quiet -- plain
	is "$rc" 127 "$who: control: a plain file in the same left-out directory is not found (127)"
	run $pre env -i HOME=$H PATH=/usr/bin:/bin "$C" run --quiet -- mytool
	is "$rc" 127 "$who: control: with ~/.local/bin off the user's PATH, mytool is not found"

	# a command in no granted directory: named, with the policy line
	mkdir -p "$B/tools" && cp /bin/true "$B/tools/t" && [ $who = nobody ] && chown -R nobody:nogroup "$B/tools"
	run $pre $E "$C" explain -- "$B/tools/t"
	like "$out" "^# left out: $B/tools/t \\($B/tools/t\\) is in no granted directory; to grant it: \"exec\": \\[\"$B/tools\"\\]" "$who: a command nowhere granted: the policy line"
	run $pre $E "$C" run -- "$B/tools/t"
	is "$rc" 126 "$who: and it does not run"
	status_ok "$(! ls "$H/.local/state/corral" | grep -q '^a[0-9a-f]\{10\}$'; echo $?)" "$who: nothing left in the store"
done
done_testing
