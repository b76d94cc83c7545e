#!/bin/sh
# session-store: put and release, at most once per attempt, also in parallel.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
st=$TMP/store
S() { "$SS" --store "$st" "$@"; }

printf 'mcp-token-%s' "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$TMP/secret"
run S put github <"$TMP/secret"
status_ok $rc "put from stdin"
is "$(stat -c %a "$st/creds/github")" 600 "stored 0600"
is "$err" "" "put prints nothing"
run S put github "$(cat "$TMP/secret")"
is $rc 2 "a secret in argv is refused (usage)"
run S put github </dev/null
is $rc 1 "empty secret refused"
like "$err" "^session-store: fatal: the secret on stdin is empty" "empty: message"
run S put ../x <"$TMP/secret"
is $rc 2 "bad credential name refused"

id=$(S begin --agent claude)
run S release github --attempt "$id"
status_ok $rc "release exits 0"
is "$out" "$(cat "$TMP/secret")" "release writes exactly the secret"
run S release github --attempt "$id"
is $rc 1 "second release for the attempt refused: exit 1"
like "$err" "^session-store: fatal: release refused: github was already released for attempt $id\$" "second release: message"
is "$out" "" "second release wrote nothing"
unlike "$err" "$(cat "$TMP/secret")" "the secret is never in an error"

id2=$(S begin --agent claude)
run sh -c 'exec "$@" 7>"$0"' "$TMP/fd7" "$SS" --store "$st" release github --attempt "$id2" --fd 7
status_ok $rc "release --fd"
is "$(cat "$TMP/fd7")" "$(cat "$TMP/secret")" "release --fd writes to that descriptor"
is "$out" "" "release --fd: nothing on stdout"
run S release github --attempt "$(S begin --agent claude)" --fd 9
is $rc 2 "release --fd of a closed descriptor: exit 2"
run S release nope --attempt "$(S begin --agent claude)"
is $rc 1 "release of an unknown credential: exit 1"
run S release github --attempt 0123456789abcdef0123456789abcdef
is $rc 1 "release for an unknown attempt: exit 1"
id3=$(S begin --agent claude)
S end "$id3" --status 0
run S release github --attempt "$id3"
is $rc 1 "release for an ended attempt refused"
like "$err" "attempt $id3 has ended" "ended: message"

# Many concurrent releases for one attempt: exactly one success.
for round in 1 2 3; do
	idp=$(S begin --agent claude)
	mkdir "$TMP/par$round"
	i=0
	while [ $i -lt 24 ]; do
		( "$SS" --store "$st" release github --attempt "$idp" >"$TMP/par$round/out$i" 2>/dev/null
		  echo $? >"$TMP/par$round/rc$i" ) &
		i=$((i + 1))
	done
	wait
	wins=$(cat "$TMP/par$round"/rc* | grep -c '^0$')
	refusals=$(cat "$TMP/par$round"/rc* | grep -c '^1$')
	is "$wins $refusals" "1 23" "round $round: 24 parallel releases, exactly one success, 23 refusals"
	nonempty=$(find "$TMP/par$round" -name 'out*' -size +0 | wc -l)
	is "$nonempty" 1 "round $round: the secret went out once"
done

# The same credential for different attempts is released once each.
a=$(S release github --attempt "$(S begin --agent claude)")
b=$(S release github --attempt "$(S begin --agent claude)")
[ "$a" = "$b" ] && [ -n "$a" ]; status_ok $? "each attempt gets its one release"

# Sign-ins: put --agent checks what it stores.
t=$(now)
claude_signin tok1 $((t + 3600)) >"$TMP/c1"
claude_account u-1 >"$TMP/acct"
run S put claude --agent claude --account-from "$TMP/acct" <"$TMP/c1"
status_ok $rc "put --agent claude with its account file"
# a heavy user's ~/.claude.json is large: 2 MiB of project history is fine
{ printf '{"projects":{"p":"'; head -c 2097152 /dev/zero | tr '\0' 'h'; printf '"},"oauthAccount":{"accountUuid":"u-1"}}'; } >"$TMP/bigacct"
run S put claudebig --agent claude --account-from "$TMP/bigacct" <"$TMP/c1"
status_ok $rc "put with a 2 MiB account file"
run S put claude2 --agent claude <"$TMP/c1"
is $rc 1 "claude sign-in without the account file refused"
like "$err" "the account is in .claude.json" "names the account file"
printf '{"claudeAiOauth":' >"$TMP/bad"
run S put claude3 --agent claude --account-from "$TMP/acct" <"$TMP/bad"
is $rc 1 "malformed sign-in refused at put"
like "$err" "^session-store: fatal: sign-in: expiry: malformed JSON" "malformed: message"
run S put x --agent nosuch <"$TMP/c1"
is $rc 2 "unknown agent: exit 2"
codex_signin acc-1 $((t + 3600)) | S put codex --agent codex
status_ok $? "put --agent codex (expiry from the JWT)"
gemini_signin 1099 $((t + 3600)) | S put gemini --agent gemini
status_ok $? "put --agent gemini"
id4=$(S begin --agent claude)
run S release claude --attempt "$id4"
is "$out" "$(cat "$TMP/c1")" "a sign-in is released without the store's header"

# 50 MiB on stdin: refused, with bounded memory.
head -c 52428800 /dev/zero | tr '\0' 'a' >"$TMP/big"
run "$TR" -o "$TMP/rss" rss -- "$SS" --store "$st" put big <"$TMP/big"
is $rc 1 "50 MiB secret refused"
like "$err" "larger than 1048576 bytes" "50 MiB: message"
rss=$(awk '{print $2}' "$TMP/rss")
"$TR" -o "$TMP/rss0" rss -- "$SS" --store "$st" put small <"$TMP/secret"
rss0=$(awk '{print $2}' "$TMP/rss0")
[ "$rss" -lt $((rss0 + 2048)) ]; status_ok $? "50 MiB: peak RSS ${rss} KiB, within 2 MiB of a small put's ${rss0} KiB"
run sh -c 'cat "$0" | "$1" --store "$2" put big' "$TMP/big" "$SS" "$st"
is $rc 1 "50 MiB through a pipe refused too"
[ ! -e "$st/creds/big" ]; status_ok $? "nothing stored"

# as nobody
nobody_dir "$TMP/nb"
run as_nobody sh -c '"$0" --store "$1" put tok <"$2"' "$SS" "$TMP/nb/st" "$TMP/secret"
status_ok $rc "nobody: put"
nid=$(as_nobody "$SS" --store "$TMP/nb/st" begin --agent claude)
run as_nobody "$SS" --store "$TMP/nb/st" release tok --attempt "$nid"
is "$out" "$(cat "$TMP/secret")" "nobody: release"
run as_nobody "$SS" --store "$TMP/nb/st" release tok --attempt "$nid"
is $rc 1 "nobody: second release refused"
run as_nobody "$SS" --store "$st" release github --attempt "$id4"
is $rc 2 "nobody cannot reach root's store"
done_testing
