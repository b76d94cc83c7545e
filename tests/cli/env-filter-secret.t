#!/bin/sh
# env-filter: values kept from the caller that look like secrets are dropped,
# with a warning naming the variable and never the value.
. "$CORRAL_TOP/tests/lib/tap.sh"
EF=$CORRAL_BIN/env-filter
D=$T/helpers/dumpenv
umask 077
hint="env-filter: hint: pass a credential the program needs with -f FILE or -F FD"

gh=ghp_abcdefghijABCDEFGHIJ0123456789abcd
jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlc2lnbmF0dXJl
pem="-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASC
-----END PRIVATE KEY-----"
aws=AKIAIOSFODNN7EXAMPLE
sk=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345
slack=xoxb-1234567890-abcdefghijkl
rnd=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY

# check NAME VALUE SHAPE: -k NAME drops it, warns by name, no value anywhere
check() {
	run env -i "$1=$2" KEPT=yes "$EF" -k "$1" -k KEPT -- "$D"
	is "$rc:$out" "0:KEPT=yes" "-k $1 ($3): dropped, the program still runs"
	is "$err" "env-filter: warning: $1 dropped: its value has the shape of a secret ($3)
$hint" "-k $1: the warning names it and the shape"
	case $err in *"$2"*) status_ok 1 "-k $1: value in the warning" ;; *) status_ok 0 "-k $1: no value in the warning" ;; esac
}
check GH_TOKEN "$gh" "GitHub token"
check ID_TOKEN "$jwt" "JWT"
check KEY "$pem" "PEM block"
check AWS_ACCESS_KEY_ID "$aws" "AWS access key"
check ANTHROPIC_API_KEY "$sk" "secret API key (sk-)"
check SLACK "$slack" "Slack token"
check AWS_SECRET_ACCESS_KEY "$rnd" "long random string"

# baseline names are scanned too
run env -i PATH=/usr/bin:/bin USER="$gh" TERM="$jwt" HOME=/h "$EF" --baseline -- "$D"
is "$rc:$out" "0:PATH=/usr/bin:/bin
HOME=/h" "--baseline drops secret-shaped USER and TERM"
is "$err" "env-filter: warning: USER dropped: its value has the shape of a secret (GitHub token)
env-filter: warning: TERM dropped: its value has the shape of a secret (JWT)
$hint" "one warning each, by name"

# the run's own values pass: -s, -f, -F, -p
printf 'F_TOKEN=%s\n' "$gh" >"$TMP/t.env"
printf 'FD_TOKEN=%s\n' "$jwt" >"$TMP/t2.env"
run env -i "$EF" -s S_TOKEN="$sk" -f "$TMP/t.env" -F 3 -p P_KEY="$aws" -- "$D" 3<"$TMP/t2.env"
is "$rc:$err" "0:" "-s -f -F -p values: no warning"
is "$out" "S_TOKEN=$sk
F_TOKEN=$gh
FD_TOKEN=$jwt
P_KEY=$aws" "-s -f -F -p values: passed as given"

# a dropped -k leaves an earlier value for the name
run env -i GH_TOKEN="$gh" "$EF" -s GH_TOKEN=placeholder -k GH_TOKEN -- "$D"
is "$out" "GH_TOKEN=placeholder" "-k of a secret keeps the earlier -s"

# ordinary values pass
run env -i PATH=/home/u/.local/bin:/usr/local/bin:/usr/bin:/bin LANG=en_US.UTF-8 TZ=Europe/Berlin \
	TERM=xterm-256color SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt "$EF" --baseline -- "$D"
is "$rc:$err" "0:" "ordinary baseline values: no warning"

done_testing
