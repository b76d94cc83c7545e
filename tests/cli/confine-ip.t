#!/bin/sh
# confine --filter-ip, --loopback, --deny-private, --no-remote: IP
# destinations decided by the seccomp broker on a copy, as root and as
# nobody, each refusal with its control run.
#
# Never a packet off this machine: as root the whole test re-runs itself in
# a network and mount namespace it makes (unshare -n -m), where it puts the
# metadata addresses on lo and a "remote" host (198.51.100.10, 10.0.0.10,
# 2001:db8::10, fd00::10) in a second namespace behind a veth pair. Without
# root only the loopback checks run (127.0.0.1 and ::1), and a diag says so.
if [ -z "${CORRAL_IP_NS:-}" ] && [ "$(id -u)" -eq 0 ] && unshare -n -m true 2>/dev/null; then
	CORRAL_IP_NS=1 exec unshare -n -m sh "$0" "$@"
fi
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
N=$CORRAL_TOP/tests/helpers/ipnet.py
PY=/usr/bin/python3
G="-x /usr -x /lib -o -x /lib64 -x /bin -r /etc -r /proc --dev -x $CORRAL_TOP/tests/helpers"

serve() {	# serve FILE ADDR PORT...: a listener in the background, waited for
	f=$1; shift
	"$PY" "$N" serve "$@" >"$f" 2>&1 &
	while ! grep -q ready "$f" 2>/dev/null; do
		kill -0 $! 2>/dev/null || { cat "$f" >&2; return 1; }
		sleep 0.1
	done
	echo $! >>"$TMP/pids"
}
trap 'for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

