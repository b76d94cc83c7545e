#!/bin/sh
# sandbox-mcp session_package_install with the real installers (npm, python3
# -m pip) against a registry stand-in on 127.0.0.1, as root and as nobody;
# every attack with its control. The whole test runs in a network and mount
# namespace it makes (unshare -n -m, as root): nothing can leave the
# machine, and 169.254.169.254 is put on its lo so metadata can be tried.
if [ -z "${CORRAL_SBXPKG_NS:-}" ] && [ "$(id -u)" -eq 0 ] && unshare -n -m true 2>/dev/null; then
	CORRAL_SBXPKG_NS=1 exec unshare -n -m sh "$0" "$@"
fi
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
if [ -z "${CORRAL_SBXPKG_NS:-}" ]; then
	echo "1..0 # SKIP needs root and unshare -n -m (a network namespace of its own, so no install can reach outside)"
	exit 0
fi
PY=/usr/bin/python3
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
trap 'for p in $(cat "$TMP/pids" 2>/dev/null); do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
chmod 0755 "$TMP"

# --- listeners: the registry stand-in (npm and pip), an outside loopback
# service, the metadata address; each prints its port when ready
listen() {	# listen FILE ADDR PORT MODE [DIR]
	$PY - "$2" "$3" "$4" "${5:-}" >"$1" 2>/dev/null <<'EOF' &
import http.server, socket, sys, os, threading
addr, port, mode, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if mode == 'www':
    os.chdir(d)
    class H(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
    s = http.server.ThreadingHTTPServer((addr, port), H)
    print(s.server_address[1], flush=True)
    s.serve_forever()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, port)); s.listen(64)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.sendall(b"reached\n"); c.close()
EOF
	echo $! >>"$TMP/pids"
	while [ ! -s "$1" ]; do sleep 0.05; done
}
W=$TMP/www
mkdir -p "$W"
chmod 0755 "$W"
listen "$TMP/rport" 127.0.0.1 0 www "$W"
RP=$(cat "$TMP/rport")
listen "$TMP/lport" 127.0.0.1 0 plain
LP=$(cat "$TMP/lport")
listen "$TMP/mport" 169.254.169.254 80 plain
REG=http://127.0.0.1:$RP

# --- what the registry serves: tinypkg (npm, pip), evilpkg (npm, its
# preinstall probes the boundary), failpkg (preinstall fails), slowpkg
# (preinstall leaves processes and sleeps)
PROBE=$TMP/probe.js
cat >"$PROBE" <<'EOF'
// node probe.js WS OTHER SSH LPORT: try each and print one line each
const fs = require('fs'), net = require('net');
const [ws, other, ssh, lport] = process.argv.slice(2);
const out = [];
const tryread = (n, p) => { try { fs.readFileSync(p); out.push(n + ' ok'); } catch (e) { out.push(n + ' ' + e.code); } };
tryread('ws-read', ws + '/secret.txt');
try { fs.readdirSync(ws); out.push('ws-list ok'); } catch (e) { out.push('ws-list ' + e.code); }
try { fs.writeFileSync(ws + '/pwned', 'x'); out.push('ws-write ok'); } catch (e) { out.push('ws-write ' + e.code); }
tryread('other-read', other + '/secret.txt');
tryread('ssh-read', ssh);
let argv = 'argv-clean';
for (const d of fs.readdirSync('/proc')) {
  if (!/^[0-9]+$/.test(d)) continue;
  try { if (fs.readFileSync('/proc/' + d + '/cmdline', 'latin1').includes(process.env.PKG_SECRET || 'no-secret-set')) argv = 'argv-holds-secret'; } catch (e) {}
}
out.push(argv);
out.push('env-secret ' + (process.env.PKG_SECRET ? 'passed' : 'absent'));
const conn = (n, host, port) => new Promise(r => {
  const s = net.connect({ host, port }, () => { s.destroy(); out.push(n + ' ok'); r(); });
  s.on('error', e => { out.push(n + ' ' + e.code); r(); });
  setTimeout(() => { s.destroy(); out.push(n + ' timeout'); r(); }, 3000);
});
(async () => {
  await conn('loopback', '127.0.0.1', +lport);
  await conn('metadata', '169.254.169.254', 80);
  const text = out.join('\n') + '\n';
  try { fs.writeFileSync('results.txt', text); } catch (e) {}
  process.stdout.write(text);
})();
EOF
cp "$PROBE" "$W/probe.js"
# evilpy: a hostile setup.py. It is pip's build backend (pyproject.toml:
# backend-path ".", no requirements to fetch), so pip runs it at install as
# it runs any setup.py; on import it probes as probe.js does, leaves a
# process behind, and ships what it saw in the wheel it builds.
# python3 setup.py WS OTHER SSH LPORT is its control, outside.
SETUPPY=$TMP/setup.py
cat >"$SETUPPY" <<'EOF'
import base64, errno, hashlib, os, socket, subprocess, sys, zipfile
HERE = os.path.dirname(os.path.abspath(__file__))

