#!/bin/sh
# session-store renew: a later, plausible, parseable sign-in of the account
# the store recorded at put, as the provider names it when asked with the new
# token (a fake provider over TLS, tests/lib/provider.sh); parallel renewals
# leave the newest, never a torn file; the one replaced is kept in prev/.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
provider_start; status_ok $? "fake provider on 127.0.0.1:$PORT"
st=$TMP/store
S() { "$SS" --store "$st" $PV "$@"; }
t=$(now)
# vsignin TOKEN EXPIRY [ACCOUNT]: a claude sign-in the provider knows as ACCOUNT (u-1)
vsignin() { provider_token "$1" "${3:-u-1}"; claude_signin "$1" "$2"; }

claude_account u-1 >"$TMP/acct"
claude_signin tok0 $((t + 3600)) >"$TMP/c0"
S put claude --agent claude --account-from "$TMP/acct" <"$TMP/c0"
cp "$st/creds/claude" "$TMP/stored0"
unchanged() { cmp -s "$st/creds/claude" "$TMP/stored0"; }

vsignin tok1 $((t + 7200)) >"$TMP/c1"
run S renew claude --from "$TMP/c1"
status_ok $rc "later expiry, the provider names the stored account: taken"
is "$(tail -n +2 "$st/creds/claude")" "$(cat "$TMP/c1")" "stored sign-in replaced"
is "$(stat -c %a "$st/creds/claude")" 600 "still 0600"
cmp -s "$st/prev/claude" "$TMP/stored0"; status_ok $? "the one replaced is in prev/, whole"
is "$(stat -c %a "$st/prev" "$st/prev/claude" | tr '\n' ' ')" "700 600 " "prev/ is 0700, its files 0600"
cp "$st/creds/claude" "$TMP/stored0"

refused() {	# refused DESC REASON-ERE ARGS...
	desc=$1 re=$2; shift 2
	run S renew claude "$@"
	is $rc 1 "$desc: exit 1"
	like "$err" "^session-store: fatal: renewed sign-in claude not taken back: $re.*; the stored sign-in stays" "$desc: reason"
	unchanged; status_ok $? "$desc: stored sign-in unchanged"
}
vsignin tokA $((t + 9000)) u-2 >"$TMP/other"
refused "the provider names another account" "the provider says its token belongs to another account" --from "$TMP/other"
claude_signin tokU $((t + 9000)) >"$TMP/unknown"
refused "the provider rejects the token" "the account could not be verified \(https://localhost:$PORT/profile answered HTTP 401\)" --from "$TMP/unknown"
vsignin tokO $((t + 1800)) >"$TMP/older"
refused "older token" "it does not expire later than the stored one" --from "$TMP/older"
refused "same expiry" "it does not expire later than the stored one" --from "$TMP/c1"
vsignin tokP $((t - 60)) >"$TMP/past"
refused "already expired" "it has already expired" --from "$TMP/past"
vsignin tokF $((t + 400 * 86400)) >"$TMP/far"
refused "absurd expiry (400 days)" "its expiry is implausibly far off" --from "$TMP/far"
printf '{"claudeAiOauth":{"accessToken":"x","expiresAt":99999999999999999999999}}' >"$TMP/huge"
refused "absurd expiry (overflow)" "its expiry: expiry is not a whole" --from "$TMP/huge"
printf '{"claudeAiOauth":{"accessToken":"x","expiresAt":' >"$TMP/malformed"
refused "malformed JSON" "its expiry: malformed JSON" --from "$TMP/malformed"
printf '{"claudeAiOauth":{"accessToken":"x","expiresAt":"%s"}}' $((t + 7300)) >"$TMP/strexp"
refused "expiry as a string" "its expiry: expiry is not a whole" --from "$TMP/strexp"
printf '{"claudeAiOauth":{"expiresAt":%s000,"expiresAt":%s000}}' $((t + 7300)) $((t + 7400)) >"$TMP/dup"
refused "duplicate key" "its expiry: nothing at" --from "$TMP/dup"
printf '{"claudeAiOauth":{"expiresAt":%s000}}' $((t + 7300)) >"$TMP/notok"
refused "no token" "its token: nothing at /claudeAiOauth/accessToken" --from "$TMP/notok"
printf '{"claudeAiOauth":{"accessToken":"a\\nb","expiresAt":%s000}}' $((t + 7300)) >"$TMP/nltok"
refused "a token with a newline" "its token: the token at /claudeAiOauth/accessToken is not a string of 1 to 16384 bytes on one line" --from "$TMP/nltok"
is "$(grep -c '"token": "\(tokO\|tokP\|tokF\)"' "$PV_DIR/log")" 0 "expiry refusals never ask the provider"
vsignin tok2 $((t + 7300)) >"$TMP/c2"
run S renew claude --from "$TMP/c2" --account-from "$TMP/acct"
is $rc 2 "--account-from is no longer taken (a file the agent wrote names no account): usage"
ln -s "$TMP/c2" "$TMP/c2link"
run S renew claude --from "$TMP/c2link"
is $rc 2 "--from a symlink refused"
unchanged; status_ok $? "symlink: unchanged"
head -c 52428800 /dev/zero | tr '\0' ' ' >"$TMP/big"
run "$TR" -o "$TMP/rss" rss -- "$SS" --store "$st" $PV renew claude --from "$TMP/big"
is $rc 1 "50 MiB sign-in refused"
like "$err" "the renewed sign-in: larger than 1048576 bytes" "50 MiB: message"
rss=$(awk '{print $2}' "$TMP/rss")
"$TR" -o "$TMP/rss0" rss -- "$SS" --store "$st" $PV renew claude --from "$TMP/older" 2>/dev/null
rss0=$(awk '{print $2}' "$TMP/rss0")
[ "$rss" -lt $((rss0 + 2048)) ]; status_ok $? "50 MiB file: peak RSS ${rss} KiB, within 2 MiB of a small renewal's ${rss0} KiB"
run "$TR" -o "$TMP/rss" rss -- "$SS" --store "$st" $PV renew claude --from-fd 0 <"$TMP/big"
is $rc 1 "50 MiB on a descriptor refused"
run sh -c 'cat "$0" | "$1" --store "$2" renew claude --from-fd 0' "$TMP/big" "$SS" "$st"
is $rc 1 "50 MiB through a pipe refused"
unchanged; status_ok $? "50 MiB: unchanged"
run S renew github --from "$TMP/c2"
is $rc 1 "renew of a missing credential: exit 1"
printf 'opaque' | S put opaque
run S renew opaque --from "$TMP/c2"
is $rc 1 "renew of an opaque secret refused"
like "$err" "stored without --agent, so it names no account" "opaque: reason"
run S renew claude --from "$TMP/c2" --from-fd 0
is $rc 2 "--from and --from-fd together: usage"

