#!/bin/sh
# corral signin: the agent's own login flow (here a scripted stand-in per
# CLI that writes its sign-in the way that CLI does) runs under the
# boundary in a fresh home; the sign-in it wrote is kept only after the
# profile's checks, the provider asked over TLS (a fake provider on
# 127.0.0.1 with a test CA): honest, wrong account, expired. Nothing else
# of that home is kept. --from-home, --status (never a token), --remove,
# and the stored sign-in staged by the next corral run. As root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
C=$CORRAL_BIN/corral
provider_start; status_ok $? "the fake provider runs over TLS on 127.0.0.1:$PORT"

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home LB=$TMP/$who/loginbin
	ST=$H/.local/state/corral CFG=$H/.config/corral
	mkdir -p "$CFG" "$LB" "$B/tmp" "$B/ws"
	# the profiles of the provider, each with a stand-in login; and one without
	provider_profiles "https://localhost:$PORT" | python3 -c 'import json, sys
d = json.load(sys.stdin)
for a in ("claude", "codex", "gemini"):
    d[a]["login"] = ["fake-" + a + "-login", "--flag"]
d["plain"] = dict(d["codex"]); del d["plain"]["login"]
json.dump(d, sys.stdout)' >"$CFG/profiles.json"
	cp "$CA" "$CFG/test-ca.pem"
	# the stand-ins: each writes what its CLI writes, where it writes it
	for a in claude codex gemini; do
		cat >"$LB/fake-$a-login" <<EOF
#!/bin/sh
# $a's login, scripted: the files come from what the test prepared
umask 077
d=\$(dirname "\$0")
[ "\$1" = --flag ] || exit 9
[ -e "\$d/fail" ] && exit 3
echo "JUNK-MARK" > "\$HOME/junk"
echo "JUNK-MARK" > junk-in-ws
case $a in
claude) mkdir -p "\$HOME/.claude" && cp "\$d/claude.cred" "\$HOME/.claude/.credentials.json" &&
	cp "\$d/claude.acct" "\$HOME/.claude.json" && echo JUNK-MARK > "\$HOME/.claude/history.jsonl" ;;
codex) mkdir -p "\$HOME/.codex" && cp "\$d/codex.cred" "\$HOME/.codex/auth.json" ;;
gemini) mkdir -p "\$HOME/.gemini" && cp "\$d/gemini.cred" "\$HOME/.gemini/oauth_creds.json" ;;
esac
[ -e "\$d/symlink" ] && rm -f "\$HOME/.claude/.credentials.json" && ln -s "\$d/claude.cred" "\$HOME/.claude/.credentials.json"
echo "signed in to $a"
EOF
		chmod 0755 "$LB/fake-$a-login"
	done
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	t=$(now)
	E="env -i HOME=$H PATH=$LB:/usr/bin:/bin TMPDIR=$B/tmp LANG=C.UTF-8"
	S() { (cd "$B/ws" && $AS $E "$C" signin "$@" --profiles "$CFG/profiles.json" --test-cacert "$CFG/test-ca.pem"); }
	prep() {	# prep FILE CONTENT...: what a stand-in will write
		f=$1; shift
		printf '%s' "$*" >"$LB/$f"
		[ "$who" = nobody ] && chown nobody "$LB/$f"
	}
	iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }

	# honest: the provider names the account the sign-in names
	prep claude.cred "$(claude_signin "tokA-$who" $((t + 3600)))"
	prep claude.acct "$(claude_account "u-1-$who")"
	provider_token "tokA-$who" "u-1-$who"
	run S claude
	is "$rc" 0 "$who: honest: signin exits 0"
	is "$out" "signed in to claude
