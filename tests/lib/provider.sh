# provider.sh: a fake sign-in provider over TLS on 127.0.0.1, with a test
# CA made here, and the profiles that point the agents' verification
# requests at it. Source after tap.sh and session-store.sh.
#   provider_start        CA, certificate for localhost, the server; sets
#                         PORT, CA, PROF (a --profiles file), PV (the
#                         session-store/home-stage options: --profiles, --test-cacert)
#   provider_token T A    the provider knows token T as account A
#   provider_log          what it was asked (JSON lines)
PV_DIR=$TMP/provider
provider_start() {
	mkdir -p "$PV_DIR"
	chmod 0755 "$PV_DIR"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PV_DIR/ca.key" -out "$PV_DIR/ca.pem" -days 2 \
		-subj /CN=corral-test-provider-ca 2>/dev/null &&
	openssl req -newkey rsa:2048 -nodes -keyout "$PV_DIR/srv.key" -out "$PV_DIR/srv.csr" -subj /CN=localhost 2>/dev/null &&
	printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$PV_DIR/srv.ext" &&
	openssl x509 -req -in "$PV_DIR/srv.csr" -CA "$PV_DIR/ca.pem" -CAkey "$PV_DIR/ca.key" -CAcreateserial \
		-out "$PV_DIR/srv.pem" -days 2 -extfile "$PV_DIR/srv.ext" 2>/dev/null || return 1
	chmod 0644 "$PV_DIR/ca.pem"
	: >"$PV_DIR/tokens"
	: >"$PV_DIR/log"
	python3 "$CORRAL_TOP/tests/helpers/fake-provider.py" "$PV_DIR/port" "$PV_DIR/log" \
		"$PV_DIR/srv.key" "$PV_DIR/srv.pem" "$PV_DIR/tokens" &
	PV_PID=$!
	trap 'kill $PV_PID 2>/dev/null; rm -rf "$TMP"' EXIT
	i=0
	while [ ! -s "$PV_DIR/port" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	PORT=$(cat "$PV_DIR/port") || return 1
	CA=$PV_DIR/ca.pem
	PROF=$PV_DIR/profiles.json
	provider_profiles "https://localhost:$PORT" >"$PROF"
	chmod 0644 "$PROF" "$PV_DIR/log"
	PV="--profiles $PROF --test-cacert $CA"
}
# provider_profiles BASE: claude, codex and gemini asking BASE
provider_profiles() {
	cat <<J
{
 "claude": {"signin": ".claude/.credentials.json",
  "expiry": {"pointer": "/claudeAiOauth/expiresAt", "unit": "ms"},
  "account": {"file": ".claude.json", "pointer": "/oauthAccount/accountUuid"},
  "verify": {"url": "$1/profile", "method": "GET", "token": "/claudeAiOauth/accessToken",
   "auth": "bearer", "headers": ["anthropic-beta: oauth-2025-04-20"], "account": "/account/uuid"},
  "full_setup": [".claude"]},
 "codex": {"signin": ".codex/auth.json",
  "expiry": {"pointer": "/tokens/access_token", "jwt": "/exp", "unit": "s"},
  "account": {"pointer": "/tokens/account_id"},
  "verify": {"url": "$1/keyed", "method": "POST", "token": "/tokens/access_token",
   "auth": "header X-Api-Key", "account": "/account/uuid"},
  "full_setup": [".codex"]},
 "gemini": {"signin": ".gemini/oauth_creds.json",
  "expiry": {"pointer": "/expiry_date", "unit": "ms"},
  "account": {"pointer": "/id_token", "jwt": "/sub"},
  "verify": {"url": "$1/userinfo", "method": "GET", "token": "/access_token", "auth": "bearer", "account": "/sub"},
  "full_setup": [".gemini"]}
}
J
}
provider_token() { printf '%s %s\n' "$1" "$2" >>"$PV_DIR/tokens"; }
provider_log() { cat "$PV_DIR/log"; }
