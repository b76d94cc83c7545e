#!/bin/sh
# egress-proxy: corral's domain allowlist. Real clients (curl, Python
# urllib, node's fetch through undici's EnvHttpProxyAgent, npm install,
# pip download) inside confine --no-remote --loopback PROXY reach listed
# names only; a direct connect is refused; listed names that resolve to
# loopback or metadata are refused (403), each with its control run; every
# decision is in the audit log, without a path.
#
# Never a packet off this machine: the whole test runs in a network and
# mount namespace of its own (root, unshare -n -m); the "remote" hosts live
# in a second namespace behind a veth pair, names come from a private
# /etc/hosts bound over the real one. Without root the test skips.
if [ -z "${CORRAL_EG_NS:-}" ]; then
	if [ "$(id -u)" -ne 0 ] || ! unshare -n -m true 2>/dev/null; then
		echo "1..0 # SKIP needs root and unshare -n -m: the names and addresses live in a namespace of the test's own"
		exit 0
	fi
	# the npm peer first: the namespace has no way out
	CORRAL_EG_UNDICI=$("$CORRAL_TOP/mk/npm" egress undici@6.21.3) || exit 1
	export CORRAL_EG_UNDICI
	CORRAL_EG_NS=1 exec unshare -n -m sh "$0" "$@"
fi
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
EF=$CORRAL_BIN/env-filter
P=$CORRAL_BIN/egress-proxy
N=$CORRAL_TOP/tests/helpers/ipnet.py
PY=/usr/bin/python3
trap 'for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
bg() { echo "$1" >>"$TMP/pids"; }

