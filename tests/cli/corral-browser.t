#!/bin/sh
# corral's "browser": the attempt's own headless Chromium behind mcp-proxy,
# outside the agent's boundary and confined itself. The agent's side is an
# MCP client inside corral run (tests/helpers/browser-agent.py). End to end
# as root, in a network and mount namespace the test makes: a "remote" host
# behind a veth pair, metadata on lo; never a packet off this machine.
# Chromium is heavy: two browser starts in all (one run with several tool
# calls, one run whose corral is killed), under nice.
# Chromium (mk/deps --browser) and Playwright MCP (mk/npm) are fetched
# first, outside the namespace, which has no way out.
if [ -z "${CORRAL_NET_NS:-}" ] && [ "$(id -u)" -eq 0 ] && unshare -n -m true 2>/dev/null; then
	CORRAL_BROWSER_DEPS=$("$CORRAL_TOP/mk/deps" --browser 2>&1 | tail -1) &&
	CORRAL_BROWSER_NM=$("$CORRAL_TOP/mk/npm" browser @playwright/mcp@0.0.83 2>&1 | tail -1) &&
	export CORRAL_BROWSER_DEPS CORRAL_BROWSER_NM
	CORRAL_NET_NS=1 exec unshare -n -m sh "$0" "$@"
fi
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
PY=/usr/bin/python3
A=$CORRAL_TOP/tests/helpers/browser-agent.py
H=$TMP/home W=$TMP/ws ST=$TMP/state/corral
mkdir -p "$H" "$W" "$TMP/state"
chmod 0700 "$H"
E="env -i HOME=$H PATH=/usr/bin:/bin XDG_STATE_HOME=$TMP/state"
trap 'for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
pol() { printf '%s\n' "$2" >"$TMP/$1.json"; }

# --- the policy (no browser started)
pol b1 '{"browser": "yes"}'
run $E "$C" policy check "$TMP/b1.json"
like "$err" '"browser" must be true, false or an object, not a string' "a string: refused"
pol b2 '{"browser": {"tools": []}}'
run $E "$C" policy check "$TMP/b2.json"
like "$err" '"browser.tools" is empty' "an empty tool list: refused"
pol b3 '{"browser": {"package": "rel/dir"}}'
run $E "$C" policy check "$TMP/b3.json"
like "$err" '"browser.package" must be an absolute path' "a relative package: refused"
pol b4 '{"browser": {"tools": ["browser_navigate"], "bogus": 1}}'
run $E "$C" policy check "$TMP/b4.json"
is "$rc" 1 "an unknown key in \"browser\": refused"
pol b5 '{"browser": true}'
run $E "$C" policy check "$TMP/b5.json"
like "$out" '"browser": \{"tools": \["browser_navigate", "browser_navigate_back", "browser_snapshot",' "true: the default tools"
unlike "$out" 'browser_file_upload|browser_run_code_unsafe' "... which leave out file uploads and code run in the server"
pol b6 '{"browser": true, "network": {"allow": ["a.test"]}}'
run $E "$C" explain -p "$TMP/b6.json" -w "$W" -- true
like "$out" "--proxy-server=http://127.0.0.1:'\"\\\$EGRESS_PORT\"'" "with a domain allowlist: Chromium's proxy is egress-proxy"
like "$out" "--no-remote --loopback \"\\\$EGRESS_PORT\" --loopback-from \"\\\$ATTEMPT_DIR\"'/listeners' -- /usr/bin/env" "... and its broker lets nothing else remote through"
pol b7 '{"browser": true, "mcp": {"browser": {"command": ["true"], "tools": ["x"]}}}'
run $E "$C" explain -p "$TMP/b7.json" -w "$W" -- true
like "$err" 'names a server "browser"' "an MCP server named browser as well: refused"
run $E "$C" explain -w "$W" -- true
unlike "$out" "mcp-browser|chromium|--web-urls" "no \"browser\": nothing of it in the chain"

if [ -z "${CORRAL_NET_NS:-}" ]; then
	diag "not root or no network namespace: corral run with a browser skipped (it needs addresses only a namespace of the test's own may hold)"
	done_testing
	exit
fi
NM=${CORRAL_BROWSER_NM:-}
if ! command -v chromium >/dev/null 2>&1 || [ ! -f "$NM/@playwright/mcp/cli.js" ]; then
	echo "not ok $((tap_n + 1)) - chromium or Playwright MCP could not be installed: ${CORRAL_BROWSER_DEPS:-} $NM"
	exit 1
