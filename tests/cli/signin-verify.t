#!/bin/sh
# Nothing the agent wrote is trusted afterwards (2/2): a renewed sign-in is
# taken back only when the provider, asked with the new token outside the
# boundary, names the account the store recorded at put. The agent's forged
# token beside its own ~/.claude.json naming the victim's account is not
# taken back; neither is an expired or a far-future one, nor one that cannot
# be verified for lack of network; the old sign-in stays usable, and the one
# a renewal replaced can be restored. A fake provider over TLS on 127.0.0.1
# with a test CA made here. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
C=$CORRAL_BIN/corral
provider_start; status_ok $? "the fake provider runs over TLS on 127.0.0.1:$PORT"

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	ST=$H/.local/state/corral CFG=$H/.config/corral
	mkdir -p "$W" "$CFG"
	cp "$PROF" "$CFG/profiles.json"; cp "$CA" "$CFG/test-ca.pem"
	t=$(now)
	claude_account "u-1-$who" >"$B/acct"
	claude_signin "tok0-$who" $((t + 3600)) >"$B/c0"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	$AS env -i HOME="$H" "$SS" put claude --agent claude --account-from "$B/acct" <"$B/c0"
	provider_token "tok0-$who" "u-1-$who"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C.UTF-8"
	R() { (cd "$W" && $AS $E "$C" run -a claude --profiles "$CFG/profiles.json" --test-cacert "$CFG/test-ca.pem" "$@"); }
	stored() { tail -n +2 "$ST/creds/claude"; }
	# agent_writes TOKEN EXPIRY ACCOUNT: the agent renews its own sign-in
	agent_writes() {
		claude_signin "$1" "$2" >"$W/renewed.json"
		claude_account "$3" >"$W/account.json"
		[ "$who" = nobody ] && chown nobody "$W/renewed.json" "$W/account.json"
		run R -- sh -c 'cat "$HOME/.claude/.credentials.json" > staged.json; cp renewed.json "$HOME/.claude/.credentials.json" && cp account.json "$HOME/.claude.json"'
	}
	HINT="session-store: hint: to sign in again, sign in with claude outside corral, then: session-store put claude --agent claude --account-from ~/.claude.json < ~/.claude/.credentials.json"

	# control: an honest renewal, verified by the provider, taken back
	provider_token "tok1-$who" "u-1-$who"
	agent_writes "tok1-$who" $((t + 7200)) "u-1-$who"
	is "$rc:$err" "0:" "$who: an honest renewal: the run is quiet"
	like "$(cat "$W/staged.json")" "tok0-$who" "$who: the agent was handed the stored sign-in"
	is "$(stored)" "$(claude_signin "tok1-$who" $((t + 7200)))" "$who: the verified renewal was taken back"
	is "$(tail -n +2 "$ST/prev/claude")" "$(cat "$B/c0")" "$who: the sign-in it replaced is kept in prev/"
	is "$(grep -c "\"token\": \"tok1-$who\", \"beta\": \"oauth-2025-04-20\"" "$PV_DIR/log")" 1 "$who: the provider was asked once, with the new token as a bearer and the profile's header"
	cp "$ST/creds/claude" "$B/good"

	# the attack: an attacker's token, later, beside the agent's own
	# ~/.claude.json naming the victim's account
	provider_token "ATTACKER-ACCESS-$who" "u-attacker"
	agent_writes "ATTACKER-ACCESS-$who" $((t + 9000)) "u-1-$who"
	is "$rc" 0 "$who: forged: the agent's status passes through"
	is "$err" "session-store: fatal: renewed sign-in claude not taken back: the provider says its token belongs to another account; the stored sign-in stays
