#!/bin/sh
# confine --unix: pathname sockets through the seccomp user-notification
# broker, as root and as nobody. Only listed paths connect, to the socket
# pinned at start (a rename or symlink swap inside changes nothing);
# abstract sockets stay scoped; TCP rules still hold for brokered connects;
# a unix datagram with an address (from a socketpair) is refused, with its
# control run outside.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
H=$T/helpers
TRY=$H/confine-try

suite() {	# suite WHO AS
	who=$1 AS=$2
	D=$TMP/$who
	mkdir -p "$D/ws" "$D/out"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$D"
	G="-x /usr -r /etc -r /proc --dev -x $H -W $D/ws"
	P=p
	p() { rm -f "$D/ws/a" "$D/ws/a.old" "$D/out/b"
		$AS "$H/confine-parent" -U "$D/ws/a" -U "$D/out/b" -a "corral-u-$who-$$" "$@"; }

	run $P -- "$C" --unix "$D/ws/a" $G -- "$TRY" unix-read "$D/ws/a"
	is "$out" "ok:$D/ws/a" "$who: --unix A: A connects (through the broker)"
	run $P -- "$C" --unix "$D/ws/a" $G -- "$TRY" unix-read "$D/out/b"
	is "$out" EACCES "$who: --unix A: B is refused with EACCES"
	run $P -- "$TRY" unix-read "$D/out/b"
	is "$out" "ok:$D/out/b" "$who: control: B answers outside"
	run $P -- "$C" --unix "$D/ws/a" $G -- "$TRY" abstract "corral-u-$who-$$"
	is "$out" EPERM "$who: --unix A: abstract socket still scoped: EPERM"
	run $P -- "$C" --unix "$D/ws/a" $G -- sh -c \
	    "mv $D/ws/a $D/ws/a.old && ln -s $D/out/b $D/ws/a && $TRY unix-read $D/ws/a"
	is "$out" "ok:$D/ws/a" "$who: swapping A for a symlink to B still reaches the pinned A"
	status_ok "$([ -L "$D/ws/a" ] && [ -S "$D/ws/a.old" ]; echo $?)" "$who: ... (the swap did happen)"
	rm -f "$D/ws/a" "$D/ws/a.old" "$D/out/b"
	run $P -- "$C" --unix "$D/ws/a" $G -- "$TRY" socketpair
	is "$out" ok "$who: socketpair works"
	run $AS "$H/confine-parent" -t -- "$C" --unix /dev/null $G -- "$TRY" tcp @P1@
	is "$rc:$err" "125:confine: fatal: --unix /dev/null: not a socket
confine: hint: name an existing unix socket" \
	    "$who: --unix of a non-socket: 125"
	rm -f "$D/ws/a" "$D/out/b"
	run $AS "$H/confine-parent" -U "$D/ws/a" -t -- "$C" --unix "$D/ws/a" --connect @P1@ $G -- "$TRY" tcp @P1@
	is "$out" ok "$who: --unix with --connect P: P connects through the broker"
	rm -f "$D/ws/a"
	run $AS "$H/confine-parent" -U "$D/ws/a" -t -- "$C" --unix "$D/ws/a" --connect @P1@ $G -- "$TRY" tcp @P2@
	is "$out" EACCES "$who: ... another port: EACCES, the broker holds the same rules"
	rm -f "$D/ws/a"
	run $AS "$H/confine-parent" -U "$D/ws/a" -t -- "$C" --unix "$D/ws/a" --no-network $G -- "$TRY" tcp @P1@
	is "$out" socket:EACCES "$who: ... --no-network still refuses TCP sockets"
	rm -f "$D/ws/a"
	run $AS "$H/confine-parent" -U "$D/ws/a" -- "$C" --unix "$D/ws/a" $G -- sh -c "$TRY unix-read $D/ws/a; $TRY unix-read $D/ws/a"
	is "$out" "ok:$D/ws/a
ok:$D/ws/a" "$who: repeated connects are served"
	rm -f "$D/ws/a"

	# a datagram with an address, from a SOCK_DGRAM socketpair (no
	# socket(AF_UNIX) needed), to an outside datagram socket
	U=$CORRAL_TOP/tests/helpers/unixdgram.py
	GU="$G -x $CORRAL_TOP/tests/helpers"
	run $AS "$PY" "$U" sendto "$DG"
	is "$out" ok "$who: control: outside, sendto the datagram socket goes out"
	run $P -- "$C" --unix "$D/ws/a" $GU -- "$PY" "$U" sendto "$DG"
	is "$out" EACCES "$who: --unix A: sendto with a pathname address is refused (the broker)"
	run $P -- "$C" --unix "$D/ws/a" $GU -- "$PY" "$U" sendmsg "$DG"
	is "$out" EACCES "$who: --unix A: ... sendmsg with it too"
	run $P -- "$C" --unix "$D/ws/a" $GU -- "$PY" "$U" abstract "corral-dg-$who-$$"
	is "$out" EPERM "$who: --unix A: ... an abstract address: EPERM (scoped)"
	run $P -- "$C" --filter-ip $GU -- "$PY" "$U" sendto "$DG"
	is "$out" EACCES "$who: --filter-ip: sendto with a pathname address is refused"
	run $P -- "$C" --unix "$D/ws/a" $GU -- "$PY" "$U" pair
	is "$out" ok:hip "$who: --unix A: within the pair: send() and a descriptor (sendmsg) still work"
	is "$(cat "$DG.log")" "via-sendto" "$who: ... and only the control's datagram arrived"
	: >"$DG.log"
	rm -f "$D/ws/a"
}

PY=/usr/bin/python3
DG=$TMP/dg
"$PY" "$CORRAL_TOP/tests/helpers/unixdgram.py" serve "$DG" >"$TMP/dg.out" 2>&1 &
dgp=$!
trap 'kill $dgp 2>/dev/null; rm -rf "$TMP"' EXIT
while ! grep -q ready "$TMP/dg.out" 2>/dev/null; do
	kill -0 $dgp 2>/dev/null || { cat "$TMP/dg.out" >&2; break; }
	sleep 0.05
done
suite root ""
suite nobody as_nobody
done_testing
