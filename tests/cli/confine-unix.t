#!/bin/sh
# confine --unix: pathname sockets through the seccomp user-notification
# broker, as root and as nobody. Only listed paths connect, to the socket
# pinned at start (a rename or symlink swap inside changes nothing);
# abstract sockets stay scoped; TCP rules still hold for brokered connects.
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
}

suite root ""
suite nobody as_nobody
done_testing