fi
PKG=$NM/@playwright/mcp
pol br "{\"read\": [\"$CORRAL_TOP/tests/helpers\"], \"browser\": {\"package\": \"$PKG\"}}"
run $E "$C" explain -p "$TMP/br.json" -w "$W" -- true
like "$out" "mcp-proxy --name=browser -a browser_navigate .* --web-urls -- $CORRAL_BIN/confine -x /usr .* -r /etc -r /proc .* -r $NM -w \"\\\$ATTEMPT_DIR\"'/browser' --dev --own-unix --filter-ip --loopback-from \"\\\$ATTEMPT_DIR\"'/listeners' -- /usr/bin/env -i -C" \
	"explain: the browser's proxy, its own confine (system trees, the package, its directory)"
unlike "$(printf '%s\n' "$out" | grep 'mcp-proxy --name=browser')" " -[rxwW] ($H|$W)( |\$)" "... nothing of the home or the workspace"
like "$out" "/usr/bin/node $PKG/cli.js --headless --no-sandbox --executable-path /usr/bin/chromium --user-data-dir" "explain: Playwright MCP drives Debian's chromium"
run sh -c "cd '$W' && $E '$C' doctor -p '$TMP/br.json'"
like "$out" "  browser  +/usr/bin/chromium driven by $PKG, outside the boundary in a confine of its own" "doctor: the browser step"
run sh -c "cd '$W' && $E '$C' doctor"
like "$out" '  browser  +off \(no "browser" in the policy: nothing of it starts\)' "doctor: no \"browser\": off"
pol bn "{\"browser\": {\"package\": \"$TMP/nowhere\"}}"
run sh -c "cd '$W' && $E '$C' doctor -p '$TMP/bn.json'"
like "$out" "  browser  +refused here: $TMP/nowhere/cli.js is not there" "doctor: a browser that cannot start here, named"
run make -s -C "$CORRAL_TOP" -o all install PREFIX="$TMP/prefix"
is "$rc" 0 "make install PREFIX=..."
run sh -c "cd '$W' && $E '$TMP/prefix/bin/corral' doctor -p '$TMP/b5.json'"
like "$out" "  browser  +/usr/bin/chromium driven by $TMP/prefix/libexec/corral/browser/node_modules/@playwright/mcp," \
	"... installs Playwright MCP beside the steps, where an installed corral finds it (\"browser\": true)"
is "$(find "$TMP/prefix/libexec/corral/browser" -type l | wc -l):$(find "$TMP/prefix/libexec/corral/browser" -perm /022 | wc -l)" 0:0 "... no symbolic link into the build, nothing writable by others"

