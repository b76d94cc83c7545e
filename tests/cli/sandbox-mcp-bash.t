#!/bin/sh
# sandbox-mcp session_bash: the boundary (corral's chain after probe), as
# root and as nobody; every attack with its control.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"

# a loopback listener the commands must not reach (the test can)
/usr/bin/python3 -c '
import socket, sys, os
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.sendall(b"reached\n"); c.close()
' >"$TMP/port" 2>/dev/null &
lpid=$!
# a host unix socket (docker's, the session bus) the commands must not reach
mkdir -p "$TMP/hs" && chmod 755 "$TMP" "$TMP/hs"
/usr/bin/python3 -c '
import socket, sys, os
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(64)
print("up", flush=True)
while True:
    c, _ = s.accept(); c.sendall(b"reached\n"); c.close()
' "$TMP/hs/host.sock" >"$TMP/hs/up" 2>/dev/null &
upid=$!
trap 'kill $lpid $upid 2>/dev/null; rm -rf "$TMP"' EXIT
while [ ! -s "$TMP/port" ] || [ ! -s "$TMP/hs/up" ]; do sleep 0.05; done
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"
PORT=$(cat "$TMP/port")
gone() {	# gone PATTERN: no process whose command line matches
	for c in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' 2>/dev/null <"$c" | grep -Eq -- "$1" && return 1
	done
	return 0
}

n=0
for who in root nobody; do
	n=$((n + 1))
	sbx_setup "$TMP/$who"
	SBX_AS=
	if [ "$who" = nobody ]; then
		chown -R nobody:nogroup "$TMP/$who"
		SBX_AS=as_nobody
	fi
	# the san build under RLIMIT_AS: no memory bound (tap.sh says why)
	M=
	if san_rlimit_as $SBX_AS; then
		M='"max_memory_mb": 0, '
		diag "$who: san build, memory bound by RLIMIT_AS here: max_memory_mb 0 (ASan's shadow exceeds any bound)"
	fi
	echo "{$M\"bash_timeout_ms\": 3000}" > "$SBX_CFG"
	[ "$who" = nobody ] && chown nobody "$SBX_CFG"
	sbx create_session '{"label":"other"}'
	other=$(j .session_id)
	sbx session_write_files '{"entries":[{"path":"secret.txt","content":"OTHER-SESSION-SECRET"}]}'
	sbx create_session
	s=$(j .session_id)
	S=$SBX_STORE/sessions/$s

	# control: a command runs, output and counts come back
	sbx session_bash '{"command":"echo hi; echo err >&2; exit 3","description":"control"}'
	is "$(j .exit_code):$(j '.stdout|@json'):$(j .stdout_bytes):$(j '.stderr|@json'):$(j .stderr_bytes)" '3:"hi\n":3:"err\n":4' "$who: exit status, stdout and stderr with their byte counts"
	is "$(j .timed_out)" false "$who: not timed out"
	# the system as sandbox-mcp grants it: /etc readable, never executable
	# (corral's default policy makes it executable: sandbox-mcp/chain.c
	# says why they differ; corral-explain.t pins corral's side)
	if [ -x /etc/init.d/procps ]; then
		sbx session_bash '{"command":"head -c 2 /etc/init.d/procps; echo; /etc/init.d/procps status >/dev/null 2>&1; echo rc=$?; /usr/bin/true; echo control=$?"}'
		is "$(j .stdout)" "#!
rc=126
control=0" "$who: /etc is readable, not executable; /usr is (control)"
	fi
	sbx session_bash '{"command":"pwd; id -un; echo $HOME; echo $TMPDIR"}'
	is "$(j .stdout)" "$S/workspace