claude: account u-1-$who (confirmed by https://localhost:$PORT/profile), expires $(iso $((t + 3600)))" "$who: honest: the login ran on the terminal; the account is confirmed by the provider"
	is "$err" "corral: signin: claude's own login (fake-claude-login --flag) in a fresh home under the boundary; nothing but its sign-in is kept
corral: signin: took ~/.claude/.credentials.json and the account in ~/.claude.json from the login's home
corral: signin: nothing else of the login's home was kept" "$who: honest: it says what it took"
	is "$(tail -n +2 "$ST/creds/claude")" "$(cat "$LB/claude.cred")" "$who: honest: the sign-in is stored whole"
	like "$(head -n 1 "$ST/creds/claude")" "^\\{\"v\":1,\"agent\":\"claude\",\"account\":\"u-1-$who\",\"since\":[1-9][0-9]*,\"renewed\":0\\}\$" "$who: honest: with its account, when, never renewed"
	is "$(stat -c %a "$ST/creds/claude")" 600 "$who: honest: stored 0600"
	is "$(grep -c "\"token\": \"tokA-$who\"" "$PV_DIR/log")" 1 "$who: honest: the provider was asked once, with its token"
	grep -rq JUNK-MARK "$ST" "$B/ws" "$B/tmp"; status_ok $((! $?)) "$who: nothing else of the login's home, nor its workspace, was kept"
	{ ls "$ST" | grep -q '^a[0-9a-f]\{10\}$' || ls -d "$B"/tmp/corral-signin-* >/dev/null 2>&1; }; status_ok $((! $?)) "$who: the attempt's tree and the login's workspace are gone"
	cp "$ST/creds/claude" "$B/good"

	# the sign-in is what the next run stages
	run sh -c "cd '$B/ws' && $AS $E '$C' run -a claude --profiles '$CFG/profiles.json' --test-cacert '$CFG/test-ca.pem' -- sh -c 'cat \"\$HOME/.claude/.credentials.json\"'"
	is "$rc:$out" "0:$(cat "$LB/claude.cred")" "$who: the next corral run -a claude is handed that sign-in"

	# wrong account: the provider says the token is someone else's
	prep claude.cred "$(claude_signin "tokW-$who" $((t + 7200)))"
	provider_token "tokW-$who" "u-attacker"
	run S claude
	is "$rc" 1 "$who: wrong account: refused (1)"
	is "$(echo "$err" | grep fatal)" "session-store: fatal: sign-in for claude refused: the provider says its token belongs to another account than the sign-in names (u-1-$who)" "$who: wrong account: one line says why"
	like "$err" "corral: hint: nothing was stored; sign in again: corral signin claude" "$who: wrong account: ... and what to do"
	cmp -s "$ST/creds/claude" "$B/good"; status_ok $? "$who: wrong account: the stored sign-in stays"
	grep -rq "tokW-$who" "$ST"; status_ok $((! $?)) "$who: wrong account: its token is nowhere in the store"

	# expired: refused before any request
	prep claude.cred "$(claude_signin "tokE-$who" $((t - 60)))"
	provider_token "tokE-$who" "u-1-$who"
	run S claude
	is "$rc:$(echo "$err" | grep fatal)" "1:session-store: fatal: sign-in for claude refused: it has already expired" "$who: expired: refused (1), said"
	grep -q "tokE-$who" "$PV_DIR/log"; status_ok $((! $?)) "$who: expired: the provider was never asked"
	cmp -s "$ST/creds/claude" "$B/good"; status_ok $? "$who: expired: the stored sign-in stays"

	# a token the provider does not know
	prep claude.cred "$(claude_signin "tokU-$who" $((t + 3600)))"
	run S claude
	is "$rc:$(echo "$err" | grep fatal)" "1:session-store: fatal: sign-in for claude refused: the account could not be verified (https://localhost:$PORT/profile answered HTTP 401)" "$who: a token the provider rejects: refused"

	# the login failed, or left a symbolic link for a sign-in
	touch "$LB/fail"
	run S claude
	is "$rc:$(echo "$err" | grep fatal)" "1:corral: fatal: the login (fake-claude-login) ended with status 3: nothing was stored" "$who: a failed login: 1, nothing stored"
	rm -f "$LB/fail"
	prep claude.cred "$(claude_signin "tokS-$who" $((t + 3600)))"
	provider_token "tokS-$who" "u-1-$who"
	touch "$LB/symlink"
	run S claude
	is "$rc:$(echo "$err" | grep fatal)" "1:corral: fatal: no sign-in taken from the login's home: ~/.claude/.credentials.json: a symbolic link on the way" "$who: a symbolic link for a sign-in: refused"
	rm -f "$LB/symlink"
	cmp -s "$ST/creds/claude" "$B/good"; status_ok $? "$who: failures: the stored sign-in stays"

	# codex (its token in a header, by POST) and gemini (the id token's sub)
	prep codex.cred "$(codex_signin "acct-x-$who" $((t + 3600)))"
	provider_token "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tokens"]["access_token"])' "$LB/codex.cred")" "acct-x-$who"
	run S codex
	is "$rc:$out" "0:signed in to codex