# --- the namespace: a remote host, metadata, an outside loopback service
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
pol b8 "{\"browser\": {\"package\": \"$TMP/nowhere\"}}"
run sh -c "cd '$W' && exec $E '$C' run -p '$TMP/b8.json' -- true"
is "$rc" 125 "no package there: corral run refuses"
like "$err" "corral: fatal: the policy asks for a browser, but $TMP/nowhere/cli.js is not there" "... naming what is missing"
like "$err" "corral: hint: install Debian's chromium and nodejs, and @playwright/mcp@0.0.83" "... and how to get it"
is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "... and leaves no attempt behind"
unshare -n sleep 3600 &
B=$!
echo $B >>"$TMP/pids"
while [ "$(readlink /proc/$B/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
ip link add v0 type veth peer name v1 netns "$B"
ip addr add 198.51.100.1/24 dev v0
ip link set v0 up
nsenter -t "$B" -n sh -c 'ip link set lo up && ip link set v1 up && ip addr add 198.51.100.10/24 dev v1'
mkdir -p "$TMP/www" "$TMP/meta" "$TMP/loop"
echo "hello from remote" >"$TMP/www/hello"
cat >"$TMP/www/index.html" <<'HTML'
<html><body><h1>REMOTE-PAGE-TEXT</h1><p id="r">pending</p><script>
async function t(u) { try { await fetch(u, {mode: 'no-cors'}); return 'reached'; } catch (e) { return 'blocked'; } }
(async () => {
	const m = await t('http://169.254.169.254/'), l = await t('http://127.0.0.1:47021/'), s = await t('/hello');
	const d = await t('http://127.0.0.1:47031/');
	let f; try { f = await (await fetch('file:///etc/hostname')).text(); } catch (e) { f = 'blocked'; }
	document.getElementById('r').textContent = 'meta=' + m + ' loop=' + l + ' same=' + s + ' dev=' + d + ' file=' + f;
})();
</script></body></html>
HTML
printf '<html><body><p>LEAVING</p><script>location.href = "file:///etc/hostname";</script></body></html>' >"$TMP/www/tofile.html"
echo METADATA-SECRET >"$TMP/meta/index.html"
echo LOOPBACK-SECRET >"$TMP/loop/index.html"
nsenter -t "$B" -n "$PY" -m http.server --bind 198.51.100.10 --directory "$TMP/www" 80 >/dev/null 2>&1 &
echo $! >>"$TMP/pids"
"$PY" -m http.server --bind 169.254.169.254 --directory "$TMP/meta" 80 >/dev/null 2>&1 &
echo $! >>"$TMP/pids"
"$PY" -m http.server --bind 127.0.0.1 --directory "$TMP/loop" 47021 >/dev/null 2>&1 &
echo $! >>"$TMP/pids"
until curl -s -o /dev/null http://198.51.100.10/hello && curl -s -o /dev/null http://169.254.169.254/ &&
	curl -s -o /dev/null http://127.0.0.1:47021/; do sleep 0.1; done
is "$(curl -s http://169.254.169.254/)" METADATA-SECRET "control: metadata answers outside"
is "$(curl -s http://127.0.0.1:47021/)" LOOPBACK-SECRET "control: the outside loopback service answers outside"
hostname_now=$(cat /etc/hostname)

# every process of the attempt, by pid: those whose command line names
# the attempt directory (mcp-proxy, confine, node, Chromium)
attempt_pids() {
	for d in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | grep -q "$ST/a[0-9a-f]\{10\}/" && echo "${d#/proc/}"
	done
}
tree() {	# every descendant of pid $1
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do echo "$c"; tree "$c"; done
}
live() {	# pid $1 runs: a zombie has ended (under mk/suite an orphan's
	# zombie waits for suite-reap, which reaps when the test is over)
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}
alive() {
	n=0
	for p in $1; do live "$p" && n=$((n + 1)); done
	echo $n
}
left() {	# the survivors among pids $1, with their command names
	for p in $1; do live "$p" && printf '%s:%s ' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"; done
}

line() { printf '%s\n' "$out" | grep "^$1 =>" | sed -n "${2}p"; }

# --- per user and set-up (root; nobody; root where no user or mount
# namespace can be made, nonamespace): the home, workspace, state and the
# agent's write grant (h) of its own, the policy owned by that user
setup() {	# setup WHO: sets AS (the user), NW (the wrapper), B, ST, EB
	who=$1 AS= NW=
	case $who in
	nobody*) AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --" ;;
	nonamespace*) NW=$T/helpers/nonamespace ;;
	esac
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws" "$B/state" "$B/h/dev"
	chmod 0700 "$B/home"
	chmod 0777 "$B/h"
	ST=$B/state/corral
	EB="env -i HOME=$B/home PATH=/usr/bin:/bin XDG_STATE_HOME=$B/state"
	printf '%s\n' "{\"read\": [\"$CORRAL_TOP/tests/helpers\"], \"write\": [\"$B/h\"], \"browser\": {\"package\": \"${BPKG:-$PKG}\"}}" >"$B/pol.json"
	[ -z "$AS" ] || chown -R nobody:nogroup "$B"
}

