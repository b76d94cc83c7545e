#!/bin/sh
# No secret in any argv or environment during a run: every process of the
# chain is stopped at every system call and its /proc/PID/cmdline and
# /proc/PID/environ are searched for the token.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
provider_start
st=$TMP/store ws=$TMP/ws
mkdir -p "$ws"; cd "$ws"
t=$(now)
# LeakSanitizer cannot run under ptrace: in the sanitizer build a traced
# program's exit status is LSan's, so the effects are checked instead.
san() { [ "${CORRAL_MODE:-musl}" = san ]; }
tok=sk-ant-oat01-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s' "$tok" >"$TMP/secret"
claude_account u-1 >"$TMP/acct"
claude_signin "$tok" $((t + 3600)) >"$TMP/c0"

# the watch can fail: a program holding the token in argv is caught
run "$TR" -o "$TMP/w" watch "$TMP/secret" -- /bin/echo "$tok"
like "$(cat "$TMP/w")" '^leaks [1-9]' "control: a token in argv is seen"
run "$TR" -o "$TMP/w" watch "$TMP/secret" -- /bin/sh -c '/bin/echo "$(cat "$0")" >/dev/null' "$TMP/secret"
like "$(cat "$TMP/w")" '^leaks [1-9]' "control: a token in a grandchild's argv is seen"

run "$TR" -o "$TMP/w" watch "$TMP/secret" -- /bin/sh -c 'exec "$0" --store "$1" put claude --agent claude --account-from "$2" <"$3"' \
	"$SS" "$st" "$TMP/acct" "$TMP/c0"
san && rc=0; status_ok $rc "put under watch"
like "$(tail -n +2 "$st/creds/claude")" "$tok" "put under watch stored the sign-in"
like "$(cat "$TMP/w")" '^leaks 0 checks [1-9]' "put: no token in any cmdline or environ"

id=$("$SS" --store "$st" begin --agent claude --pid $$)
run "$TR" -o "$TMP/w" watch "$TMP/secret" -- /usr/bin/env -i HOME=/nonexistent "$HS" create --state "$st" --attempt "$id" --agent claude
d=$(printf '%s\n' "$out" | head -n 1)
san && [ -d "$d" ] && rc=0; status_ok $rc "create under watch"
[ -f "$d/home/.claude/.credentials.json" ]; status_ok $? "create under watch staged the sign-in"
like "$(cat "$TMP/w")" '^leaks 0 checks [1-9][0-9]' "create (and the session-store it runs): no token in any cmdline or environ"
unlike "$err" "$tok" "create: no token on stderr"

tok2=sk-ant-oat01-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s' "$tok2" >"$TMP/secret2"
provider_token "$tok2" u-1
claude_signin "$tok2" $((t + 7200)) >"$d/home/.claude/.credentials.json"
claude_account u-1 >"$d/home/.claude.json"
run "$TR" -o "$TMP/w" watch "$TMP/secret2" -- /usr/bin/env -i HOME=/nonexistent "$HS" finish $PV "$d"
san && rc=0 && out=claude; status_ok $rc "finish under watch"
is "$out" "claude" "finish took the renewed sign-in back"
like "$(tail -n +2 "$st/creds/claude")" "$tok2" "the store holds the renewed sign-in"
like "$(cat "$TMP/w")" '^leaks 0 checks [1-9][0-9]' "finish (and session-store renew, which asks the provider with it): no token in any cmdline or environ"
unlike "$err" "$tok2" "finish: no token on stderr"

# refusals never echo the token either
id=$("$SS" --store "$st" begin --agent claude --pid $$)
d=$(env -i HOME=/nonexistent "$HS" create --state "$st" --attempt "$id" --agent claude)
claude_signin "$tok2" $((t + 60)) >"$d/home/.claude/.credentials.json"
claude_account u-1 >"$d/home/.claude.json"
run env -i HOME=/nonexistent "$HS" finish $PV "$d"
is $rc 1 "an older token is refused"
unlike "$err" "$tok2|sk-ant" "refusal: no token in the messages"
printf '{"claudeAiOauth":{"accessToken":"%s",' "$tok2" >"$TMP/bad"
run "$SS" --store "$st" $PV renew claude --from "$TMP/bad"
unlike "$err" "$tok2|sk-ant" "malformed refusal: no token in the message"
claude_signin "sk-ant-unknown-$tok2" $((t + 9000)) >"$TMP/unk"
run "$SS" --store "$st" $PV renew claude --from "$TMP/unk"
like "$rc:$err" "^1:.*answered HTTP 401" "a token the provider rejects: refused"
unlike "$err" "$tok2|sk-ant" "rejected by the provider: no token in the message"
done_testing