$HINT" "$who: forged: one line says so, and how to sign in again"
	cmp -s "$ST/creds/claude" "$B/good"; status_ok $? "$who: forged: the stored sign-in stays"
	run R -- sh -c 'cat "$HOME/.claude/.credentials.json"'
	like "$out" "\"accessToken\":\"tok1-$who\"" "$who: forged: the next run is handed the good sign-in"
	grep -rq ATTACKER "$ST"; status_ok $((! $?)) "$who: forged: ATTACKER-ACCESS is nowhere in the store (prev/ included)"

	agent_writes "UNKNOWN-$who" $((t + 9100)) "u-1-$who"
	is "$err" "session-store: fatal: renewed sign-in claude not taken back: the account could not be verified (https://localhost:$PORT/profile answered HTTP 401); the stored sign-in stays
$HINT" "$who: a token the provider rejects: not taken back"
	cmp -s "$ST/creds/claude" "$B/good"; status_ok $? "$who: rejected: the stored sign-in stays"

	provider_token "tokX-$who" "u-1-$who"
	agent_writes "tokX-$who" $((t - 60)) "u-1-$who"
	like "$err" "^session-store: fatal: renewed sign-in claude not taken back: it has already expired; the stored sign-in stays" "$who: an expired renewal: not taken back"
	provider_token "tokF-$who" "u-1-$who"
	agent_writes "tokF-$who" $((t + 400 * 86400)) "u-1-$who"
	like "$err" "^session-store: fatal: renewed sign-in claude not taken back: its expiry is implausibly far off; the stored sign-in stays" "$who: a far-future renewal (400 days): not taken back"
	grep -q "tokX-$who\|tokF-$who" "$PV_DIR/log"; status_ok $((! $?)) "$who: implausible expiries never reach the network"
	cmp -s "$ST/creds/claude" "$B/good"; status_ok $? "$who: expiries: the stored sign-in stays"

	# no network: the verification fails, nothing is taken back, and the
	# old sign-in is still usable (a network namespace of our own: no
	# packet leaves this machine)
	agent_writes_offline() {
		claude_signin "tokN-$who" $((t + 8000)) >"$W/renewed.json"
		[ "$who" = nobody ] && chown nobody "$W/renewed.json"
		run unshare -n sh -c "ip link set lo up && cd '$W' && $AS $E '$C' run -a claude -- sh -c 'cp renewed.json \"\$HOME/.claude/.credentials.json\"'"
	}
	agent_writes_offline
	is "$rc" 0 "$who: offline: the run completes"
	like "$err" "^session-store: fatal: renewed sign-in claude not taken back: the account could not be verified \(https://api.anthropic.com/api/oauth/profile: [^)]+\); the stored sign-in stays" "$who: offline: the default profile asks api.anthropic.com, which is unreachable: not taken back"
	is "$(printf '%s\n' "$err" | wc -l)" 2 "$who: offline: said in one line and a hint"
	cmp -s "$ST/creds/claude" "$B/good"; status_ok $? "$who: offline: the stored sign-in stays"
	provider_token "tok2-$who" "u-1-$who"
	agent_writes "tok2-$who" $((t + 9500)) "u-1-$who"
	like "$(cat "$W/staged.json")" "tok1-$who" "$who: offline: the old sign-in is handed out next time"
	is "$rc:$err:$(stored)" "0::$(claude_signin "tok2-$who" $((t + 9500)))" "$who: ... and renews, verified, as before"

	# restore: the sign-in the last renewal replaced comes back
	run $AS env -i HOME="$H" "$SS" restore claude
	is "$rc:$(stored)" "0:$(tail -n +2 "$B/good")" "$who: session-store restore brings back the previous sign-in"
	run $AS env -i HOME="$H" "$SS" restore claude
	is "$rc:$(stored)" "0:$(claude_signin "tok2-$who" $((t + 9500)))" "$who: restore again undoes it"
	run $AS env -i HOME="$H" "$SS" restore other
	is "$rc" 1 "$who: restore of a sign-in never renewed: 1"
	like "$err" "^session-store: fatal: no previous sign-in: credential other: No such file or directory$" "$who: restore: says so"

	# the test CA is an option of corral's caller, and is trusted like a policy
	run R -- true
	is "$rc" 0 "$who: control: --profiles and --test-cacert of your own"
	cp "$CFG/test-ca.pem" "$W/ca.pem"
	[ "$who" = nobody ] && chown nobody "$W/ca.pem"
	run sh -c "cd '$W' && $AS $E '$C' run -a claude --test-cacert '$W/ca.pem' -- true"
	is "$rc:$err" "125:corral: fatal: test CA $W/ca.pem lies in the workspace $W, which the agent can write: refused