# --- the namespace: lo, metadata on lo, remote hosts behind a veth pair
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
unshare -n sleep 3600 &
B=$!
bg $B
while [ "$(readlink /proc/$B/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
ip link add v0 type veth peer name v1 netns "$B"
ip addr add 198.51.100.1/24 dev v0
ip link set v0 up
nsenter -t "$B" -n sh -c 'ip link set lo up && ip link set v1 up &&
    ip addr add 198.51.100.10/24 dev v1 && ip addr add 198.51.100.20/24 dev v1'

# --- what the remote hosts serve: a page, an npm registry, a pip index
W=$TMP/www
mkdir -p "$W/tarballs" "$W/simple/tinypkg" "$W/packages" "$TMP/pkg/package"
echo "hello from remote" >"$W/hello"
printf '{"name":"tinypkg","version":"1.0.0","main":"index.js"}\n' >"$TMP/pkg/package/package.json"
echo 'module.exports = 42;' >"$TMP/pkg/package/index.js"
tar -C "$TMP/pkg" -czf "$W/tarballs/tinypkg-1.0.0.tgz" package
"$PY" - "$W" <<'EOF'
import base64, hashlib, json, sys, zipfile
w = sys.argv[1]
tgz = open(w + '/tarballs/tinypkg-1.0.0.tgz', 'rb').read()
doc = {"name": "tinypkg", "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {
    "name": "tinypkg", "version": "1.0.0", "main": "index.js",
    "dist": {"tarball": "http://registry.test/tarballs/tinypkg-1.0.0.tgz",
             "shasum": hashlib.sha1(tgz).hexdigest(),
             "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}}}}
open(w + '/tinypkg', 'w').write(json.dumps(doc))
whl = w + '/packages/tinypkg-1.0-py3-none-any.whl'
files = {"tinypkg/__init__.py": "X = 1\n",
         "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
         "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode(), len(d)) for n, d in files.items())
files["tinypkg-1.0.dist-info/RECORD"] = rec + "tinypkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(whl, 'w') as z:
    for n, d in files.items():
        z.writestr(n, d)
open(w + '/simple/tinypkg/index.html', 'w').write(
    '<html><body><a href="/packages/tinypkg-1.0-py3-none-any.whl">tinypkg-1.0-py3-none-any.whl</a></body></html>\n')
EOF
for a in 198.51.100.10 198.51.100.20; do
	nsenter -t "$B" -n "$PY" -m http.server --bind "$a" --directory "$W" 80 >/dev/null 2>&1 &
	bg $!
done
nsenter -t "$B" -n "$PY" "$N" serve 198.51.100.10 443 >"$TMP/tls" 2>&1 &
bg $!
"$PY" "$N" serve 169.254.169.254 80 127.0.0.1 8099 >"$TMP/meta" 2>&1 &
bg $!
until grep -q ready "$TMP/tls" 2>/dev/null && grep -q ready "$TMP/meta" 2>/dev/null &&
    curl -s -o /dev/null http://198.51.100.20/hello && curl -s -o /dev/null http://198.51.100.10/hello; do
	sleep 0.1
done

# --- names, from a private /etc/hosts
cat >"$TMP/hosts" <<'EOF'
127.0.0.1 localhost
198.51.100.10 allowed.test registry.test pypi.test a.wild.test xn--bcher-kva.test
198.51.100.20 other.test
169.254.169.254 meta.test
127.0.0.1 lo.test
198.51.100.10 rebind.test
127.0.0.1 rebind.test
EOF
mount --bind "$TMP/hosts" /etc/hosts

# --- the proxy, outside the boundary
: >"$TMP/audit.jsonl"
chmod 0600 "$TMP/audit.jsonl"
"$P" --audit "$TMP/audit.jsonl" --allow allowed.test --allow Registry.test --allow pypi.test \
    --allow meta.test --allow lo.test --allow rebind.test --allow '*.wild.test' \
    --allow 'bücher.test' --allow 198.51.100.10 >"$TMP/url" &
EPID=$!
bg $EPID
until grep -q http "$TMP/url" 2>/dev/null; do sleep 0.05; done
PP=$(sed 's|^http://127.0.0.1:||' "$TMP/url")
like "$(cat "$TMP/url")" '^http://127\.0\.0\.1:[0-9]+$' "egress-proxy prints its URL"
# it narrowed itself before printing it (lib/selfnarrow, as mcp-proxy does);
# the control is this shell, root with every capability and no filter
st() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
is "$(st $EPID NoNewPrivs):$(st $EPID Seccomp):$(st $EPID CapEff)" "1:2:0000000000000000" \
    "egress-proxy runs with no_new_privs, a seccomp filter and no capability"
is "$(st $$ NoNewPrivs):$(st $$ Seccomp)" "0:0" "control: the test's shell has neither"
unlike "$(st $$ CapEff)" '^0+$' "control: ... and holds capabilities"

UNDICI=$CORRAL_EG_UNDICI
G="-x /usr -x /lib -o -x /lib64 -x /bin -r /etc -r /proc --dev -x $CORRAL_TOP/tests/helpers -r $UNDICI"
FETCH="const {EnvHttpProxyAgent, fetch} = require('$UNDICI/undici');
fetch(process.argv[1], {dispatcher: new EnvHttpProxyAgent()}).then(async r => console.log(r.status + ':' + (await r.text()).trim())).catch(e => console.log('error:' + (e.cause ? e.cause.code || e.cause.message : e.message)))"

suite() {	# suite WHO AS
	who=$1 AS=$2
	D=$TMP/$who
	mkdir -p "$D"
	[ "$who" = nobody ] && chown nobody:nogroup "$D"
	# inside: only the proxy's port, the proxy variables pinned
	inb() { run $AS "$EF" -s PATH=/usr/bin:/bin -s HOME="$D" -s TMPDIR="$D" -s LC_ALL=C.UTF-8 --proxy "$PP" -- \
	    "$C" $G -W "$D" --no-remote --loopback "$PP" -- "$@"; }

	inb curl -s http://allowed.test/hello
	is "$out" "hello from remote" "$who: curl: a listed name through the proxy (absolute-form)"
	inb curl -s -p http://allowed.test:443/ --http0.9
	is "$out" "198.51.100.10" "$who: curl -p: the same through a CONNECT tunnel"
	inb curl -s -o /dev/null -w '%{http_code}' http://other.test/hello
	is "$out" 403 "$who: curl: an unlisted name is refused with 403"
	run curl -s http://other.test/hello
	is "$out" "hello from remote" "$who: control: other.test answers directly"
	inb curl -s http://other.test/hello
	is "$out" "egress-proxy: other.test is not in the allowlist" "$who: ... with a one-line reason"
	inb curl -s --noproxy '*' http://allowed.test/hello
	is "$rc" 7 "$who: curl straight to the host, bypassing the proxy: refused (exit 7)"
	inb "$PY" "$N" tcp 198.51.100.10 80
	is "$out" EACCES "$who: a direct connect to a listed host's address: EACCES"
	inb "$PY" "$N" tcp 127.0.0.1 8099
	is "$out" EACCES "$who: ... to an outside loopback service: EACCES"
	inb "$PY" "$N" via "$PP" allowed.test 443
	is "$out" "200:198.51.100.10" "$who: CONNECT to a listed name"
	inb "$PY" "$N" via "$PP" meta.test 80
	is "$out" "403:egress-proxy: meta.test resolves to a blocked address (metadata)" \
	    "$who: a listed name resolving to metadata: 403"
	run curl -s --http0.9 http://meta.test/
	is "$out" 169.254.169.254 "$who: control: meta.test answers directly"
	inb "$PY" "$N" via "$PP" lo.test 8099
	is "$out" "403:egress-proxy: lo.test resolves to a blocked address (loopback)" \
	    "$who: a listed name resolving to loopback: 403"
	inb "$PY" "$N" via "$PP" rebind.test 80
	is "$out" "403:egress-proxy: rebind.test resolves to a blocked address (loopback)" \
	    "$who: a listed name resolving to a public and a loopback address: 403"
	inb "$PY" "$N" via "$PP" 169.254.169.254 80
	is "$out" "403:egress-proxy: 169.254.169.254 is not in the allowlist" "$who: an unlisted IP literal: 403"
	inb "$PY" "$N" via "$PP" 198.51.100.10 443
	is "$out" "200:198.51.100.10" "$who: a listed IP literal"
	inb "$PY" "$N" via "$PP" A.WILD.test 443
	is "$out" "200:198.51.100.10" "$who: *.wild.test matches A.WILD.test (case-insensitive)"
	inb curl -s http://bücher.test/hello
	is "$out" "hello from remote" "$who: IDNA: bücher.test listed, reached as xn--bcher-kva.test"
	inb "$PY" -c "import urllib.request; print(urllib.request.urlopen('http://allowed.test/hello').read().decode().strip())"
	is "$out" "hello from remote" "$who: Python urllib through the proxy"
	inb "$PY" -c "import urllib.request
try: urllib.request.urlopen('http://other.test/hello')
except urllib.error.HTTPError as e: print(e.code)"
	is "$out" 403 "$who: Python urllib: unlisted: 403"
	inb node -e "$FETCH" http://allowed.test/hello
	is "$out" "200:hello from remote" "$who: node fetch (undici EnvHttpProxyAgent) through the proxy"
	inb node -e "$FETCH" http://other.test/hello
	like "$out" "^error:" "$who: node fetch: unlisted: refused (undici tunnels, and fails on the 403)"
	inb node -e "fetch('http://allowed.test/hello').then(r => console.log(r.status)).catch(e => console.log('error:' + e.cause.code))"
	is "$out" "error:EACCES" "$who: node's own fetch ignores the proxy variables: its direct connect is refused"
	mkdir -p "$D/app"
	[ "$who" = nobody ] && chown nobody:nogroup "$D/app"
	inb sh -c "cd $D/app && npm install --registry http://registry.test/ --no-audit --no-fund --cache $D/npm-cache tinypkg >/dev/null 2>&1 && node -e \"console.log(require('tinypkg'))\""
	is "$out" 42 "$who: npm install from a registry stand-in through the proxy"
	inb sh -c "cd $D/app && npm install --registry http://other.test/ --no-audit --no-fund --cache $D/npm-cache2 tinypkg 2>&1 | grep -c 403"
	unlike "$out" '^0$' "$who: npm install from an unlisted registry: 403"
	inb "$PY" -m pip download --no-cache-dir --no-deps --disable-pip-version-check -q \
	    --index-url http://pypi.test/simple --trusted-host pypi.test -d "$D/wheels" tinypkg
	status_ok "$([ -f "$D/wheels/tinypkg-1.0-py3-none-any.whl" ]; echo $?)" "$who: pip download from an index stand-in through the proxy"
}

suite root ""
suite nobody as_nobody

# --- the audit log: host, port, decision, bytes; never a path or header value
A=$(cat "$TMP/audit.jsonl")
like "$A" '"host":"allowed.test","port":80,"decision":"allow","reason":"listed","bytes_up":[1-9][0-9]*,"bytes_down":[1-9]' \
    "audit: an allowed request with its bytes each way"
like "$A" '"host":"other.test","port":80,"decision":"deny","reason":"not listed"' "audit: a refusal"
like "$A" '"host":"meta.test","port":80,"decision":"deny","reason":"meta.test resolves to a blocked address \(metadata\)"' \
    "audit: a blocked resolution"
unlike "$A" 'hello|tinypkg|User-Agent|curl/' "audit: no path, no header value"

# --- bad input
run "$P"
is "$rc:$err" "2:egress-proxy: usage: no --allow name: nothing could be reached
egress-proxy: hint: egress-proxy --help" "no --allow: 2"
run "$P" --allow 'a..b'
is "$rc:$err" "2:egress-proxy: usage: --allow a..b: not a host name, *.NAME or an IP address" "a bad name: 2"
done_testing