# --- one run, several tool calls; the agent's own dev server on 127.0.0.1
browser_run() {	# browser_run WHO
	setup "$1"
	echo AGENT-DEV-SERVER >"$B/h/dev/index.html"
	(cd "$B/ws" && nice $AS $NW $EB "$C" run -p "$B/pol.json" -- "$PY" "$A" --serve "$B/h/dev" 47031 --hold "$B/h" \
		'browser_navigate={"url": "http://198.51.100.10/"}' \
		'browser_evaluate={"function": "async () => { const r = document.getElementById(\"r\"); for (let i = 0; i < 150 && r.textContent === \"pending\"; i++) await new Promise((ok) => setTimeout(ok, 100)); return r.textContent; }"}' \
		'browser_snapshot={}' \
		'browser_navigate={"url": "http://127.0.0.1:47031/"}' \
		'browser_snapshot={}' \
		'browser_navigate={"url": "file:///etc/hostname"}' \
		'browser_navigate={"url": " FILE:///etc/hostname"}' \
		'browser_tabs={"action": "new", "url": "view-source:file:///etc/hostname"}' \
		'browser_navigate={"url": "chrome://version"}' \
		'browser_navigate={"url": "http://198.51.100.10/tofile.html"}' \
		'browser_evaluate={"function": "async () => { await new Promise((ok) => setTimeout(ok, 1000)); return location.href + \" \" + document.documentElement.innerText; }"}' \
		'browser_navigate={"url": "http://169.254.169.254/"}' \
		'browser_navigate={"url": "http://127.0.0.1:47021/"}' \
		'browser_run_code_unsafe={"code": "1"}' \
		>"$B/run.out" 2>"$B/run.err"; echo $? >"$B/run.rc") &
	RUN=$!
	echo $RUN >>"$TMP/pids"
	until [ -e "$B/h/ready" ] || [ -e "$B/run.rc" ]; do sleep 0.2; done
	P1=$(attempt_pids)
	like "$(for p in $P1; do { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null; echo; done)" "chromium.* --remote-debugging-pipe" \
		"$who: during the run: Chromium's debugging endpoint is a pipe"
	unlike "$(for p in $P1; do { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null; echo; done)" "remote-debugging-port" "$who: ... no debugging port"
	touch "$B/h/go"
	wait "$RUN"
	out=$(cat "$B/run.out")
	is "$(cat "$B/run.rc")" 0 "$who: corral run with a browser: the agent's status"
	[ "$(cat "$B/run.rc")" = 0 ] || diag "$(tail -5 "$B/run.err")"
	like "$(printf '%s\n' "$out" | head -1)" "^tools browser_click .*browser_navigate .*browser_snapshot" "$who: tools/list: the allowlisted browser tools"
	unlike "$(printf '%s\n' "$out" | head -1)" "browser_run_code_unsafe|browser_file_upload" "$who: ... not the others"
	like "$(line browser_evaluate 1)" "meta=blocked loop=blocked same=reached dev=blocked file=blocked" \
		"$who: a page's script: metadata and the outside loopback service get nothing, its own origin answers (the control); Chromium's own local-network checks keep this public page from the agent's dev server too (the nolna run below turns them off)"
	like "$(line browser_snapshot 1)" "REMOTE-PAGE-TEXT" "$who: the remote page loads and its text comes back"
	is "$(line browser_navigate 3)" "browser_navigate => ERROR -32602 URL refused by the proxy: the browser opens http:, https: and about:blank only (no file:, filesystem:, view-source:, chrome: or other local state)" \
		"$who: file:///etc/hostname: refused by the tool, a clear JSON-RPC error"
	like "$(line browser_navigate 4)" "ERROR -32602 URL refused" "$who: ' FILE:' (case, leading space): refused"
	like "$(line browser_tabs 1)" "ERROR -32602 URL refused" "$who: a new tab on view-source:file: refused"
	like "$(line browser_navigate 5)" "ERROR -32602 URL refused" "$who: chrome://version refused"
	unlike "$(line browser_evaluate 2)" "^browser_evaluate => [^|]*file:///etc/hostname" "$who: a page that navigates itself to file:// does not get there"
	unlike "$out" "$hostname_now|METADATA-SECRET|LOOPBACK-SECRET" "$who: no local file, metadata or loopback content anywhere in the answers"
	like "$(line browser_navigate 7)" "ERR_NETWORK_ACCESS_DENIED" "$who: navigating to the metadata address: refused by the browser's broker"
	like "$(line browser_navigate 8)" "ERR_NETWORK_ACCESS_DENIED" "$who: navigating to an outside loopback service: refused"
	like "$(line browser_navigate 2)" "Page URL: http://127.0.0.1:47031/" "$who: the agent's own dev server on 127.0.0.1 (python3 -m http.server inside corral run): the browser gets there"
	like "$(line browser_snapshot 2)" "AGENT-DEV-SERVER" "$who: ... and its page's text comes back"
	like "$(line browser_run_code_unsafe 1)" "ERROR -32602 Unknown tool" "$who: a tool off the allowlist: refused"
	M=$(ls "$ST/audit/" | grep 'mcp-browser.jsonl' | head -1)
	is "$(grep -c '"outcome":"refused-url"' "$ST/audit/$M")" 4 "$who: the audit log records each refused URL"
	like "$(grep '"refused-url"' "$ST/audit/$M" | head -1)" '"tool":"browser_navigate"' "$who: ... with the tool's name"
	is "$(left "$P1")" "" "$who: nothing of the browser (or the attempt) is left after the run, by pid ($(echo $P1 | wc -w) processes)"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: the attempt directory (profile included) is gone"
}
browser_run root
browser_run nobody
browser_run nonamespace

