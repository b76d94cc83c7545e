#!/bin/sh
# The seccomp broker's refusals (confine --refusals, lib/refusal.h) reach
# corral run, as root and as nobody (no audit needed): into the attempt's
# audit log, and, when CMD fails soon after one, on stderr with what would
# allow it. Each with a control. As root the whole test runs in a network
# namespace of its own (unshare -n), so the metadata case sends nothing off
# this machine; the loopback listener is the test's, outside the boundary.
if [ -z "${CORRAL_RF_NS:-}" ] && [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
	CORRAL_RF_NS=1 exec unshare -n sh "$0" "$@"
fi
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
CF=$CORRAL_BIN/confine
PY=/usr/bin/python3
trap 'for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
[ -n "${CORRAL_RF_NS:-}" ] && ip link set lo up

# the outside loopback service: a port the test opened, outside the boundary
"$PY" -c '
import socket, sys, time
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(64)
print(l.getsockname()[1], flush=True)
while True:
    c, _ = l.accept(); c.sendall(b"hello\n"); c.close()
' >"$TMP/port" 2>&1 &
echo $! >>"$TMP/pids"
while [ ! -s "$TMP/port" ]; do sleep 0.05; done
P=$(cat "$TMP/port")
[ "$P" -gt 0 ] 2>/dev/null || { echo "Bail out! no listener: $P"; exit 1; }

# the agent's programs, in files (quoting stays simple), in $X
X=$TMP/prog
mkdir -p "$X"
cat >"$X/conn.py" <<EOF
import socket, sys
s = socket.socket()
try:
    s.connect(("127.0.0.1", $P)); print("ok:" + s.makefile().readline().strip())
except OSError as e:
    sys.exit(1)
EOF
cat >"$X/flood.py" <<EOF
import errno, socket, sys
n = 0
for i in range(int(sys.argv[1])):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", $P))
    except OSError as e:
        n += e.errno == errno.EACCES
    s.close()
print("refused:%d" % n)
sys.exit(1)
EOF
cat >"$X/fds.py" <<'EOF'
import os, sys
print(" ".join(sorted(os.listdir("/proc/self/fd"), key=int)))
EOF
cat >"$X/files.py" <<'PY'
import os, sys
import _posixshmem as shm
try:
    os.close(os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)); print("pts:ok")
except OSError as e:
    print("pts:%d" % e.errno)
try:
    os.close(shm.shm_open("/" + sys.argv[2], os.O_RDWR)); print("shm:ok")
except OSError as e:
    print("shm:%d" % e.errno)