def code(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__

def probe(ws, other, ssh, lport):
    out = []
    def tryread(n, p):
        try:
            open(p, 'rb').read(); out.append(n + ' ok')
        except OSError as e:
            out.append(n + ' ' + code(e))
    tryread('ws-read', ws + '/secret.txt')
    try:
        os.listdir(ws); out.append('ws-list ok')
    except OSError as e:
        out.append('ws-list ' + code(e))
    try:
        with open(ws + '/pwned', 'w') as f:
            f.write('x')
        out.append('ws-write ok')
    except OSError as e:
        out.append('ws-write ' + code(e))
    tryread('other-read', other + '/secret.txt')
    tryread('ssh-read', ssh)
    secret = (os.environ.get('PKG_SECRET') or 'no-secret-set').encode()
    argv = 'argv-clean'
    for d in os.listdir('/proc'):
        try:
            if d.isdigit() and secret in open('/proc/%s/cmdline' % d, 'rb').read():
                argv = 'argv-holds-secret'
        except OSError:
            pass
    out.append(argv)
    out.append('env-secret ' + ('passed' if os.environ.get('PKG_SECRET') else 'absent'))
    for n, host, port in (('loopback', '127.0.0.1', int(lport)), ('metadata', '169.254.169.254', 80)):
        s = socket.socket()
        s.settimeout(3)
        try:
            s.connect((host, port)); out.append(n + ' ok')
        except socket.timeout:
            out.append(n + ' timeout')
        except OSError as e:
            out.append(n + ' ' + code(e))
        finally:
            s.close()
    return '\n'.join(out) + '\n'

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    args = open(os.path.join(HERE, 'args.txt')).read().split('\n')[:4]
    try:
        subprocess.Popen(['sleep', '9374'], start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        left = 'left-behind started\n'
    except OSError as e:
        left = 'left-behind ' + code(e) + '\n'
    files = {'evilpy/__init__.py': 'X = 2\n', 'evilpy/results.txt': probe(*args) + left,
             'evilpy-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: evilpy\nVersion: 1.0\n',
             'evilpy-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n'}
    rec = ''.join('%s,sha256=%s,%d\n' % (n, base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode(), len(d.encode()))
                  for n, d in files.items())
    files['evilpy-1.0.dist-info/RECORD'] = rec + 'evilpy-1.0.dist-info/RECORD,,\n'
    name = 'evilpy-1.0-py3-none-any.whl'
    with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w') as z:
        for n, d in files.items():
            z.writestr(n, d)
    return name

if __name__ == '__main__':
    sys.stdout.write(probe(*sys.argv[1:5]))
EOF
mkevilpy() {	# mkevilpy WS OTHER SSH LPORT: the sdist, its arguments baked in
	rm -rf "$TMP/mkpy" "$W/simple/evilpy" && mkdir -p "$TMP/mkpy/evilpy-1.0" "$W/simple/evilpy"
	cp "$SETUPPY" "$TMP/mkpy/evilpy-1.0/setup.py"
	printf '[build-system]\nrequires = []\nbuild-backend = "setup"\nbackend-path = ["."]\n' >"$TMP/mkpy/evilpy-1.0/pyproject.toml"
	printf 'Metadata-Version: 2.1\nName: evilpy\nVersion: 1.0\n' >"$TMP/mkpy/evilpy-1.0/PKG-INFO"
	printf '%s\n%s\n%s\n%s\n' "$@" >"$TMP/mkpy/evilpy-1.0/args.txt"
	tar -C "$TMP/mkpy" -czf "$W/packages/evilpy-1.0.tar.gz" evilpy-1.0
	echo '<html><body><a href="/packages/evilpy-1.0.tar.gz">evilpy-1.0.tar.gz</a></body></html>' >"$W/simple/evilpy/index.html"
	chmod -R a+rX "$W"
}
mkpkg() {	# mkpkg NAME PACKAGE_JSON_SCRIPTS [EXTRA_FILE]
	rm -rf "$TMP/mk" && mkdir -p "$TMP/mk/$1"
	printf '{"name":"%s","version":"1.0.0","main":"index.js"%s}\n' "$1" "$2" >"$TMP/mk/$1/package.json"
	echo 'module.exports = 42;' >"$TMP/mk/$1/index.js"
	[ -n "${3:-}" ] && cp "$3" "$TMP/mk/$1/"
	(cd "$TMP/mk/$1" && npm pack --silent --pack-destination "$W" >/dev/null 2>&1)
	$PY - "$W" "$1" "$REG" "$TMP/mk/$1/package.json" <<'EOF'
import base64, hashlib, json, sys
w, name, reg, pj = sys.argv[1:]
tgz = open('%s/%s-1.0.0.tgz' % (w, name), 'rb').read()
v = json.load(open(pj))
v["dist"] = {"tarball": "%s/%s-1.0.0.tgz" % (reg, name),
             "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}
doc = {"name": name, "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": v}}
open(w + '/' + name, 'w').write(json.dumps(doc))
EOF
}
printf '#!/usr/bin/env node\nconsole.log("tinybin ran");\n' > "$TMP/cli.js"
mkpkg tinypkg ',"bin":{"tinybin":"cli.js"}' "$TMP/cli.js"
mkpkg failpkg ',"scripts":{"preinstall":"echo failing; exit 3"}'
mkpkg slowpkg ',"scripts":{"preinstall":"sleep 9371 & setsid sleep 9372 & echo slow-started; sleep 9373"}'
# a wheel for pip (built by hand: no network, no wheel package needed)
mkdir -p "$W/simple/tinypkg" "$W/packages"
$PY - "$W" <<'EOF'
import base64, hashlib, sys, zipfile
w = sys.argv[1]
files = {"tinypkg/__init__.py": "X = 1\n",
         "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
         "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode(), len(d)) for n, d in files.items())
files["tinypkg-1.0.dist-info/RECORD"] = rec + "tinypkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(w + '/packages/tinypkg-1.0-py3-none-any.whl', 'w') as z:
    for n, d in files.items():
        z.writestr(n, d)
open(w + '/simple/tinypkg/index.html', 'w').write(
    '<html><body><a href="/packages/tinypkg-1.0-py3-none-any.whl">tinypkg-1.0-py3-none-any.whl</a></body></html>\n')
EOF
chmod -R a+rX "$W" "$PROBE"
status_ok $(curl -sf "$REG/tinypkg" >/dev/null && curl -sf "$REG/simple/tinypkg/" >/dev/null; echo $?) 'the registry stand-in serves'

# the operator's settings, through env_allowlist: the registry, npm 11's
# install-script approval off, no retries (a refused connect fails at once)
SBX_ENV="npm_config_registry=$REG/ PIP_INDEX_URL=$REG/simple npm_config_dangerously_allow_all_scripts=true npm_config_fetch_retries=0 PIP_RETRIES=0 PKG_SECRET=pkg-s3cret-value"
ENVL='"env_allowlist":["LANG","npm_config_registry","PIP_INDEX_URL","npm_config_dangerously_allow_all_scripts","npm_config_fetch_retries","PIP_RETRIES","PKG_SECRET"]'
gone() {	# gone PATTERN: no process whose command line matches
	for c in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' 2>/dev/null <"$c" | grep -Eq -- "$1" && return 1
	done
	return 0
}
cfg() {	# cfg JSON-MEMBERS: the config, owned by the server's user
	# (the san build under RLIMIT_AS: no memory bound; tap.sh says why)
	nomem=
	san_rlimit_as $SBX_AS && nomem='"max_memory_mb":0,'
	echo "{$nomem$ENVL${1:+,$1}}" >"$SBX_CFG"
	[ "$who" = nobody ] && chown nobody "$SBX_CFG"
	return 0
}
state() {	# the workspace's files and the history length, as one string
	echo "$(cd "$S/workspace" && find . | sort | tr '\n' ' ')|$(git --git-dir="$S/history.git" rev-list --count HEAD 2>/dev/null)"
}

for who in root nobody; do
	sbx_setup "$TMP/$who"
	SBX_AS=
	if [ "$who" = nobody ]; then
		chown -R nobody:nogroup "$TMP/$who"
		SBX_AS=as_nobody
	fi
	cfg ''
	sbx create_session '{"label":"other"}'
	other=$(j .session_id)
	sbx session_write_files '{"entries":[{"path":"secret.txt","content":"OTHER-SESSION-SECRET"}]}'
	sbx create_session
	s=$(j .session_id)
	S=$SBX_STORE/sessions/$s
	sbx session_write_files '{"entries":[{"path":"secret.txt","content":"OWN-WORKSPACE-SECRET"}]}'

	# off by default: an error naming the key
	sbx session_package_install '{"package_manager":"npm","packages":["tinypkg"]}'
	is "$iserr" true "$who: disabled by default"
	like "$text" 'package_install_enabled' "$who: ... the error names package_install_enabled"
	status_ok $([ ! -e "$S/workspace/.packages" ] && [ -z "$(ls -d "$S"/pkg-* 2>/dev/null)" ]; echo $?) "$who: ... nothing ran"

	cfg "\"package_install_enabled\":true,\"package_install_allow_loopback\":[$RP]"
	before=$(state)
	# hostile specifiers: refused before anything runs
	for mgr in npm pip; do
		for spec in '-e' '--registry=http://127.0.0.1:1/' 'tinypkg;id' 'tinypkg$(id)' '$(touch /tmp/sbxpkg-pwn)' '`id`' \
		    './tinypkg' '/tmp/x.tgz' '../x' 'https://127.0.0.1/x.tgz' 'file:///tmp/x.whl' 'tinypkg|sh' 'tinypkg && id'; do
			sbx session_package_install "$(jq -cn --arg m $mgr --arg p "$spec" '{package_manager:$m,packages:["tinypkg",$p]}')"
			is "$iserr:$(printf '%s' "$text" | grep -c 'packages\[1\] refused')" true:1 "$who: $mgr specifier $spec refused"
		done
	done
	sbx session_package_install '{"package_manager":"cargo","packages":["tinypkg"]}'
	like "$iserr:$text" 'true:.*"pip" or "npm"' "$who: an unknown package_manager refused"
	sbx session_package_install '{"package_manager":"npm","packages":[]}'
	like "$iserr:$text" 'true:.*1 to 32' "$who: no packages refused"
	is "$(state)" "$before" "$who: the refusals changed nothing"
	status_ok $([ ! -e /tmp/sbxpkg-pwn ] && [ -z "$(ls -d "$S"/pkg-* 2>/dev/null)" ]; echo $?) "$who: ... and ran nothing"

	# npm from the registry stand-in, through the loopback allowance
	sbx session_package_install '{"package_manager":"npm","packages":["tinypkg@1.0.0"]}'
	is "$iserr:$(j .installed):$(j .exit_code):$(j .merged_into):$(j .env)" "false:true:0:.packages/npm:NODE_PATH" "$who: npm install through the loopback allowance"
	[ "$(j .installed)" = true ] || diag "$text $(cat "$SD/.e")"
	is "$(j .stdout_bytes):$(j .stderr_bytes)" "$(j '.stdout|utf8bytelength'):$(j '.stderr|utf8bytelength')" "$who: ... output with its byte counts"
	is "$(cat "$S/workspace/.packages/npm/node_modules/tinypkg/index.js")" 'module.exports = 42;' "$who: ... merged under .packages/npm"
	is "$(j .new_checkpoint)" true "$who: ... as a checkpoint"
	sbx session_history
	is "$(j '.checkpoints[0].message')" 'session_package_install: npm tinypkg@1.0.0' "$who: ... in the history"
	status_ok $([ -z "$(ls -d "$S"/pkg-* 2>/dev/null)" ]; echo $?) "$who: ... the stage is gone"
	sbx session_bash '{"command":"echo $NODE_PATH; node -e \"console.log(require(\\\"tinypkg\\\"))\""}'
	is "$(j .stdout)" "$S/workspace/.packages/npm/node_modules
42" "$who: a later session_bash has NODE_PATH and requires it"
	grep -qx npm "$S/packages"
	status_ok $? "$who: ... recorded in the session directory"
	# the installed tree keeps its shape: bin scripts executable, .bin links
	N=$S/workspace/.packages/npm/node_modules
	is "$(readlink "$N/.bin/tinybin"):$(stat -c %a "$N/tinypkg/cli.js")" "../tinypkg/cli.js:755" "$who: npm's .bin link and the bin script's exec bits are kept"
	is "$(stat -c %a "$N/tinypkg/index.js")" 644 "$who: control: other files stay 0644"
	sbx session_bash '{"command":".packages/npm/node_modules/.bin/tinybin"}'
	is "$(j .stdout)" "tinybin ran" "$who: ... and the .bin command runs"
	# the record travels with a snapshot
	sbx session_snapshot
	snap=$(j .path)
	sbx session_restore "{\"path\":\"$snap\"}"
	rs=$(j .session_id)
	sbx session_bash '{"command":"node -e \"console.log(require(\\\"tinypkg\\\"))\"; echo $NODE_PATH"}'
	is "$(j .stdout)" "42
$SBX_STORE/sessions/$rs/workspace/.packages/npm/node_modules" "$who: a restored session keeps the install and its NODE_PATH"
	sbx session_close
	sbx session_switch "{\"session_id\":\"$s\"}"
	sbx session_fork '{"label":"forked"}'
	fk=$(j .session_id)
	sbx session_bash '{"command":"node -e \"console.log(require(\\\"tinypkg\\\"))\"; echo $NODE_PATH"}'
	is "$(j .stdout)" "42
$SBX_STORE/sessions/$fk/workspace/.packages/npm/node_modules" "$who: a fork keeps the install and its NODE_PATH"
	sbx session_close
	sbx session_switch "{\"session_id\":\"$s\"}"

	# pip from the same stand-in (a simple index)
	sbx session_package_install '{"package_manager":"pip","packages":["tinypkg==1.0"]}'
	is "$(j .installed):$(j .merged_into):$(j .env)" "true:.packages/pip:PYTHONPATH" "$who: pip install through the loopback allowance"
	[ "$(j .installed)" = true ] || diag "$text $(j .stderr)"
	sbx session_bash '{"command":"/usr/bin/python3 -c \"import tinypkg; print(tinypkg.X)\"; echo $PYTHONPATH"}'
	is "$(j .stdout)" "1
$S/workspace/.packages/pip" "$who: a later session_bash imports it (PYTHONPATH)"
	# PYTHONPATH comes from the session directory's record, not the workspace
	sbx create_session '{"label":"plain"}'
	sbx session_bash '{"command":"mkdir -p .packages/pip .packages/npm/node_modules; true"}'
	sbx session_bash '{"command":"echo \"[$PYTHONPATH][$NODE_PATH]\""}'
	is "$(j .stdout)" '[][]' "$who: a .packages the agent made sets nothing"
	sbx session_switch "{\"session_id\":\"$s\"}"

	# without the allowance, loopback is refused by the broker: the
	# install fails and changes nothing
	cfg '"package_install_enabled":true'
	before=$(state)
	sbx session_package_install '{"package_manager":"npm","packages":["tinypkg"]}'
	is "$iserr:$(j .installed)" "false:false" "$who: without package_install_allow_loopback the registry on loopback is refused"
	like "$(j .stderr)" 'EACCES|ECONNREFUSED|EPERM' "$who: ... the connect failed"
	sbx session_package_install '{"package_manager":"pip","packages":["tinypkg"]}'
	is "$(j .installed)" false "$who: ... pip too"
	is "$(state)" "$before" "$who: a failed install changes nothing in the workspace"
	cfg "\"package_install_enabled\":true,\"package_install_allow_loopback\":[$RP]"
	sbx session_package_install '{"package_manager":"npm","packages":["failpkg"]}'
	is "$(j .installed):$(j .exit_code)" "false:3" "$who: an install script that fails (exit 3): not installed, its status"
	like "$(j .stdout)$(j .stderr)" 'failing' "$who: ... its output returned"
	is "$(state)" "$before" "$who: ... nothing changed in the workspace"

	# an install script probing the boundary, against its control
	rm -f "$W"/evilpkg*
	mkpkg evilpkg ",\"scripts\":{\"preinstall\":\"node probe.js $S/workspace $SBX_STORE/sessions/$other/workspace $SBX_HOME/.ssh/id_ed25519 $LP\"}" "$PROBE"
	chmod -R a+rX "$W"
	sbx session_package_install '{"package_manager":"npm","packages":["evilpkg"]}'
	is "$(j .installed)" true "$who: the probing install script ran"
	R=$S/workspace/.packages/npm/node_modules/evilpkg/results.txt
	is "$(cat "$R" 2>/dev/null | tr '\n' ' ')" "ws-read EACCES ws-list EACCES ws-write EACCES other-read EACCES ssh-read EACCES argv-clean env-secret passed loopback EACCES metadata EACCES " \
	    "$who: from the stage: the workspace, another session, ~/.ssh unreadable; no write; no secret in any argv; outside loopback and metadata refused"
	status_ok $([ ! -e "$S/workspace/pwned" ]; echo $?) "$who: ... nothing written into the workspace"
	run $SBX_AS node "$PROBE" "$S/workspace" "$SBX_STORE/sessions/$other/workspace" "$SBX_HOME/.ssh/id_ed25519" "$LP"
	rm -f "$S/workspace/pwned" results.txt
	is "$(echo "$out" | tr '\n' ' ')" "ws-read ok ws-list ok ws-write ok other-read ok ssh-read ok argv-clean env-secret absent loopback ok metadata ok " \
	    "$who: control: the same script outside the boundary reads, writes and connects to all of it"
	# a hostile setup.py (pip runs it to build the wheel), against its control
	mkevilpy "$S/workspace" "$SBX_STORE/sessions/$other/workspace" "$SBX_HOME/.ssh/id_ed25519" "$LP"
	sbx session_package_install '{"package_manager":"pip","packages":["evilpy"]}'
	is "$(j .installed)" true "$who: the probing setup.py ran (pip built its wheel)"
	[ "$(j .installed)" = true ] || diag "$(j .stderr)"
	is "$(tr '\n' ' ' <"$S/workspace/.packages/pip/evilpy/results.txt" 2>/dev/null)" "ws-read EACCES ws-list EACCES ws-write EACCES other-read EACCES ssh-read EACCES argv-clean env-secret passed loopback EACCES metadata EACCES left-behind started " \
	    "$who: ... from pip's build: the workspace, another session, ~/.ssh unreadable; no write; no secret in any argv; outside loopback and metadata refused"
	status_ok $([ ! -e "$S/workspace/pwned" ]; echo $?) "$who: ... nothing written into the workspace"
	status_ok $(gone "sleep 9374"; echo $?) "$who: ... the process it started and left behind (above) was ended with the install"
	run $SBX_AS $PY "$SETUPPY" "$S/workspace" "$SBX_STORE/sessions/$other/workspace" "$SBX_HOME/.ssh/id_ed25519" "$LP"
	rm -f "$S/workspace/pwned"
	is "$(echo "$out" | tr '\n' ' ')" "ws-read ok ws-list ok ws-write ok other-read ok ssh-read ok argv-clean env-secret absent loopback ok metadata ok " \
	    "$who: control: the same setup.py outside the boundary reads, writes and connects to all of it"
	# the broker is what refuses the addresses: open-unfiltered reaches them
	cfg '"package_install_enabled":true,"package_install_network":"open-unfiltered"'
	sbx session_package_install '{"package_manager":"npm","packages":["evilpkg"]}'
	like "$(cat "$R" 2>/dev/null | tr '\n' ' ')" 'ws-read EACCES .*loopback ok metadata ok' "$who: control: without the broker (open-unfiltered) both are reached, the files still not"

	# package_install_timeout_ms ends the whole tree, nothing merged
	cfg "\"package_install_enabled\":true,\"package_install_allow_loopback\":[$RP],\"package_install_timeout_ms\":4000"
	before=$(state)
	sbx session_package_install '{"package_manager":"npm","packages":["slowpkg"]}'
	is "$(j .timed_out):$(j .exit_code):$(j .installed)" "true:124:false" "$who: package_install_timeout_ms: timed out, 124, not installed"
	like "$(j .stdout)" 'slow-started' "$who: ... the script had started"
	status_ok $(gone "sleep 937[123]"; echo $?) "$who: ... its whole process tree is gone"
	is "$(j .tree_ended_by)" "$([ "$who" = root ] && echo cgroup || echo sweep)" "$who: ... through a cgroup of its own as root, the sweep as nobody"
	is "$(state)" "$before" "$who: ... nothing changed in the workspace"
	status_ok $([ -z "$(ls -d "$S"/pkg-* 2>/dev/null)" ]; echo $?) "$who: ... the stage is gone"

	# a .packages the agent made a symbolic link: nothing merged through it
	sbx create_session '{"label":"link"}'
	mkdir -p "$TMP/linktarget-$who"
	[ "$who" = nobody ] && chown nobody "$TMP/linktarget-$who"
	sbx session_bash "{\"command\":\"ln -s $TMP/linktarget-$who .packages\"}"
	sbx session_package_install '{"package_manager":"npm","packages":["tinypkg"]}'
	like "$iserr:$text" 'true:.*\.packages: not a directory' "$who: .packages a symbolic link: refused"
	status_ok $([ -z "$(ls -A "$TMP/linktarget-$who")" ]; echo $?) "$who: ... nothing written through it"
	sbx session_close
	sbx session_switch "{\"session_id\":\"$s\"}"

	# the interpreter must be on PATH
	mkdir -p "$TMP/gitonly-$who"
	ln -sf /usr/bin/git "$TMP/gitonly-$who/git"
	SBX_ENV0=$SBX_ENV
	SBX_ENV="$SBX_ENV PATH=$TMP/gitonly-$who"
	sbx session_package_install '{"package_manager":"npm","packages":["tinypkg"]}'
	like "$iserr:$text" 'true:.*npm is not on the PATH' "$who: npm not on PATH: a clear error"
	sbx session_package_install '{"package_manager":"pip","packages":["tinypkg"]}'
	like "$iserr:$text" 'true:.*python3 is not on the PATH' "$who: python3 not on PATH: a clear error"
	SBX_ENV=$SBX_ENV0
	sbx session_close
done
done_testing