# --from-fd, as home-stage passes it
run sh -c 'exec "$0" --store "$1" --profiles "$2" --test-cacert "$3" renew claude --from-fd 0 <"$4"' "$SS" "$st" "$PROF" "$CA" "$TMP/c2"
status_ok $rc "renew by descriptor"
cp "$st/creds/claude" "$TMP/stored0"

# codex: expiry inside the access token, the token sent in a header by POST;
# gemini: the provider's userinfo names the id token's sub
codex_signin acc-1 $((t + 3600)) | S put codex --agent codex
codex_signin acc-1 $((t + 7200)) >"$TMP/x1"
provider_token "$(sed 's/.*"access_token":"\([^"]*\)".*/\1/' "$TMP/x1")" acc-1
run S renew codex --from "$TMP/x1"
status_ok $rc "codex: later access token, verified: taken"
like "$(tail -n 1 "$PV_DIR/log")" '"method": "POST", "path": "/keyed"' "codex: asked by POST, the token in X-Api-Key"
codex_signin acc-1 $((t + 9000)) >"$TMP/x2"
provider_token "$(sed 's/.*"access_token":"\([^"]*\)".*/\1/' "$TMP/x2")" acc-2
run S renew codex --from "$TMP/x2"
is $rc 1 "codex: its account_id says acc-1, the provider says acc-2: refused"
codex_signin acc-1 $((t + 9100)) >"$TMP/x3"
run "$SS" --store "$st" renew codex --from "$TMP/x3"
is $rc 1 "codex with the embedded profiles: no verification request: refused"
like "$err" "profile codex has no verification request, so the account it belongs to cannot be established; the stored sign-in stays" "codex: says why"
like "$err" "session-store: hint: to sign in again, sign in with codex outside corral, then: session-store put codex --agent codex < ~/.codex/auth.json" "codex: says how to sign in again"
gemini_signin 1099 $((t + 1800)) | S put gemini --agent gemini
gemini_signin 1099 $((t + 3600)) >"$TMP/g1"
provider_token ya29.x 1099
run S renew gemini --from "$TMP/g1"
status_ok $rc "gemini: later expiry_date, userinfo names the sub: taken"

# A profile file can override: a tighter max_ahead
provider_profiles "https://localhost:$PORT" | sed 's|"full_setup": \[".claude"\]}|"full_setup": [".claude"], "max_ahead": 600}|' >"$TMP/prof.json"
vsignin tok3 $((t + 7400)) >"$TMP/c3"
run "$SS" --store "$st" --profiles "$TMP/prof.json" --test-cacert "$CA" renew claude --from "$TMP/c3"
is $rc 1 "--profiles max_ahead 600 refuses a 2 h token"
run S renew claude --from "$TMP/c3"
status_ok $rc "the default accepts it"
printf '{"claude":{"signin":"/etc/shadow"}}' >"$TMP/badprof.json"
run "$SS" --store "$st" --profiles "$TMP/badprof.json" list
is $rc 2 "a bad profile file: exit 2"
like "$err" "^session-store: fatal: profiles $TMP/badprof.json: claude: \"signin\" is not a plain relative path" "bad profile: message"

# Parallel renewals: the newest wins, whatever the order; nothing torn.
for round in 1 2 3; do
	claude_signin base $((t + 100)) >"$TMP/base"
	S put pc --agent claude --account-from "$TMP/acct" <"$TMP/base"
	best=0
	i=0
	for off in $(shuf -i 200-20000 -n 16); do
		vsignin "tok$off" $((t + off)) >"$TMP/r$i"
		[ "$off" -gt "$best" ] && best=$off
		i=$((i + 1))
	done
	i=0 pids=
	while [ $i -lt 16 ]; do
		"$SS" --store "$st" $PV renew pc --from "$TMP/r$i" 2>/dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	wait $pids	# not the provider
	is "$(tail -n +2 "$st/creds/pc")" "$(claude_signin "tok$best" $((t + best)))" "round $round: 16 parallel renewals, the newest (+$best s) is stored, whole"
	like "$(head -n 1 "$st/creds/pc")" '^\{"v":1,"agent":"claude","account":"u-1","since":[1-9][0-9]*,"renewed":[1-9][0-9]*\}$' "round $round: header intact (a renewal noted)"
	is "$({ ls -A "$st/creds"; ls -A "$st/prev"; } | grep -c tmp)" 0 "round $round: no temp file left"
done
done_testing