# --- Chromium's own local-network blocking turned off by its flags, so
# that what a page's script is still refused is corral's refusal: the
# same package behind a wrapper (node_modules copied, so that confine's
# grant of it holds the wrapper) that adds the flags to Chromium's
# arguments. The control: the agent's dev server, which corral lets the
# browser reach, is reached by the remote page's script then.
NOLNA=--disable-features=LocalNetworkAccessChecks,LocalNetworkAccessChecksWebSockets,LocalNetworkAccessChecksWebRTC,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,PrivateNetworkAccessForNavigations,PrivateNetworkAccessForWorkers
mkdir -p "$TMP/nm"
cp -a "$NM" "$TMP/nm/node_modules"
mkdir -p "$TMP/nm/node_modules/@corral-test/flags"
cat >"$TMP/nm/node_modules/@corral-test/flags/cli.js" <<JS
const fs = require('fs'), path = require('path');
const i = process.argv.indexOf('--config');
const cfg = JSON.parse(fs.readFileSync(process.argv[i + 1], 'utf8'));
cfg.browser.launchOptions.args.push('$NOLNA');
process.argv[i + 1] = path.join(path.dirname(process.argv[i + 1]), 'config-nolna.json');
fs.writeFileSync(process.argv[i + 1], JSON.stringify(cfg));
require('../../@playwright/mcp/cli.js');
JS
BPKG=$TMP/nm/node_modules/@corral-test/flags
setup nolna
echo AGENT-DEV-SERVER >"$B/h/dev/index.html"
(cd "$B/ws" && nice $EB "$C" run -p "$B/pol.json" -- "$PY" "$A" --serve "$B/h/dev" 47031 --hold "$B/h" \
	'browser_navigate={"url": "http://198.51.100.10/"}' \
	'browser_evaluate={"function": "async () => { const r = document.getElementById(\"r\"); for (let i = 0; i < 150 && r.textContent === \"pending\"; i++) await new Promise((ok) => setTimeout(ok, 100)); return r.textContent; }"}' \
	'browser_navigate={"url": "http://169.254.169.254/"}' \
	'browser_navigate={"url": "http://127.0.0.1:47021/"}' \
	>"$B/run.out" 2>"$B/run.err"; echo $? >"$B/run.rc") &
RUN=$!
echo $RUN >>"$TMP/pids"
until [ -e "$B/h/ready" ] || [ -e "$B/run.rc" ]; do sleep 0.2; done
like "$(for p in $(attempt_pids); do { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null; echo; done)" "chromium.* $NOLNA" \
	"nolna: Chromium runs with its local-network blocking turned off"
touch "$B/h/go"
wait "$RUN"
out=$(cat "$B/run.out")
is "$(cat "$B/run.rc")" 0 "nolna: corral run: the agent's status"
like "$(line browser_evaluate 1)" "meta=blocked loop=blocked same=reached dev=reached file=blocked" \
	"nolna: a page's script: metadata and the outside loopback service still get nothing (corral's broker), the agent's dev server and its own origin answer (the controls)"
like "$(line browser_navigate 2)" "ERR_NETWORK_ACCESS_DENIED" "nolna: navigating to the metadata address: refused (corral's broker: EACCES)"
like "$(line browser_navigate 3)" "ERR_NETWORK_ACCESS_DENIED" "nolna: navigating to an outside loopback service: refused"
unlike "$out" "METADATA-SECRET|LOOPBACK-SECRET" "nolna: no metadata or loopback content anywhere in the answers"

# --- with a domain allowlist: Chromium sends every request but loopback's
# to egress-proxy (--proxy-server), its broker refuses any other remote
# destination (--no-remote); loopback stays its own and the agent's
printf '127.0.0.1 localhost\n198.51.100.10 allowed.test denied.test\n' >"$TMP/hosts"
mount --bind "$TMP/hosts" /etc/hosts
BPKG=
setup allow
printf '%s\n' "{\"read\": [\"$CORRAL_TOP/tests/helpers\"], \"write\": [\"$B/h\"], \"network\": {\"allow\": [\"allowed.test\"]}, \"browser\": {\"package\": \"$PKG\"}}" >"$B/pol.json"
echo AGENT-DEV-SERVER >"$B/h/dev/index.html"
(cd "$B/ws" && nice $EB "$C" run -p "$B/pol.json" -- "$PY" "$A" --serve "$B/h/dev" 47031 \
	'browser_navigate={"url": "http://allowed.test/"}' \
	'browser_evaluate={"function": "async () => { const r = document.getElementById(\"r\"); for (let i = 0; i < 150 && r.textContent === \"pending\"; i++) await new Promise((ok) => setTimeout(ok, 100)); return r.textContent; }"}' \
	'browser_snapshot={}' \
	'browser_navigate={"url": "http://127.0.0.1:47031/"}' \
	'browser_snapshot={}' \
	'browser_navigate={"url": "http://denied.test/"}' \
	'browser_navigate={"url": "http://198.51.100.10/"}' \
	'browser_navigate={"url": "http://127.0.0.1:47021/"}' \
	>"$B/run.out" 2>"$B/run.err")
