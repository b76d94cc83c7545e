#!/bin/sh
# corral's "network" modes: the policy, what explain and doctor say, and
# corral run end to end (as root, in a network and mount namespace the test
# makes: metadata on lo, a "remote" host behind a veth pair, names from a
# private /etc/hosts; never a packet off this machine).
if [ -z "${CORRAL_NET_NS:-}" ] && [ "$(id -u)" -eq 0 ] && unshare -n -m true 2>/dev/null; then
	CORRAL_NET_NS=1 exec unshare -n -m sh "$0" "$@"
fi
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
N=$CORRAL_TOP/tests/helpers/ipnet.py
PY=/usr/bin/python3
H=$TMP/home
W=$TMP/ws
mkdir -p "$H" "$W" "$TMP/state"
E="env -i HOME=$H PATH=/usr/bin:/bin XDG_STATE_HOME=$TMP/state"
trap 'for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
pol() { printf '%s\n' "$2" >"$TMP/$1.json"; }

# --- the policy
pol bad1 '{"network": {"connect": [443], "allow": ["a.test"]}}'
run $E "$C" policy check "$TMP/bad1.json"
like "$err" '"network" takes one of "connect", "allow" and "mode"' "connect and allow together: refused"
pol bad2 '{"network": {"allow": ["a..b"]}}'
run $E "$C" policy check "$TMP/bad2.json"
like "$err" '"network.allow": "a..b" is not a host name, "\*.NAME" or an IP address' "a bad name: refused"
pol bad3 '{"network": {"mode": "none", "allow_loopback": [5432]}}'
run $E "$C" policy check "$TMP/bad3.json"
like "$err" '"network" "none" takes no "deny_private" or "allow_loopback"' "none with address keys: refused"
pol bad4 '{"network": {"allow": []}}'
run $E "$C" policy check "$TMP/bad4.json"
like "$err" '"network.allow" is empty' "an empty allowlist: refused"
pol bad5 '{"network": {"bind": [3000]}}'
run $E "$C" policy check "$TMP/bad5.json"
like "$err" '"network.bind" needs "connect"' "bind without connect: refused"

# --- explain: the mapping onto confine and env-filter
run $E "$C" explain -w "$W" -- true
like "$out" " --filter-ip " "default (open): confine --filter-ip"
pol lo '{"network": {"deny_private": true, "allow_loopback": [5432]}}'
run $E "$C" explain -p "$TMP/lo.json" -w "$W" -- true
like "$out" " --filter-ip --deny-private --loopback 5432 " "open with deny_private and allow_loopback"
pol unf '{"network": "open-unfiltered"}'
run $E "$C" explain -p "$TMP/unf.json" -w "$W" -- true
like "$out" "# warning: \"network\": \"open-unfiltered\"" "open-unfiltered: explain warns"
unlike "$out" "--filter-ip|--no-remote" "... and confine has no address rules"
pol allow '{"network": {"allow": ["allowed.test", "*.wild.test"]}}'
run $E "$C" explain -p "$TMP/allow.json" -w "$W" -- true
like "$out" "^$CORRAL_BIN/egress-proxy --audit '$TMP/state/corral/audit/'\"\\\$ATTEMPT\"'.jsonl' --allow allowed.test --allow '\\*.wild.test' </dev/null > " \
    "allow: egress-proxy, with the attempt's audit log"
like "$out" " --proxy \"\\\$EGRESS_PORT\" " "allow: env-filter pins the proxy variables"
like "$out" " --no-remote --loopback \"\\\$EGRESS_PORT\" " "allow: confine reaches only the proxy"
run $E "$C" doctor -p "$TMP/unf.json"
like "$out" "warning: \"network\": \"open-unfiltered\"" "open-unfiltered: doctor warns"
run $E "$C" doctor
like "$out" "network +open \\(no cloud metadata, no outside loopback service\\)" "doctor: open says what it keeps out"

if [ -z "${CORRAL_NET_NS:-}" ]; then
	diag "not root or no network namespace: corral run end to end skipped (it needs addresses only a namespace of the test's own may hold)"
	done_testing
	exit
fi

