#!/bin/sh
# session-store renew takes a renewed sign-in back only as a whole: the
# provider names the stored account for its access token, and nothing else
# differs from the stored sign-in but that token and the expiry (and, for
# gemini, an id token that still names the account). The attack: the
# victim's valid access token kept, the attacker's refresh token written in,
# an expiry 80 days out; the user's CLI would refresh into the attacker's
# account. Refused for claude and gemini, root and nobody; controls: a
# genuine renewal of each is taken.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
provider_start; status_ok $? "fake provider on 127.0.0.1:$PORT"
t=$(now)
provider_token tokV u-1
provider_token tokV2 u-1
provider_token ya29.x 1099

for who in root nobody; do
	st=$TMP/$who/store
	mkdir -p "$TMP/$who"
	if [ $who = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; nobody_dir "$TMP/$who"; fi
	S() { $AS "$SS" --store "$st" $PV "$@"; }
	R() {	# R NAME FILE: renew NAME from FILE
		run sh -c 'exec "$@" <"$0"' "$2" $AS "$SS" --store "$st" $PV renew "$1" --from-fd 0
	}
	keep() { cp "$st/creds/$1" "$TMP/$who/$1.kept"; }
	kept() { cmp -s "$st/creds/$1" "$TMP/$who/$1.kept"; }

	# claude
	claude_account u-1 >"$TMP/$who/acct"
	claude_signin tokV $((t + 3600)) >"$TMP/$who/c0"
	chmod 0644 "$TMP/$who/acct" "$TMP/$who/c0"
	run sh -c 'exec "$@" <"$0"' "$TMP/$who/c0" $AS "$SS" --store "$st" $PV put claude --agent claude --account-from "$TMP/$who/acct"
	is "$rc" 0 "$who: claude: stored"
	keep claude
	claude_signin tokV $((t + 80 * 86400)) rt-attacker >"$TMP/$who/atk"
	R claude "$TMP/$who/atk"
	is "$rc:$err" "1:session-store: fatal: renewed sign-in claude not taken back: its /claudeAiOauth/refreshToken differs from the stored sign-in's, and only the access token and the expiry may change (the provider proves nothing else: a new refresh token could be anyone's); the stored sign-in stays
session-store: hint: to sign in again, sign in with claude outside corral, then: session-store put claude --agent claude --account-from ~/.claude.json < ~/.claude/.credentials.json" \
	    "$who: claude: the victim's access token with the attacker's refresh token and an expiry 80 days out: refused, naming the field"
	kept claude; status_ok $? "$who: claude: the stored sign-in is untouched"
	claude_signin tokV $((t + 7200)) | sed 's/"max"/"pro"/' >"$TMP/$who/sub"
	R claude "$TMP/$who/sub"
	like "$rc:$err" "^1:.*its /claudeAiOauth/subscriptionType differs" "$who: claude: any other field changed: refused"
	claude_signin tokV $((t + 7200)) | sed 's/}}$/,"extra":1}}/' >"$TMP/$who/more"
	R claude "$TMP/$who/more"
	like "$rc:$err" "^1:.*its /claudeAiOauth differs" "$who: claude: a field added: refused"
	kept claude; status_ok $? "$who: claude: still untouched"
	claude_signin tokV2 $((t + 7200)) >"$TMP/$who/c1"
	R claude "$TMP/$who/c1"
	is "$rc:$err" "0:" "$who: claude: control: a new access token of the account, a later expiry, the rest as stored: taken"
	is "$(tail -n +2 "$st/creds/claude")" "$(cat "$TMP/$who/c1")" "$who: claude: control: the store holds it"

	# gemini: the account is the id token's sub
	gemini_signin 1099 $((t + 1800)) >"$TMP/$who/g0"
	chmod 0644 "$TMP/$who/g0"
	run sh -c 'exec "$@" <"$0"' "$TMP/$who/g0" $AS "$SS" --store "$st" $PV put gemini --agent gemini
	is "$rc" 0 "$who: gemini: stored"
	keep gemini
	gemini_signin 1099 $((t + 80 * 86400)) | sed 's|"1//r"|"1//attacker"|' >"$TMP/$who/gatk"
	R gemini "$TMP/$who/gatk"
	like "$rc:$err" "^1:session-store: fatal: renewed sign-in gemini not taken back: its /refresh_token differs from the stored sign-in's" \
	    "$who: gemini: the victim's access token with the attacker's refresh token, 80 days: refused"
	kept gemini; status_ok $? "$who: gemini: the stored sign-in is untouched"
	gemini_signin 2000 $((t + 3600)) >"$TMP/$who/gid"
	R gemini "$TMP/$who/gid"
	like "$rc:$err" "^1:.*its /id_token differs" "$who: gemini: an id token naming another account: refused"
	gemini_signin 1099 $((t + 3600)) | sed 's|"Bearer"|"Mac"|' >"$TMP/$who/gtt"
	R gemini "$TMP/$who/gtt"
	like "$rc:$err" "^1:.*its /token_type differs" "$who: gemini: any other field changed: refused"
	kept gemini; status_ok $? "$who: gemini: still untouched"
	gemini_signin 1099 $((t + 3600)) | sed 's|"email":"a@example.com"|"email":"b@example.com"|' >"$TMP/$who/g1"
	R gemini "$TMP/$who/g1"
	is "$rc:$err" "0:" "$who: gemini: control: a later expiry and a new id token of the same account: taken"
done
done_testing