rc=$? out=$(cat "$B/run.out") err=$(cat "$B/run.err")
is "$rc" 0 "allow: corral run with a browser and a domain allowlist: the agent's status"
[ "$rc" = 0 ] || diag "$(printf '%s\n' "$err" | tail -5)"
like "$(line browser_snapshot 1)" "REMOTE-PAGE-TEXT" "allow: a listed name's page loads through egress-proxy"
like "$(line browser_evaluate 1)" "meta=blocked loop=blocked same=reached dev=reached file=blocked" \
	"allow: its script: no metadata, no outside loopback, its own origin through the proxy; the agent's dev server answers it (a page through a loopback proxy is not public to Chromium's checks)"
like "$(line browser_navigate 2)" "Page URL: http://127.0.0.1:47031/" "allow: the agent's dev server (loopback: not through the proxy, the broker's own and the agent's)"
like "$(line browser_snapshot 2)" "AGENT-DEV-SERVER" "allow: ... its text comes back"
EG=$(cat "$ST"/audit/*.jsonl)
like "$EG" '"host":"allowed.test","port":80,"decision":"allow"' "allow: egress-proxy let the listed name through"
like "$EG" '"host":"denied.test","port":80,"decision":"deny","reason":"not listed"' "allow: a name not on the list: refused by egress-proxy"
like "$EG" '"host":"198.51.100.10","port":80,"decision":"deny"' "allow: ... nor an address"
unlike "$EG" '"host":"(denied.test|198.51.100.10)","port":80,"decision":"allow"' "allow: ... neither let through"
like "$(line browser_navigate 5)" "ERR_NETWORK_ACCESS_DENIED" "allow: an outside loopback service: refused by the broker"

# --- corral killed with SIGKILL while the browser runs: mcp-proxy gets
# its parent-death signal and ends; its launcher, the subreaper of the
# browser's tree, sees the proxy's socket close and kills and reaps every
# process of the tree (Chromium re-parents its own), then ends; the keeper
# ends the agent's side
browser_kill() {	# browser_kill WHO
	setup "$1-kill"
	(cd "$B/ws" && exec nice $AS $EB "$C" run -p "$B/pol.json" -- "$PY" "$A" --hold "$B/h" 'browser_navigate={"url": "http://198.51.100.10/"}' \
		>"$B/kill.out" 2>"$B/kill.err") &
	K=$!
	echo $K >>"$TMP/pids"
	until [ -e "$B/h/ready" ] || ! kill -0 "$K" 2>/dev/null; do sleep 0.2; done
	P2=$(attempt_pids; tree "$K")
	P2=$(echo $P2 | tr ' ' '\n' | sort -un)
	like "$(for p in $P2; do { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null; echo; done)" "chromium" "$who: the browser runs (pids $(echo $P2 | wc -w))"
	# Chromium's processes stopped: none notices its pipe close, so none ends
	# by itself (run with the launcher of 34c313b, they outlive the run)
	nstop=0
	for p in $P2; do
		case $(cat "/proc/$p/comm" 2>/dev/null) in chrom*) kill -STOP "$p" && nstop=$((nstop + 1)) ;; esac
	done
	kill -9 "$K"
	wait "$K" 2>/dev/null
	# a bound, not a figure: the wait ends as the last one goes
	i=0
	while [ "$(alive "$P2")" -gt 0 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	is "$(left "$P2")" "" "$who: corral SIGKILLed: every process of the browser and the attempt ends, by pid ($(echo $P2 | wc -w) processes: corral's tree and all naming the attempt; $nstop of Chromium's stopped)"
	for p in $P2; do kill -9 "$p" 2>/dev/null; done
}
browser_kill root
browser_kill nobody
done_testing
