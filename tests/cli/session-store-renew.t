#!/bin/sh
# session-store renew: same account, later, plausible, parseable; parallel
# renewals leave the newest, never a torn file.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
st=$TMP/store
S() { "$SS" --store "$st" "$@"; }
t=$(now)

claude_account u-1 >"$TMP/acct"
claude_account u-2 >"$TMP/acct2"
claude_signin tok0 $((t + 3600)) >"$TMP/c0"
S put claude --agent claude --account-from "$TMP/acct" <"$TMP/c0"
cp "$st/creds/claude" "$TMP/stored0"
unchanged() { cmp -s "$st/creds/claude" "$TMP/stored0"; }

claude_signin tok1 $((t + 7200)) >"$TMP/c1"
run S renew claude --from "$TMP/c1" --account-from "$TMP/acct"
ok $rc "later expiry, same account: taken"
is "$(tail -n +2 "$st/creds/claude")" "$(cat "$TMP/c1")" "stored sign-in replaced"
is "$(stat -c %a "$st/creds/claude")" 600 "still 0600"
cp "$st/creds/claude" "$TMP/stored0"

refused() {	# refused DESC REASON-ERE ARGS...
	desc=$1 re=$2; shift 2
	run S renew claude "$@"
	is $rc 1 "$desc: exit 1"
	like "$err" "^session-store: fatal: $re" "$desc: reason"
	unchanged; ok $? "$desc: stored sign-in unchanged"
}
claude_signin tokA $((t + 9000)) >"$TMP/other"
refused "another account" "renewal refused: it names another account" --from "$TMP/other" --account-from "$TMP/acct2"
claude_signin tokO $((t + 1800)) >"$TMP/older"
refused "older token" "renewal refused: it does not expire later than the stored one" --from "$TMP/older" --account-from "$TMP/acct"
refused "same expiry" "renewal refused: it does not expire later" --from "$TMP/c1" --account-from "$TMP/acct"
claude_signin tokP $((t - 60)) >"$TMP/past"
S put cpast --agent claude --account-from "$TMP/acct" <"$TMP/past" 2>/dev/null
refused "already expired" "renewal refused: it has already expired" --from "$TMP/past" --account-from "$TMP/acct"
claude_signin tokF $((t + 400 * 86400)) >"$TMP/far"
refused "absurd expiry (400 days)" "renewal refused: its expiry is implausibly far off" --from "$TMP/far" --account-from "$TMP/acct"
printf '{"claudeAiOauth":{"accessToken":"x","expiresAt":99999999999999999999999}}' >"$TMP/huge"
refused "absurd expiry (overflow)" "renewal refused: expiry: expiry is not a whole" --from "$TMP/huge" --account-from "$TMP/acct"
printf '{"claudeAiOauth":{"accessToken":"x","expiresAt":' >"$TMP/malformed"
refused "malformed JSON" "renewal refused: expiry: malformed JSON" --from "$TMP/malformed" --account-from "$TMP/acct"
printf '{"claudeAiOauth":{"accessToken":"x","expiresAt":"%s"}}' $((t + 7300)) >"$TMP/strexp"
refused "expiry as a string" "renewal refused: expiry: expiry is not a whole" --from "$TMP/strexp" --account-from "$TMP/acct"
printf '{"claudeAiOauth":{"expiresAt":%s000,"expiresAt":%s000}}' $((t + 7300)) $((t + 7400)) >"$TMP/dup"
refused "duplicate key" "renewal refused: expiry: nothing at" --from "$TMP/dup" --account-from "$TMP/acct"
printf '{"oauthAccount":{"accountUuid":' >"$TMP/badacct"
claude_signin tok2 $((t + 7300)) >"$TMP/c2"
refused "malformed account file" "renewal refused: account: malformed JSON" --from "$TMP/c2" --account-from "$TMP/badacct"
refused "no account file" "renewal refused: the account is in .claude.json" --from "$TMP/c2"
ln -s "$TMP/c2" "$TMP/c2link"
run S renew claude --from "$TMP/c2link" --account-from "$TMP/acct"
is $rc 2 "--from a symlink refused"
unchanged; ok $? "symlink: unchanged"
head -c 52428800 /dev/zero | tr '\0' ' ' >"$TMP/big"
run "$TR" -o "$TMP/rss" rss -- "$SS" --store "$st" renew claude --from "$TMP/big" --account-from "$TMP/acct"
is $rc 1 "50 MiB sign-in refused"
like "$err" "the renewed sign-in: larger than 1048576 bytes" "50 MiB: message"
rss=$(awk '{print $2}' "$TMP/rss")
"$TR" -o "$TMP/rss0" rss -- "$SS" --store "$st" renew claude --from "$TMP/older" --account-from "$TMP/acct" 2>/dev/null
rss0=$(awk '{print $2}' "$TMP/rss0")
[ "$rss" -lt $((rss0 + 2048)) ]; ok $? "50 MiB file: peak RSS ${rss} KiB, within 2 MiB of a small renewal's ${rss0} KiB"
run "$TR" -o "$TMP/rss" rss -- "$SS" --store "$st" renew claude --from-fd 0 --account-from "$TMP/acct" <"$TMP/big"
is $rc 1 "50 MiB on a descriptor refused"
run sh -c 'cat "$0" | "$1" --store "$2" renew claude --from-fd 0 --account-from "$3"' "$TMP/big" "$SS" "$st" "$TMP/acct"
is $rc 1 "50 MiB through a pipe refused"
unchanged; ok $? "50 MiB: unchanged"
run S renew github --from "$TMP/c2"
is $rc 1 "renew of a missing credential: exit 1"
printf 'opaque' | S put opaque
run S renew opaque --from "$TMP/c2"
is $rc 1 "renew of an opaque secret refused"
like "$err" "stored without --agent" "opaque: reason"
run S renew claude --from "$TMP/c2" --from-fd 0
is $rc 2 "--from and --from-fd together: usage"

