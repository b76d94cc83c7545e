# session-store.sh: shared set-up for the session-store and home-stage tests.
# Source after tap.sh.
SS=$CORRAL_BIN/session-store
HS=$CORRAL_BIN/home-stage
TR=$T/helpers/store-trace

now() { date +%s; }
b64url() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
jwt() { printf '%s.%s.c2ln' "$(b64url '{"alg":"RS256","typ":"JWT"}')" "$(b64url "$1")"; }
# claude_signin TOKEN EXPIRY_SECONDS [REFRESH]: a .credentials.json as Claude Code
# writes it (a renewal keeps the refresh token: session-store takes no other)
claude_signin() {
	printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s","expiresAt":%s000,"scopes":["user:inference","user:profile"],"subscriptionType":"max","rateLimitTier":null,"clientId":"9d1c250a"}}' "$1" "${3:-rt-1}" "$2"
}
# claude_account UUID: the part of ~/.claude.json that names the account
claude_account() {
	printf '{"numStartups":3,"oauthAccount":{"accountUuid":"%s","emailAddress":"a@example.com","organizationUuid":"o-1"}}' "$1"
}
# codex_signin ACCOUNT_ID EXPIRY_SECONDS
codex_signin() {
	printf '{"OPENAI_API_KEY":null,"tokens":{"id_token":"%s","access_token":"%s","refresh_token":"rt","account_id":"%s"},"last_refresh":"2026-01-01T00:00:00Z"}' \
		"$(jwt '{"email":"a@example.com"}')" "$(jwt "{\"exp\":$2,\"sub\":\"x\"}")" "$1"
}
# gemini_signin SUB EXPIRY_SECONDS
gemini_signin() {
	printf '{"access_token":"ya29.x","refresh_token":"1//r","scope":"openid","token_type":"Bearer","id_token":"%s","expiry_date":%s000}' \
		"$(jwt "{\"sub\":\"$1\",\"email\":\"a@example.com\"}")" "$2"
}
# a directory owned by nobody, for tests run as nobody
nobody_dir() { mkdir -p "$1" && chown nobody:nogroup "$1" && chmod 0700 "$1"; }