# --- the namespace
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
unshare -n sleep 3600 &
B=$!
echo $B >>"$TMP/pids"
while [ "$(readlink /proc/$B/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
ip link add v0 type veth peer name v1 netns "$B"
ip addr add 198.51.100.1/24 dev v0
ip link set v0 up
nsenter -t "$B" -n sh -c 'ip link set lo up && ip link set v1 up && ip addr add 198.51.100.10/24 dev v1'
mkdir -p "$TMP/www"
echo "hello from remote" >"$TMP/www/hello"
nsenter -t "$B" -n "$PY" -m http.server --bind 198.51.100.10 --directory "$TMP/www" 80 >/dev/null 2>&1 &
echo $! >>"$TMP/pids"
"$PY" "$N" serve 169.254.169.254 80 127.0.0.1 47011 127.0.0.1 47012 >"$TMP/srv" 2>&1 &
echo $! >>"$TMP/pids"
until grep -q ready "$TMP/srv" 2>/dev/null && curl -s -o /dev/null http://198.51.100.10/hello; do sleep 0.1; done
printf '127.0.0.1 localhost\n198.51.100.10 allowed.test\n169.254.169.254 meta.test\n' >"$TMP/hosts"
mount --bind "$TMP/hosts" /etc/hosts

R() { (cd "$W" && $E "$C" run "$@"); }
pol dflt "{\"read\": [\"$CORRAL_TOP/tests/helpers\"]}"
run R -p "$TMP/dflt.json" -- "$PY" "$N" tcp 169.254.169.254 80
is "$out" EACCES "run, default policy: metadata refused"
run "$PY" "$N" tcp 169.254.169.254 80
is "$out" ok:169.254.169.254 "control: metadata answers outside"
run R -p "$TMP/dflt.json" -- "$PY" "$N" tcp 127.0.0.1 47011
is "$out" EACCES "run, default policy: an outside loopback service refused"
run R -p "$TMP/dflt.json" -- "$PY" "$N" own
is "$out" ok:hi "run, default policy: the agent's own server is reachable"
run R -p "$TMP/dflt.json" -- curl -s http://198.51.100.10/hello
is "$out" "hello from remote" "run, default policy: a remote host is reachable"
pol al "{\"read\": [\"$CORRAL_TOP/tests/helpers\"], \"network\": {\"allow_loopback\": [47012]}}"
run R -p "$TMP/al.json" -- "$PY" "$N" tcp 127.0.0.1 47012
is "$out" ok:127.0.0.1 "run, allow_loopback 47012: that service answers"
run R -p "$TMP/al.json" -- "$PY" "$N" tcp 127.0.0.1 47011
is "$out" EACCES "... another one still refused"
pol unf2 "{\"read\": [\"$CORRAL_TOP/tests/helpers\"], \"network\": \"open-unfiltered\"}"
run R -p "$TMP/unf2.json" -- "$PY" "$N" tcp 127.0.0.1 47011
is "$out" ok:127.0.0.1 "run, open-unfiltered: the old open network"
pol allow2 "{\"read\": [\"$CORRAL_TOP/tests/helpers\"], \"network\": {\"allow\": [\"allowed.test\", \"meta.test\"]}}"
run R -p "$TMP/allow2.json" -- curl -s http://allowed.test/hello
is "$rc:$out" "0:hello from remote" "run, allow: a listed name through corral's egress-proxy"
run R -p "$TMP/allow2.json" -- curl -s http://meta.test/
is "$out" "egress-proxy: meta.test resolves to a blocked address (metadata)" "run, allow: a listed name resolving to metadata: 403"
run R -p "$TMP/allow2.json" -- curl -s -o /dev/null -w '%{http_code}' http://other.test/
is "$out" 403 "run, allow: an unlisted name: 403"
run R -p "$TMP/allow2.json" -- "$PY" "$N" tcp 198.51.100.10 80
is "$out" EACCES "run, allow: a direct connect is refused"
run R -p "$TMP/allow2.json" -- sh -c 'echo "$HTTPS_PROXY|$HTTP_PROXY|$https_proxy|$http_proxy|${NO_PROXY-unset}|${no_proxy-unset}"'
like "$out" '^http://127\.0\.0\.1:([0-9]+)\|http://127\.0\.0\.1:\1\|http://127\.0\.0\.1:\1\|http://127\.0\.0\.1:\1\|\|$' \
    "run, allow: the proxy variables are pinned, NO_PROXY empty"
A=$(cat "$TMP"/state/corral/audit/*.jsonl)
like "$A" '"step":"egress-proxy","allow":\["allowed.test","meta.test"\],"port":"[0-9]+"' "audit: the proxy's start"
like "$A" '"step":"egress","host":"allowed.test","port":80,"decision":"allow"' "audit: the proxy's decisions, in the attempt's log"
run sh -c "ps -eo args | grep -c '^$CORRAL_BIN/egress-proxy'"
is "$out" 0 "no egress-proxy outlives its attempt"
done_testing