NS=${CORRAL_IP_NS:-}
if [ -n "$NS" ]; then
	ip link set lo up
	ip addr add 169.254.169.254/32 dev lo
	ip addr add 169.254.7.7/32 dev lo
	ip -6 addr add fd00:ec2::254/128 dev lo nodad
	# the "remote" host: a second namespace behind a veth pair
	unshare -n sleep 3600 &
	B=$!
	echo $B >>"$TMP/pids"
	while [ "$(readlink /proc/$B/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.05; done
	ip link add v0 type veth peer name v1 netns "$B"
	ip addr add 198.51.100.1/24 dev v0
	ip addr add 10.0.0.1/24 dev v0
	ip -6 addr add 2001:db8::1/64 dev v0 nodad
	ip -6 addr add fd00::1/64 dev v0 nodad
	ip link set v0 up
	nsenter -t "$B" -n sh -c 'ip link set lo up && ip link set v1 up &&
	    ip addr add 198.51.100.10/24 dev v1 && ip addr add 10.0.0.10/24 dev v1 &&
	    ip -6 addr add 2001:db8::10/64 dev v1 nodad && ip -6 addr add fd00::10/64 dev v1 nodad'
	nsenter -t "$B" -n "$PY" "$N" serve 198.51.100.10 80 10.0.0.10 80 2001:db8::10 80 fd00::10 80 \
	    >"$TMP/remote" 2>&1 &
	echo $! >>"$TMP/pids"
	while ! grep -q ready "$TMP/remote" 2>/dev/null; do sleep 0.1; done
	serve "$TMP/meta" 169.254.169.254 80 fd00:ec2::254 80 169.254.7.7 80 0.0.0.0 8088
	# a loopback resolver, as systemd-resolved's 127.0.0.53
	printf 'nameserver 127.0.0.53\nnameserver 198.51.100.10\n' >"$TMP/resolv.conf"
	mount --bind "$TMP/resolv.conf" /etc/resolv.conf
else
	diag "not root or no network namespace: metadata, link-local, remote and private checks skipped (they need addresses only a namespace of the test's own may hold)"
fi
serve "$TMP/lo" 127.0.0.1 47001 ::1 47001
[ -z "$NS" ] || serve "$TMP/lo2" 127.0.0.53 53

suite() {	# suite WHO AS
	who=$1 AS=$2
	t() { run $AS "$C" $G "$@"; }

	# an outside loopback service
	t -- "$PY" "$N" tcp 127.0.0.1 47001
	is "$out" ok:127.0.0.1 "$who: control: an outside loopback service answers"
	t --filter-ip -- "$PY" "$N" tcp 127.0.0.1 47001
	is "$out" EACCES "$who: --filter-ip: an outside loopback service is refused"
	t --filter-ip -- "$PY" "$N" tcp ::1 47001
	is "$out" EACCES "$who: ... over ::1 too"
	t --filter-ip -- "$PY" "$N" tcp ::ffff:127.0.0.1 47001
	is "$out" EACCES "$who: ... and as the IPv4-mapped ::ffff:127.0.0.1"
	t --filter-ip -- "$PY" "$N" tcp 0.0.0.0 47001
	is "$out" EACCES "$who: ... and as 0.0.0.0"
	t --filter-ip -- "$PY" "$N" tcp :: 47001
	is "$out" EACCES "$who: ... and as ::"
	t --loopback 47001 -- "$PY" "$N" tcp 127.0.0.1 47001
	is "$out" ok:127.0.0.1 "$who: --loopback 47001: that service answers"
	t --filter-ip -- "$PY" "$N" udp 127.0.0.1 47001
	is "$out" EACCES "$who: --filter-ip: UDP to an outside loopback port is refused"
	t -- "$PY" "$N" udpmsg 127.0.0.1 47001
	is "$out" ok "$who: control: sendmsg to it goes out"
	t --filter-ip -- "$PY" "$N" udpmsg 127.0.0.1 47001
	is "$out" EACCES "$who: --filter-ip: ... sendmsg with that address is refused"

	# sendmmsg: every message's address decided, sent by the broker
	t -- "$PY" "$N" mmsg 127.0.0.1 47001 2
	is "$out" ok:2 "$who: control: sendmmsg of 2 datagrams to an outside loopback port goes out"
	t --filter-ip -- "$PY" "$N" mmsg 127.0.0.1 47001 2
	is "$out" EACCES "$who: --filter-ip: ... refused"
	t --filter-ip -- "$PY" "$N" mmsg ::1 47001 2
	is "$out" EACCES "$who: ... over ::1 too"
	t --filter-ip -- "$PY" "$N" mmsg-own
	is "$out" ok:3:1,2,3:abbccc "$who: --filter-ip: sendmmsg to its own UDP socket: 3 sent, each msg_len, all received"
	t --filter-ip -- "$PY" "$N" mmsg-own 6
	is "$out" ok:3:1,2,3:abbccc "$who: ... on ::1 too"
	t -- "$PY" "$N" mmsg-mixed 127.0.0.1 47001
	is "$out" ok:3:13 "$who: control: own, outside, own in one sendmmsg: 3 sent"
	t --filter-ip -- "$PY" "$N" mmsg-mixed 127.0.0.1 47001
	is "$out" ok:1:1 "$who: --filter-ip: ... the first sent, stopped at the outside one (as the kernel stops at an error)"

	# the program's own servers
	t --filter-ip -- "$PY" "$N" own
	is "$out" ok:hi "$who: --filter-ip: its own TCP server on 127.0.0.1 is reachable"
	t --filter-ip -- "$PY" "$N" own6
	is "$out" ok:hi "$who: ... its own server on [::] through ::ffff:127.0.0.1"
	t --filter-ip -- "$PY" "$N" own-udp
	is "$out" ok:hi "$who: ... its own UDP socket"
	t --filter-ip -- "$PY" "$N" send
	is "$out" ok:abc "$who: ... send(), write() and sendmsg() without an address work"
	t --filter-ip -- "$PY" "$N" fd-pass
	is "$out" ok:p "$who: ... descriptors still pass over a socketpair (sendmsg SCM_RIGHTS)"
	t --filter-ip -- sh -c "$PY $N own >/dev/null; $PY $N tcp 127.0.0.1 47001"
	is "$out" EACCES "$who: ... an own port does not open another's"

	# another boundary's servers: --listeners records what one confine's
	# program binds, --loopback-from lets a second reach those and no other
	# (corral's browser and the agent's dev server)
	L=$TMP/listeners-$who
	: >"$L"
	chmod 0644 "$L"
	P=	# setpriv execs: $! is confine's pid
	[ -z "$AS" ] || P="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
	$P "$C" $G --filter-ip --listeners 7 -- "$PY" "$N" serve 127.0.0.1 47011 ::1 47012 \
	    >"$TMP/ag-$who" 2>&1 7>>"$L" &
	A=$!
	echo $A >>"$TMP/pids"
	while ! grep -q ready "$TMP/ag-$who" 2>/dev/null; do kill -0 $A 2>/dev/null || break; sleep 0.1; done
	unlike "$(wc -c <"$L")" '^0$' "$who: --listeners: the broker wrote its records ($(wc -c <"$L") bytes for 2 listeners)"
	t --filter-ip --loopback-from "$L" -- "$PY" "$N" tcp 127.0.0.1 47011
	is "$out" ok:127.0.0.1 "$who: --loopback-from: the other boundary's server on 127.0.0.1 answers"
	t --filter-ip --loopback-from "$L" -- "$PY" "$N" tcp ::1 47012
	is "$out" ok:::1 "$who: ... and on ::1"
	t --filter-ip -- "$PY" "$N" tcp 127.0.0.1 47011
	is "$out" EACCES "$who: control: without --loopback-from it is refused"
	t --filter-ip --loopback-from "$L" -- "$PY" "$N" tcp 127.0.0.1 47001
	is "$out" EACCES "$who: --loopback-from: an outside loopback service is still refused"
	t --filter-ip --loopback-from "$L" -- "$PY" "$N" tcp ::1 47011
	is "$out" EACCES "$who: ... a recorded port on another address is refused"
	t --filter-ip --loopback-from "$TMP/none" -- "$PY" "$N" tcp 127.0.0.1 47011
	is "$out" EACCES "$who: ... a missing file records nothing"
	kill $A
	wait $A 2>/dev/null
	run $AS "$C" --listeners 7 $G -- true 7>>"$L"
	is "$rc:$err" "125:confine: fatal: --listeners records what the IP broker serves: it needs --filter-ip
confine: hint: add --filter-ip (or --no-remote)" \
	    "$who: --listeners without --filter-ip: 125"
	run $AS "$C" --filter-ip --listeners 9 $G -- true
	is "$rc:$err" "125:confine: fatal: --listeners 9: not an open descriptor
confine: hint: open a file for appending in the caller (corral run makes ATTEMPT/listeners)" "$who: --listeners of a closed descriptor: 125"
	run $AS "$C" --filter-ip --loopback-from rel $G -- true
	is "$rc:$err" "125:confine: usage: loopback-from rel: the listeners file must be an absolute path" "$who: a relative --loopback-from: 125"

	# TCP Fast Open and MPTCP
	t -- "$PY" "$N" tfo-connect 127.0.0.1 47001
	is "$out" ok:127.0.0.1 "$who: control: TCP_FASTOPEN_CONNECT reaches the outside service"
	t --filter-ip -- "$PY" "$N" tfo-connect 127.0.0.1 47001
	is "$out" EACCES "$who: --filter-ip: ... refused (its connect is brokered)"
	t -- "$PY" "$N" tfo 127.0.0.1 47001
	is "$out" ok "$who: control: sendto(MSG_FASTOPEN) goes out"
	t --filter-ip -- "$PY" "$N" tfo 127.0.0.1 47001
	is "$out" EACCES "$who: --filter-ip: sendto(MSG_FASTOPEN) is refused"
	t -- "$PY" "$N" tfo-msg 127.0.0.1 47001
	is "$out" ok "$who: control: sendmsg(MSG_FASTOPEN) goes out"
	t --filter-ip -- "$PY" "$N" tfo-msg 127.0.0.1 47001
	is "$out" EACCES "$who: --filter-ip: sendmsg(MSG_FASTOPEN) is refused"
	t -- "$PY" "$N" mptcp 127.0.0.1 47001
	is "$out" ok "$who: control: an MPTCP socket connects"
	t --filter-ip -- "$PY" "$N" mptcp 127.0.0.1 47001
	is "$out" socket:EACCES "$who: --filter-ip: MPTCP sockets are refused"

	# bad words
	run $AS "$C" --filter-ip --no-network $G -- true
	is "$rc:$err" "125:confine: usage: no-network: no-network conflicts with address rules" \
	    "$who: --filter-ip with --no-network: 125"
	run $AS "$C" --loopback 0 $G -- true
	is "$rc:$err" "125:confine: usage: loopback 0: port must be a number from 1 to 65535" \
	    "$who: --loopback 0: 125"

	[ -n "$NS" ] || return 0
	# metadata and link-local (addresses on lo of the test's namespace)
	t -- "$PY" "$N" tcp 169.254.169.254 80
	is "$out" ok:169.254.169.254 "$who: control: the metadata address answers"
	t --filter-ip -- "$PY" "$N" tcp 169.254.169.254 80
	is "$out" EACCES "$who: --filter-ip: metadata 169.254.169.254 refused"
	t --filter-ip --loopback 80 -- "$PY" "$N" tcp 169.254.169.254 80
	is "$out" EACCES "$who: ... even with --loopback 80"
	t --filter-ip -- "$PY" "$N" tcp ::ffff:169.254.169.254 80
	is "$out" EACCES "$who: ... as ::ffff:169.254.169.254"
	t -- "$PY" "$N" tcp fd00:ec2::254 80
	is "$out" ok:fd00:ec2::254 "$who: control: fd00:ec2::254 answers"
	t --filter-ip -- "$PY" "$N" tcp fd00:ec2::254 80
	is "$out" EACCES "$who: --filter-ip: metadata fd00:ec2::254 refused"
	t -- "$PY" "$N" tcp 169.254.7.7 80
	is "$out" ok:169.254.7.7 "$who: control: a link-local address answers"
	t --filter-ip -- "$PY" "$N" tcp 169.254.7.7 80
	is "$out" EACCES "$who: --filter-ip: link-local refused"
	t --filter-ip -- "$PY" "$N" udp 169.254.169.254 53
	is "$out" EACCES "$who: --filter-ip: UDP to metadata refused (sendto)"
	t --filter-ip -- "$PY" "$N" udpmsg 169.254.169.254 53
	is "$out" EACCES "$who: ... (sendmsg)"
	t -- "$PY" "$N" mmsg 169.254.169.254 53 2
	is "$out" ok:2 "$who: control: sendmmsg to metadata goes out (in this namespace)"
	t --filter-ip -- "$PY" "$N" mmsg 169.254.169.254 53 2
	is "$out" EACCES "$who: --filter-ip: ... refused (sendmmsg)"
	t --filter-ip -- "$PY" "$N" mmsg 198.51.100.10 53 2
	is "$out" ok:2 "$who: --filter-ip: sendmmsg to a remote resolver goes out"

	# remote hosts
	t --filter-ip -- "$PY" "$N" tcp 198.51.100.10 80
	is "$out" ok:198.51.100.10 "$who: --filter-ip: a remote host answers"
	t --filter-ip -- "$PY" "$N" tcp 2001:db8::10 80
	is "$out" ok:2001:db8::10 "$who: ... over IPv6 too"
	t --filter-ip -- "$PY" "$N" udp 198.51.100.10 53
	is "$out" ok "$who: ... UDP to a remote resolver goes out (DNS stays open)"
	t -- "$PY" "$N" tcp 198.51.100.1 8088
	is "$out" ok:0.0.0.0 "$who: control: a service on 0.0.0.0 answers on this machine's own address"
	t --filter-ip -- "$PY" "$N" tcp 198.51.100.1 8088
	is "$out" EACCES "$who: --filter-ip: ... refused there: this machine's addresses count as loopback"
	t --filter-ip -- "$PY" "$N" tcp 10.0.0.10 80
	is "$out" ok:10.0.0.10 "$who: --filter-ip: a private address answers"
	t --deny-private -- "$PY" "$N" tcp 10.0.0.10 80
	is "$out" EACCES "$who: --deny-private: 10.0.0.10 refused"
	t --deny-private -- "$PY" "$N" tcp fd00::10 80
	is "$out" EACCES "$who: --deny-private: fd00::10 (ULA) refused"
	t --deny-private -- "$PY" "$N" tcp 198.51.100.10 80
	is "$out" ok:198.51.100.10 "$who: --deny-private: a public address still answers"
	t --no-remote -- "$PY" "$N" tcp 198.51.100.10 80
	is "$out" EACCES "$who: --no-remote: a remote host refused"
	t --no-remote -- "$PY" "$N" udp 198.51.100.10 53
	is "$out" EACCES "$who: --no-remote: ... UDP too"
	t --no-remote --loopback 47001 -- "$PY" "$N" tcp 127.0.0.1 47001
	is "$out" ok:127.0.0.1 "$who: --no-remote --loopback 47001: the one port answers"
	t --connect 443 --filter-ip -- "$PY" "$N" tcp 198.51.100.10 80
	is "$out" EACCES "$who: --connect 443 --filter-ip: port 80 refused by the broker"
	t --connect 80 --filter-ip -- "$PY" "$N" tcp 198.51.100.10 80
	is "$out" ok:198.51.100.10 "$who: --connect 80 --filter-ip: port 80 answers"
	t --connect 80 --filter-ip -- "$PY" "$N" tcp 169.254.169.254 80
	is "$out" EACCES "$who: ... metadata on port 80 still refused"

	# the loopback resolver named in /etc/resolv.conf: port 53 only
	t --filter-ip -- "$PY" "$N" tcp 127.0.0.53 53
	is "$out" ok:127.0.0.53 "$who: --filter-ip: the loopback resolver of resolv.conf answers on 53"
	t --no-remote -- "$PY" "$N" tcp 127.0.0.53 53
	is "$out" EACCES "$who: --no-remote: ... not there (the proxy resolves)"

	# the broker's workers: a connect it waits on holds up no other (a
	# unix listener outside with a full backlog that accepts nothing until
	# the program inside writes "go"; tests/helpers/slowconnect.py)
	D=$TMP/pool-$who
	mkdir -m 0777 "$D"
	"$PY" -c '
import os, socket, sys, time
p, go = sys.argv[1], sys.argv[2]
l = socket.socket(socket.AF_UNIX); l.bind(p); os.chmod(p, 0o777); l.listen(0)
print("ready", flush=True)
while not os.path.exists(go): time.sleep(0.05)
while True: l.accept()
' "$D/sock" "$D/go" >"$D/log" 2>&1 &
	echo $! >>"$TMP/pids"
	while ! grep -q ready "$D/log" 2>/dev/null; do sleep 0.1; done
	t --filter-ip --loopback 47001 --unix "$D/sock" -W "$D" -- "$PY" "$CORRAL_TOP/tests/helpers/slowconnect.py" "$D/sock" 47001 "$D/go"
	is "$rc:$(echo $out)" "0:s3:ok s2:pending s2:ok" "$who: a TCP connect is answered while another waits in the broker, which then completes"
}

suite root ""
suite nobody as_nobody
done_testing