$who
$S/tmp
$S/tmp" "$who: runs in the workspace, HOME and TMPDIR the session tmp"

	# reading the real home's secrets
	sbx session_bash "{\"command\":\"cat $SBX_HOME/.ssh/id_ed25519; ls $SBX_HOME\"}"
	unlike "$(j .stdout)" 'PRIVATE-KEY' "$who: ~/.ssh is not readable"
	like "$(j .stderr)" 'Permission denied' "$who: ~/.ssh: permission denied"
	run $SBX_AS cat "$SBX_HOME/.ssh/id_ed25519"
	is "$out" PRIVATE-KEY-MATERIAL "$who: control: the server's user can read it"
	# the store and another session
	sbx session_bash "{\"command\":\"cat $SBX_STORE/sessions/$other/workspace/secret.txt; ls $SBX_STORE; cat $S/history.git/HEAD; cat $S/meta.json\"}"
	unlike "$(j .stdout)" 'OTHER-SESSION-SECRET|refs/heads|created' "$who: another session, the store, its own history: unreadable"
	is "$(j .stderr | grep -c 'Permission denied')" 4 "$who: each refused"
	sbx session_bash '{"command":"ls secret.txt; echo mine > own.txt; cat own.txt"}'
	is "$(j .stdout)" "mine" "$who: control: its own workspace is readable and writable"
	# writing outside
	sbx session_bash "{\"command\":\"echo x > $SD/outside; echo x > /tmp/sbx-outside-$who-$$; echo x > $S/history.git/hooks/pre-commit; echo y > \$TMPDIR/t && cat \$TMPDIR/t\"}"
	status_ok $([ ! -e "$SD/outside" ] && [ ! -e "/tmp/sbx-outside-$who-$$" ] && [ ! -e "$S/history.git/hooks/pre-commit" ]; echo $?) "$who: nothing written outside the workspace and tmp"
	is "$(j .stdout)" y "$who: control: the session tmp is writable"
	# the environment
	sbx session_bash '{"command":"env"}'
	unlike "$(j .stdout)" 'hunter2|SECRET_TOKEN' "$who: the server's environment does not pass"
	like "$(j .stdout)" '^LANG=C\.UTF-8$' "$who: control: env_allowlist names pass"
	# the network: none at all
	sbx session_bash "{\"command\":\"/usr/bin/python3 -c 'import socket; print(socket.create_connection((\\\"127.0.0.1\\\", $PORT)).recv(9))'; /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)' && echo udp-open\"}"
	unlike "$(j .stdout)" 'reached|udp-open' "$who: no TCP to loopback, no UDP socket"
	like "$(j .stderr)" 'PermissionError' "$who: the socket is refused"
	run $SBX_AS /usr/bin/python3 -c "import socket; print(socket.create_connection(('127.0.0.1', $PORT)).recv(9).decode().strip())"
	is "$out" reached "$who: control: the listener answers outside the boundary"
	# the boundary's refusals come back in the result (confine --refusals),
	# through the SDK client: a host unix socket refused and reported;
	# control: the command's own socket in the workspace connects, nothing
	# reported
	uc="import socket, sys
s = socket.socket(socket.AF_UNIX)
if len(sys.argv) > 2:
    l = socket.socket(socket.AF_UNIX); l.bind(sys.argv[1]); l.listen(1)
try:
    s.connect(sys.argv[1]); print('connected')