# --from-fd and --account-fd, as home-stage passes them
run sh -c 'exec "$0" --store "$1" renew claude --from-fd 0 --account-fd 3 <"$2" 3<"$3"' "$SS" "$st" "$TMP/c2" "$TMP/acct"
ok $rc "renew by descriptors"
cp "$st/creds/claude" "$TMP/stored0"

# codex: expiry inside the access token; gemini: account inside the id token
codex_signin acc-1 $((t + 3600)) | S put codex --agent codex
codex_signin acc-1 $((t + 7200)) >"$TMP/x1"
run S renew codex --from "$TMP/x1"
ok $rc "codex: later access token taken"
codex_signin acc-2 $((t + 9000)) >"$TMP/x2"
run S renew codex --from "$TMP/x2"
is $rc 1 "codex: another account_id refused"
gemini_signin 1099 $((t + 1800)) | S put gemini --agent gemini
gemini_signin 1099 $((t + 3600)) >"$TMP/g1"
run S renew gemini --from "$TMP/g1"
ok $rc "gemini: later expiry_date taken"
gemini_signin 2000 $((t + 5000)) >"$TMP/g2"
run S renew gemini --from "$TMP/g2"
is $rc 1 "gemini: another id_token sub refused"

# A profile file can override: a tighter max_ahead
printf '{"claude":{"signin":".claude/.credentials.json","expiry":{"pointer":"/claudeAiOauth/expiresAt","unit":"ms"},"account":{"file":".claude.json","pointer":"/oauthAccount/accountUuid"},"max_ahead":600}}' >"$TMP/prof.json"
claude_signin tok3 $((t + 7400)) >"$TMP/c3"
run "$SS" --store "$st" --profiles "$TMP/prof.json" renew claude --from "$TMP/c3" --account-from "$TMP/acct"
is $rc 1 "--profiles max_ahead 600 refuses a 2 h token"
run S renew claude --from "$TMP/c3" --account-from "$TMP/acct"
ok $rc "the default accepts it"
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
		claude_signin "tok$off" $((t + off)) >"$TMP/r$i"
		[ "$off" -gt "$best" ] && best=$off
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 16 ]; do
		"$SS" --store "$st" renew pc --from "$TMP/r$i" --account-from "$TMP/acct" 2>/dev/null &
		i=$((i + 1))
	done
	wait
	is "$(tail -n +2 "$st/creds/pc")" "$(claude_signin "tok$best" $((t + best)))" "round $round: 16 parallel renewals, the newest (+$best s) is stored, whole"
	is "$(head -n 1 "$st/creds/pc")" '{"v":1,"agent":"claude","account":"u-1"}' "round $round: header intact"
	is "$(ls -A "$st/creds" | grep -c tmp)" 0 "round $round: no temp file left"
done
done_testing