os.close(shm.shm_open("/" + sys.argv[3], os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
shm.shm_unlink("/" + sys.argv[3]); print("own:ok")
sys.exit(1)
PY
cp "$CORRAL_TOP/tests/helpers/ipnet.py" "$X/ipnet.py"
N=$X/ipnet.py
chmod 0644 "$X"/*.py

suite() {	# suite WHO: $AS runs a command as WHO
	who=$1
	H=$TMP/$who/home W=$TMP/$who/ws S=$TMP/$who/st
	mkdir -p "$H" "$W" "$S"
	R() { (cd "$W" && $AS env -i HOME="$H" PATH=/usr/bin:/bin XDG_STATE_HOME="$S" "$C" run "$@"); }
	log() { cat "$S"/corral/audit/*.jsonl 2>/dev/null; }
	printf '{"read": ["%s"], "network": {"allow_loopback": [%s]}}\n' "$X" "$P" >"$TMP/$who/al.json"
	printf '{"read": ["%s"]}\n' "$X" >"$TMP/$who/dflt.json"
	[ "$who" = nobody ] && chown -R nobody "$TMP/$who"

	run R -p "$TMP/$who/dflt.json" -- "$PY" "$X/conn.py"
	is "$rc" 1 "$who: the status of CMD passes through"
	like "$err" "^corral: the boundary refused 1 network call of programs this run started, shortly before it ended \\(status 1\\):" \
	    "$who: a refusal before a failure is said"
	like "$err" "corral:   connect 127\\.0\\.0\\.1:$P \\(python3[.0-9]*, pid [0-9]+\\)" "$who: the call, the destination and the program are named"
	like "$err" "\"network\": \\{\"allow_loopback\": \\[$P\\]\\} would allow it \\(network\\.allow_loopback; corral why --connect 127\\.0\\.0\\.1:$P\\)" \
	    "$who: what would allow it, the key, and corral why"
	like "$err" "corral: hint: allow it with the policy line shown" "$who: the ways forward"
	like "$(log)" "\"step\":\"refused\",\"call\":\"connect\",\"dest\":\"127\\.0\\.0\\.1:$P\",\"why\":\"loopback\",\"pid\":[0-9]+,\"exe\":\"/usr/bin/python3[.0-9]*\",\"comm\":\"python3\"" \
	    "$who: the attempt's audit log holds the record"
	like "$(log)" "\"step\":\"confine\",\"rules\":\\[.*\"--refusals\",\"[0-9]+\"" "$who: confine was given the refusals descriptor"
	run R -p "$TMP/$who/al.json" -- "$PY" "$X/conn.py"
	is "$rc:$out:$err" "0:ok:hello:" "$who: control: with that policy line the connect works, nothing extra"

	rm -rf "$S"/corral/audit
	run R -p "$TMP/$who/dflt.json" -- sh -c 'exit 3'
	is "$rc:$err" "3:" "$who: exit 3 with no refusal: nothing extra"
	unlike "$(log)" '"step":"refused"' "$who: ... and nothing in the audit log"

	run R -p "$TMP/$who/dflt.json" -- sh -c "sh -c '$PY $X/conn.py'; exit 2"
	is "$rc" 2 "$who: grandchild: the status passes through"
	like "$err" "corral:   connect 127\\.0\\.0\\.1:$P \\(python3[.0-9]*, pid [0-9]+\\)" "$who: a grandchild's refusal is named"

	run R -p "$TMP/$who/dflt.json" -- sh -c "$PY $X/conn.py; exit 0"
	is "$rc:$err" "0:" "$who: a refusal but status 0: nothing extra"
	like "$(log)" "\"dest\":\"127\\.0\\.0\\.1:$P\"" "$who: ... still in the audit log"

	run R -p "$TMP/$who/dflt.json" -- "$PY" "$X/fds.py"
	is "$rc:$out" "0:0 1 2 3" "$who: the agent holds no descriptor but 0-2 (3: its own listing)"

	# a flood: every call answered, the records bounded, the rest counted
	rm -rf "$S"/corral/audit
	run R -p "$TMP/$who/dflt.json" -- "$PY" "$X/flood.py" 3000
	is "$rc:$out" "1:refused:3000" "$who: a flood of 3000 refusals: each answered, the agent not held up"
	is "$(log | grep -c '"step":"refused","call"')" 256 "$who: ... the audit log keeps 256 of them"
	like "$(log)" '"step":"refused","more":[0-9]+,"dropped":[1-9][0-9]*,' "$who: ... the broker counted those it could not write"
	like "$err" "the boundary refused at least [0-9]+ network calls" "$who: ... the run says how many, at least"
	like "$err" "connect 127\\.0\\.0\\.1:$P \\(python3[.0-9]*, pid [0-9]+\\), 256 times" "$who: ... each destination once"
	like "$err" "\\([0-9]+ more not kept: the broker could not write them all\\)" "$who: ... and that some were not recorded"

	if [ -n "${CORRAL_RF_NS:-}" ]; then
		run R -p "$TMP/$who/dflt.json" -- sh -c "$PY $N tcp 169.254.169.254 80; exit 1"
		is "$rc:$out" "1:EACCES" "$who: metadata is refused (in the test's own network namespace)"
		like "$err" "connect 169\\.254\\.169\\.254:80 .*" "$who: ... named"
		like "$err" "cloud metadata: never reachable \\(confine --filter-ip\\): nothing in a policy grants it but \"network\": \"open-unfiltered\" \\(not advised\\)" \
		    "$who: ... nothing in a policy grants it (but turning the filter off)"
		printf '{"read": ["%s"], "network": {"connect": [443]}}\n' "$X" >"$TMP/$who/ports.json"
		[ "$who" = nobody ] && chown nobody "$TMP/$who/ports.json"
		run R -p "$TMP/$who/ports.json" -- sh -c "$PY $N tcp-only 198.51.100.10 80; exit 1"
		is "$rc:$out" "1:EACCES" "$who: connect ports 443 only: port 80 is refused (no route: nothing leaves)"
		like "$err" "connect 198\\.51\\.100\\.10:80 .*" "$who: ... named"
		like "$err" "\"network\": \\{\"connect\": \\[\\.\\.\\.\\]\\} does not list the port: \"network\": \\{\"connect\": \\[80\\]\\} would allow it \\(network\\.connect; corral why --connect 198\\.51\\.100\\.10:80\\)" \
		    "$who: ... the connect key would allow it"
		run R -p "$TMP/$who/ports.json" -- sh -c "$PY $N tcp-only 198.51.100.10 443; exit 1"
		is "$rc:$out:$err" "1:ENETUNREACH:" "$who: control: port 443 is let through (and finds no route here), nothing extra"
	fi

	# a terminal and a shared memory object made outside (the broker's
	# pty and shm refusals), and the agent's own object (the control)
	$AS "$PY" -c 'import os, sys, time; m, s = os.openpty(); print(os.getpid(), os.ttyname(s), flush=True); time.sleep(600)' >"$TMP/$who/pts" &
	while [ ! -s "$TMP/$who/pts" ]; do sleep 0.05; done
	read -r ptspid pts <"$TMP/$who/pts"
	echo "$ptspid" >>"$TMP/pids"
	$AS sh -c "echo outside > /dev/shm/corral-rf-$who"
	run $AS "$PY" "$X/files.py" "$pts" "corral-rf-$who" "corral-rf-own-$who"
	is "$rc:$out" "1:pts:ok
shm:ok
own:ok" "$who: control: outside, the other terminal and the object open"
	run R -p "$TMP/$who/dflt.json" -- "$PY" "$X/files.py" "$pts" "corral-rf-$who" "corral-rf-own-$who"
	is "$rc:$out" "1:pts:13
shm:13
own:ok" "$who: inside, both refused (EACCES), its own object made and removed"
	like "$err" "^corral: the boundary refused 2 calls of programs this run started" "$who: ... both said, as calls"
	like "$err" "corral:   open path:$pts \\(python3[.0-9]*, pid [0-9]+\\)" "$who: ... the terminal's open named"
	like "$err" "another terminal of yours \\(its master is not the agent's\\): nothing in a policy grants it" "$who: ... and that nothing grants it"
	like "$err" "corral:   open path:/dev/shm/corral-rf-$who \\(python3" "$who: ... the object's open named"
	like "$err" "shared memory the agent did not make: \"write\": \\[\"/dev/shm\"\\] would allow it" "$who: ... and the line that would allow it"
	unlike "$err" "corral-rf-own-$who" "$who: ... its own object is no refusal"
	like "$(log)" "\"call\":\"open\",\"dest\":\"path:$pts\",\"why\":\"pty-other\"" "$who: the audit log records the terminal's refusal"
	like "$(log)" "\"call\":\"open\",\"dest\":\"path:/dev/shm/corral-rf-$who\",\"why\":\"shm-other\"" "$who: ... and the object's"
	rm -f "/dev/shm/corral-rf-$who"
	kill "$ptspid"
}

if is_root; then
	AS=
	suite root
	AS=as_nobody
	suite nobody
else
	AS=
	suite "$(id -un)"
	diag "not root: the nobody and metadata halves need root (setpriv, unshare -n)"
fi

# confine itself: the descriptor works, the program never holds it
G="-x /usr -x /lib -o -x /lib64 -x /bin -r /etc -r /proc --dev -r $X"
run sh -c "exec 9>'$TMP/rf'; exec '$CF' $G --keep-fd 9 -- '$PY' '$X/fds.py'"
is "$out" "0 1 2 3 9" "confine: control: a kept descriptor is seen by the program"
run sh -c "exec 9>'$TMP/rf'; exec '$CF' $G --filter-ip --refusals 9 -- sh -c '$PY $X/fds.py; $PY $X/conn.py'"
is "$rc:$out" "1:0 1 2 3" "confine --refusals 9: the program does not hold 9"
like "$(cat "$TMP/rf")" "^refused t=[0-9]+ kind=connect dest=127\\.0\\.0\\.1:$P why=loopback pid=[0-9]+ exe=/usr/bin/python3[.0-9]* comm=python3\$" \
    "... and the broker wrote the refusal there"
run sh -c "exec 9>'$TMP/rf'; exec '$CF' $G --keep-fd 9 --refusals 9 -- true"
is "$rc:$err" "125:confine: usage: refusals 9: that descriptor is kept for the program (keep-fd): the agent would hold it" \
    "confine: --refusals N with --keep-fd N: refused"
run "$CF" $G --refusals 9 -- true
is "$rc" 125 "confine: --refusals of a closed descriptor: refused"
like "$err" "^confine: fatal: --refusals 9: not an open descriptor" "... and said"
run "$CF" $G --refusals 2 -- true
is "$rc" 125 "confine: --refusals 2: refused (0-2 stay open for the program)"

# a unix path is the agent's choice: escaped, one line, bounded
mkdir -p "$TMP/u"
"$PY" -c 'import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); time.sleep(600)' "$TMP/u/ok.sock" &
echo $! >>"$TMP/pids"
while [ ! -S "$TMP/u/ok.sock" ]; do sleep 0.05; done
cat >"$X/unix.py" <<'EOF'
import socket, sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p.encode().decode("unicode_escape"))
        print("ok")
    except OSError as e:
        print(e.errno)
EOF
run sh -c "exec 9>'$TMP/rf'; exec '$CF' $G --unix '$TMP/u/ok.sock' --refusals 9 -- '$PY' '$X/unix.py' '$TMP/u/ok.sock' '/tmp/a b\\n\\x1b[31m%' '/$(printf 'x%.0s' $(seq 1 106))' '\\x00abstract\\n'"
is "$out" "$(printf 'ok\n13\n13\n1')" "confine --unix: control: the allowed socket answers, the others are refused"
is "$(wc -l <"$TMP/rf")" 3 "... three records, one line each"
like "$(cat "$TMP/rf")" "dest=unix:/tmp/a%20b%0A%1B\\[31m%25 why=unix-path " "... an odd path escaped (blank, newline, ESC, %)"
like "$(cat "$TMP/rf")" "dest=unix:/x{106} why=unix-path " "... a path of 107 bytes whole"
like "$(cat "$TMP/rf")" "dest=unix:@abstract%0A why=abstract " "... an abstract name escaped"
unlike "$(cat "$TMP/rf")" "$(printf '\033')" "... no control byte reaches the record"
done_testing