corral: hint: keep it in ~/.config/corral/ (yours, not writable by others)" "$who: a test CA the agent could write: 125"
}

suite root
suite nobody

# session-store renew itself: no proxy from the environment sees the token
st=$TMP/store t=$(now)
S() { "$SS" --store "$st" $PV "$@"; }
claude_account u-9 >"$TMP/acct9"
claude_signin tokP0 $((t + 3600)) | S put claude --agent claude --account-from "$TMP/acct9"
provider_token tokP1 u-9
claude_signin tokP1 $((t + 7200)) >"$TMP/p1"
python3 -c 'import socket,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(8)
open(sys.argv[1]+".tmp","w").write(str(s.getsockname()[1])); import os; os.rename(sys.argv[1]+".tmp",sys.argv[1])
c,_=s.accept(); open(sys.argv[2],"w").write("proxy was asked\n")' "$TMP/pport" "$TMP/phit" &
ppid=$!
i=0; while [ ! -s "$TMP/pport" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
pp=$(cat "$TMP/pport")
run env HTTPS_PROXY=http://127.0.0.1:$pp https_proxy=http://127.0.0.1:$pp ALL_PROXY=http://127.0.0.1:$pp "$SS" --store "$st" $PV renew claude --from "$TMP/p1"
is "$rc:$err" "0:" "proxy variables set: the renewal is verified directly"
status_ok "$([ ! -e "$TMP/phit" ]; echo $?)" "the proxy the environment names was never contacted"
kill $ppid 2>/dev/null

# the provider's answer is bounded and redirects are not followed
sed "s|/profile\"|/huge\"|" "$PROF" >"$TMP/huge.json"
claude_signin tokP1 $((t + 7300)) >"$TMP/p2"
run "$SS" --store "$st" --profiles "$TMP/huge.json" --test-cacert "$CA" renew claude --from "$TMP/p2"
like "$rc:$err" "^1:session-store: fatal: renewed sign-in claude not taken back: the account could not be verified \(the provider's answer is larger than 65536 bytes\)" "a 1 MiB answer: refused"
sed "s|/profile\"|/redirect\"|" "$PROF" >"$TMP/redir.json"
run "$SS" --store "$st" --profiles "$TMP/redir.json" --test-cacert "$CA" renew claude --from "$TMP/p2"
like "$rc:$err" "^1:.*answered HTTP 302\); the stored sign-in stays" "a redirect is not followed"
run "$SS" --store "$st" --profiles "$PROF" renew claude --from "$TMP/p2"
like "$rc:$err" "^1:.*the account could not be verified \(https://localhost:$PORT/profile: " "without the test CA the fake provider's certificate is not trusted"
# profiles: verify must be https, method and auth from a short list
printf '{"claude":{"signin":"a","expiry":{"pointer":"/e","unit":"s"},"account":{"pointer":"/a"},"verify":{"url":"http://x/","method":"GET","token":"/t","auth":"bearer","account":"/a"}}}' >"$TMP/httpprof.json"
run "$SS" --store "$st" --profiles "$TMP/httpprof.json" list
like "$rc:$err" "^2:session-store: fatal: profiles $TMP/httpprof.json: claude: \"verify\": \"url\" must be an https:// URL" "a verification URL over plain http: refused"
printf '{"claude":{"signin":"a","expiry":{"pointer":"/e","unit":"s"},"account":{"pointer":"/a"},"verify":{"url":"https://x/","method":"GET","token":"/t","auth":"bearer","headers":["X: a\\r\\nEvil: 1"],"account":"/a"}}}' >"$TMP/crlf.json"
run "$SS" --store "$st" --profiles "$TMP/crlf.json" list
like "$rc:$err" "^2:.*header 1 is not \"Name: value\" in printable ASCII" "a header with CR/LF: refused"
done_testing
