#!/bin/sh
# A real agent CLI from npm (Claude Code) under corral run with the default
# policy: it starts (--version, --help), and what it writes lands in the
# attempt's synthetic home, never in the invoking user's real one.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
nm=$("$CORRAL_TOP/mk/npm" agents @anthropic-ai/claude-code)
status_ok $? "@anthropic-ai/claude-code installed from npm"
# the real binary's directory on PATH: the default policy grants PATH directories
bindir=$(dirname "$(readlink -f "$nm/.bin/claude")")
want=$(cd / && "$bindir/claude.exe" --version)
like "$want" "^[0-9]+\\.[0-9]+\\.[0-9]+ \\(Claude Code\\)$" "claude runs bare (reference)"

for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	mkdir -p "$H" "$W"
	echo "real-home-secret" > "$H/.netrc"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	run sh -c "cd '$W' && exec $AS env -i HOME='$H' PATH='$bindir:/usr/bin:/bin' '$C' run -a claude -- sh -c '
		claude.exe --version || exit 11
		claude.exe --help > \"\$TMPDIR/help\" || exit 12
		head -1 \"\$TMPDIR/help\"
		claude.exe mcp add -s user corral-test -- /bin/true >/dev/null 2>&1 || exit 13
		cat ~/.netrc \"$H/.netrc\" 2>/dev/null
		ls -A \"\$HOME\" | tr \"\\n\" \" \"'"
	is "$rc" 0 "$who: claude --version, --help and a config write under corral run"
	first=$(printf '%s\n' "$out" | sed -n 1p)
	is "$first" "$want" "$who: --version under corral run matches"
	like "$(printf '%s\n' "$out" | sed -n 2p)" "^Usage: claude " "$who: --help under corral run"
	like "$(printf '%s\n' "$out" | sed -n 3p)" "^\\.claude \\.claude\\.json \\.gitconfig $" "$who: its config landed in the synthetic home"
	unlike "$out" "real-home-secret" "$who: the real home's files are out of reach"
	status_ok "$([ ! -e "$H/.claude.json" ] && [ ! -e "$H/.claude" ]; echo $?)" "$who: nothing landed in the real home"
	is "$(cd "$H" && ls -A | tr '\n' ' ')" ".local .netrc " "$who: the real home holds only the store besides its own files"
	is "$(ls "$H/.local/state/corral" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: the synthetic home is gone afterwards"
	is "$(ls -A "$W")" "" "$who: nothing landed in the workspace"
done
done_testing