except OSError as e:
    print('refused', e.errno)"
	jq -n --arg c "/usr/bin/python3 -c \"\$UC\" $TMP/hs/host.sock" --arg o "/usr/bin/python3 -c \"\$UC\" own.sock bind" --arg uc "$uc" \
		'[{call: "create_session", args: {}}, {call: "session_bash", args: {command: ("export UC=\($uc|@sh); " + $c)}},
		  {call: "session_bash", args: {command: ("export UC=\($uc|@sh); " + $o)}}]' > "$TMP/rscript"
	SDK_AS=
	[ "$who" = nobody ] && SDK_AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
	HOME=$SBX_HOME sdk_run "$TMP/rscript" --store "$SBX_STORE" --config "$SBX_CFG"
	is "$(rj session_bash 1 .stdout)" "refused 13" "$who: a host unix socket is refused"
	is "$(rj session_bash 1 '.refusals[0]|[.kind,.dest,.why,.comm]|@json')" "[\"connect\",\"unix:$TMP/hs/host.sock\",\"unix-path\",\"python3\"]" "$who: ... and the refusal is in the result"
	is "$(rj session_bash 1 '[.refusals_more,.refusals_dropped]|@json')" '[0,0]' "$who: ... none lost"
	is "$(rj session_bash 2 .stdout):$(rj session_bash 2 '.refusals|length')" "connected:0" "$who: control: its own socket connects, nothing reported"
	run $SBX_AS /usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('$TMP/hs/host.sock'); print(s.recv(9).decode().strip())"
	is "$out" reached "$who: control: the host socket answers outside the boundary"
	# processes left behind: none outlives the call
	tag=$$$n
	sbx session_bash "{\"command\":\"sleep 7${tag}1 & setsid sleep 7${tag}2 & nohup sh -c 'sleep 7${tag}3' >/dev/null 2>&1 & (sleep 7${tag}4 &) ; kill -0 \$! && echo alive\"}"
	is "$(j .stdout)" alive "$who: control: the background process ran during the call"
	status_ok $(gone "sleep 7${tag}[1-4]"; echo $?) "$who: background, setsid, nohup and orphaned processes ended with the call"
	# the tree ends through a cgroup of its own where one can be made
	# (keeper, lib/cgroup.c: as root here), else through the sweep
	sbx session_bash '{"command":"cat /proc/self/cgroup"}'
	cgp=$(j .stdout | sed -n 's|^[0-9]*:[a-z,]*:\(/.*corral-[0-9]*-[0-9]*-[0-9]*\)$|\1|p' | head -n1)
	if [ "$who" = root ]; then
		is "$(j .tree_ended_by)" cgroup "$who: the tree is ended through a cgroup of its own"
		like "$cgp" '^/(.*/)?corral-[0-9]+-[0-9]+-[0-9]+$' "$who: ... the command ran in it"
		left=
		for m in $(findmnt -n -t cgroup2,cgroup -o TARGET); do
			[ -n "$cgp" ] && [ -d "$m$cgp" ] && left="$left $m$cgp"
		done
		is "$left" "" "$who: ... removed after the call"
	else
		is "$(j .tree_ended_by):$cgp" "sweep:" "$who: no cgroup can be made: the process group and the sweep"
	fi
	# the timeout ends the whole tree
	echo "{$M\"bash_timeout_ms\": 300}" > "$SBX_CFG"
	sbx session_bash "{\"command\":\"sleep 8${tag}1 & setsid sleep 8${tag}2 & echo started; sleep 8${tag}3\"}"
	is "$(j .timed_out):$(j .exit_code):$(j .stdout)" "true:124:started" "$who: bash_timeout_ms: timed out, 124, output kept"
	status_ok $(gone "sleep 8${tag}[1-3]"; echo $?) "$who: bash_timeout_ms: the whole process tree is gone"
	echo "{$M\"bash_timeout_ms\": 3000, \"max_workspace_mb\": 1}" > "$SBX_CFG"
	# max_workspace_mb: a file is bounded, and a workspace over it goes back
	sbx session_bash '{"command":"head -c 600000 /dev/zero > a.bin; head -c 600000 /dev/zero > b.bin; ls"}'
	like "$(j .workspace_error)" 'over max_workspace_mb' "$who: a workspace over max_workspace_mb: refused"
	status_ok $([ ! -e "$S/workspace/a.bin" ] && [ ! -e "$S/workspace/b.bin" ]; echo $?) "$who: ... and rolled back to the last checkpoint"
	sbx session_bash '{"command":"head -c 5000000 /dev/zero > c.bin; wc -c < c.bin"}'
	is "$(j .stdout)" 1048576 "$who: one file stops at max_workspace_mb (RLIMIT_FSIZE)"
	sbx session_bash '{"command":"rm c.bin; head -c 600000 /dev/zero > a.bin && echo fits"}'
	is "$(j .stdout):$(j .workspace_error)" "fits:null" "$who: control: within the bound is kept"
	# file changes become a checkpoint
	sbx session_history
	n1=$(j '.checkpoints | length')
	sbx session_bash '{"command":"echo new > new.txt","description":"make new.txt"}'
	is "$(j .new_checkpoint)" true "$who: a change is a new checkpoint"
	sbx session_history
	is "$(j '.checkpoints | length'):$(j '.checkpoints[0].message')" "$((n1 + 1)):session_bash: make new.txt" "$who: ... in the history, with its description"
	sbx session_bash '{"command":"true"}'
	is "$(j .new_checkpoint)" false "$who: control: no change, no checkpoint"
	sbx session_close
	status_ok $(gone "sleep [78]${tag}"; echo $?) "$who: nothing is left after session_close"
done

# no namespaces at all (Ubuntu 24.04, containers): the same boundary
sbx_setup "$TMP/nons"
SBX_AS=$T/helpers/nonamespace
sbx create_session
sbx session_bash "{\"command\":\"echo in > f; cat $SBX_HOME/.ssh/id_ed25519; echo x > $TMP/nons/outside\"}"
is "$iserr:$(j .stdout)" "false:" 'no namespaces: session_bash runs'
status_ok $([ -f "$SBX_STORE"/sessions/*/workspace/f ] && [ ! -e "$TMP/nons/outside" ]; echo $?) 'no namespaces: writes the workspace, not outside'
like "$(j .stderr)" 'Permission denied' 'no namespaces: the home stays unreadable'

# probe refuses (no Landlock): session_bash refuses, other tools work
sbx_setup "$TMP/nll"
SBX_AS=$T/helpers/nolandlock
sbx create_session
sbx session_bash '{"command":"echo ran > ran.txt"}'
is "$iserr" true 'no Landlock: session_bash refused'
like "$text" 'probe could not prove the boundary at tier full' 'no Landlock: probe is why'
status_ok $([ -z "$(ls "$SBX_STORE"/sessions/*/workspace)" ]; echo $?) 'no Landlock: nothing ran'
sbx session_write_files '{"entries":[{"path":"f","content":"x"}]}'
is "$iserr" false 'no Landlock: the file tools still work'
done_testing