codex: account acct-x-$who (confirmed by https://localhost:$PORT/keyed), expires $(iso $((t + 3600)))" "$who: codex: honest, confirmed"
	prep gemini.cred "$(gemini_signin "sub-$who" $((t + 3000)))"
	provider_token "ya29.x" "sub-$who"
	run S gemini
	is "$rc:$out" "0:signed in to gemini
gemini: account sub-$who (confirmed by https://localhost:$PORT/userinfo), expires $(iso $((t + 3000)))" "$who: gemini: honest, confirmed"

	# --status: account, expiry, when; never a token
	run sh -c "$AS $E '$C' signin --status"
	is "$rc" 0 "$who: --status exits 0"
	is "$(echo "$out" | head -n 1)" "NAME	AGENT	ACCOUNT	EXPIRES	SIGNED IN	LAST RENEWAL" "$who: --status: a header"
	like "$out" "claude	claude	u-1-$who	$(iso $((t + 3600)))	[0-9T:-]+Z	never" "$who: --status: claude's account, expiry, signed in, never renewed"
	like "$out" "codex	codex	acct-x-$who	" "$who: --status: codex"
	like "$out" "gemini	gemini	sub-$who	" "$who: --status: gemini"
	unlike "$out" "tok|ya29|eyJ|rt-|1//" "$who: --status prints no token"

	# --remove
	run sh -c "$AS $E '$C' signin --remove codex"
	is "$rc:$err" "0:corral: signin: the sign-in of codex was removed from the store" "$who: --remove: 0, said"
	status_ok "$([ ! -e "$ST/creds/codex" ]; echo $?)" "$who: --remove: gone from the store"
	unlike "$($AS $E "$C" signin --status)" "codex" "$who: --remove: --status no longer lists it"
	run sh -c "$AS $E '$C' signin --remove codex"
	is "$rc:$err" "1:session-store: fatal: credential codex: No such file or directory" "$who: --remove of nothing: 1"

	# --from-home: the user's own login, after the same checks
	mkdir -p "$H/.claude" "$H/.gemini" "$B/elsewhere"
	claude_signin "tokH-$who" $((t + 5000)) >"$H/.claude/.credentials.json"
	claude_account "u-1-$who" >"$H/.claude.json"
	gemini_signin "sub-$who" $((t + 5000)) >"$B/elsewhere/g.json"
	ln -s "$B/elsewhere/g.json" "$H/.gemini/oauth_creds.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$H" "$B/elsewhere"
	provider_token "tokH-$who" "u-1-$who"
	run S claude --from-home
	is "$rc:$out" "0:claude: account u-1-$who (confirmed by https://localhost:$PORT/profile), expires $(iso $((t + 5000)))" "$who: --from-home: checked like a login"
	is "$err" "corral: signin: took ~/.claude/.credentials.json and the account in ~/.claude.json from $H" "$who: --from-home: says what it took"
	is "$(tail -n +2 "$ST/creds/claude")" "$(cat "$H/.claude/.credentials.json")" "$who: --from-home: stored"
	run S gemini --from-home
	is "$rc:$err" "1:corral: fatal: no sign-in taken from $H: ~/.gemini/oauth_creds.json: a symbolic link on the way" "$who: --from-home: a symbolic link is not followed"

	# bad requests
	run sh -c "$AS $E '$C' signin"
	is "$rc" 2 "$who: signin without an agent: 2"
	run S nosuch
	like "$rc:$err" "^2:corral: fatal: no profile for agent nosuch" "$who: an agent without a profile: 2"
	run S plain
	is "$rc:$err" "1:corral: fatal: the profile of plain names no login command
corral: hint: sign in with plain outside corral, then: corral signin plain --from-home (or give its profile a \"login\")" "$who: a profile without a login command: 1, with the way forward"
}

suite root
suite nobody
done_testing
