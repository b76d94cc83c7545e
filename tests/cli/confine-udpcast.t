#!/bin/sh
# confine --filter-ip: UDP broadcast and multicast (255.255.255.255, a
# subnet's broadcast address, 224.0.0.1, ff02::1) reach this machine's own
# listeners, so the broker refuses them as it refuses the machine's own
# addresses: only to ports the boundary's own processes bound. Only inside a
# network namespace this test makes (unshare -n, a veth pair with
# 10.9.0.1/24 and fd09::1/64, nothing leaves it); as root and as nobody.
# Controls: from outside the boundary each destination reaches the
# listener; inside, the agent's own UDP on loopback works.
if [ -z "${CORRAL_UDP_NS:-}" ] && [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
	CORRAL_UDP_NS=1 exec unshare -n sh "$0" "$@"
fi
. "$CORRAL_TOP/tests/lib/tap.sh"
if [ -z "${CORRAL_UDP_NS:-}" ]; then
	echo "1..0 # SKIP needs root and a network namespace (never sends outside one)"
	exit 0
fi
C=$CORRAL_BIN/confine
G="-x /usr -x /lib -o -x /lib64 -r /etc -r /proc --dev"
ip link set lo up
ip link add v0 type veth peer name v1 && ip addr add 10.9.0.1/24 brd + dev v0 &&
    ip link set v0 up && ip link set v1 up && ip -6 addr add fd09::1/64 dev v0 nodad &&
    ip route add default dev v0 && ip route add 224.0.0.0/4 dev v0
status_ok $? "a private network namespace with a veth pair"
cat >"$TMP/udp.py" <<'PY'
import socket, sys, time
if sys.argv[1] == "serve":			# serve PORT: answer every datagram, v4 and v6
    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(("0.0.0.0", int(sys.argv[2])))
    b = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); b.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    b.bind(("::", int(sys.argv[2])))
    print("ready", flush=True)
    import select
    while True:
        for s in select.select([a, b], [], [])[0]:
            d, peer = s.recvfrom(100)
            s.sendto(b"pong:" + d, peer)
port = int(sys.argv[2])
for dst in sys.argv[3:]:
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(3)
    if fam == socket.AF_INET:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        addr = (dst, port)
    else:
        addr = (dst, port, 0, socket.if_nametoindex("v0"))
    try:
        s.sendto(b"ping", addr)
        print(dst, s.recvfrom(100)[0].decode())
    except OSError as e:
        print(dst, e.strerror)
PY
chmod a+r "$TMP/udp.py"
P=$(( 20000 + $$ % 20000 ))
/usr/bin/python3 "$TMP/udp.py" serve $P >"$TMP/serve.out" 2>&1 &
SP=$!
trap 'kill $SP 2>/dev/null; wait $SP 2>/dev/null; rm -rf "$TMP"' EXIT
k=0; while ! grep -q ready "$TMP/serve.out" && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
D="255.255.255.255 10.9.0.255 224.0.0.1 ff02::1"
run /usr/bin/python3 "$TMP/udp.py" send $P $D
is "$out" "255.255.255.255 pong:ping
10.9.0.255 pong:ping
224.0.0.1 pong:ping
ff02::1 pong:ping" "control: outside the boundary each one reaches the listener on 0.0.0.0 and ::"
for who in root nobody; do
	AS=; [ $who = nobody ] && AS=as_nobody
	run $AS "$C" $G -r "$TMP/udp.py" --filter-ip -- /usr/bin/python3 "$TMP/udp.py" send $P $D
	is "$out" "255.255.255.255 Permission denied
10.9.0.255 Permission denied
224.0.0.1 Permission denied
ff02::1 Permission denied" "$who: inside, broadcast and multicast to the machine's listener are refused (EACCES)"
	run $AS "$C" $G -r "$TMP/udp.py" --filter-ip -- /usr/bin/python3 -c '
import socket
r = socket.socket(); r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"own", r.getsockname())
print(r.recvfrom(10)[0].decode())'
	is "$rc:$out" "0:own" "$who: control: the agent's own UDP on loopback works"
done
done_testing
