#!/bin/sh
# confine: every escape of issue 3, each with its exact errno or status,
# as root and again as nobody. Each escape has a control run without the
# boundary (or with the grant) that must succeed, so no check passes by
# accident.
. "$CORRAL_TOP/tests/lib/tap.sh"
H=$T/helpers
TRY=$H/confine-try
PTY=$CORRAL_TOP/tests/helpers/confine-pty.py
C=$CORRAL_BIN/confine
# a realistic read-only system plus the helpers
SYS="-x /usr -r /etc -r /proc --dev -x $H -x $CORRAL_BIN"

suite() {	# suite WHO AS
	who=$1 AS=$2
	D=$TMP/$who
	mkdir -p "$D/home/.ssh" "$D/home/.aws" "$D/ro/bin" "$D/ws" "$D/out"
	echo 'PRIVATE KEY' >"$D/home/.ssh/id_ed25519"
	echo 'aws_secret_access_key=x' >"$D/home/.aws/credentials"
	echo data >"$D/ro/file"
	cp /bin/true "$D/ro/bin/true"
	echo 'leaked secret' >"$D/leak"
	ln -s "$D/home/.ssh/id_ed25519" "$D/ws/link"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$D"
	G="$SYS -r $D/ro -w $D/ws"
	c() { $AS "$C" $G -- "$@"; }

	# home secrets of the invoking user
	run $AS "$TRY" read "$D/home/.ssh/id_ed25519"
	is "$out" ok "$who: control: the key is readable outside"
	run c "$TRY" read "$D/home/.ssh/id_ed25519"
	is "$out" EACCES "$who: reading ~/.ssh/id_ed25519: EACCES"
	run c "$TRY" read "$D/home/.aws/credentials"
	is "$out" EACCES "$who: reading ~/.aws/credentials: EACCES"

	# writes
	run c "$TRY" write "$D/ws/new"
	is "$out" ok "$who: writing inside the workspace works"
	run c "$TRY" write "$D/out/new"
	is "$out" EACCES "$who: writing outside the grants: EACCES"
	status_ok "$([ ! -e "$D/out/new" ]; echo $?)" "$who: ... and nothing was created"

	# exec from a read-only grant
	run c "$TRY" exec /usr/bin/true
	is "$out" ok "$who: control: exec from an -x grant works"
	run c "$TRY" exec "$D/ro/bin/true"
	is "$out" EACCES "$who: exec from a read-only grant: EACCES"

	# truncate, link, rename of a read-only file
	run c "$TRY" truncate "$D/ro/file"
	is "$out" EACCES "$who: truncating a read-only file: EACCES"
	is "$(cat "$D/ro/file")" data "$who: ... and it is intact"
	run c "$TRY" link "$D/ro/file" "$D/ws/hard"
	is "$out" EXDEV "$who: hard-linking a read-only file into the workspace: EXDEV"
	run c "$TRY" rename "$D/ro/file" "$D/ws/moved"
	is "$out" EACCES "$who: renaming a read-only file into the workspace: EACCES"
	status_ok "$([ -f "$D/ro/file" ] && [ ! -e "$D/ws/hard" ] && [ ! -e "$D/ws/moved" ]; echo $?)" \
	    "$who: ... and it stayed where it was"

	# a symlink in the workspace pointing at a secret
	run $AS "$TRY" read "$D/ws/link"
	is "$out" ok "$who: control: the symlink resolves outside"
	run c "$TRY" read "$D/ws/link"
	is "$out" EACCES "$who: reading a secret through a workspace symlink: EACCES"

	# the runner's environ, and killing it
	run $AS env CORRAL_SECRET_TOKEN=hunter2 "$H/confine-parent" -- "$TRY" environ-ppid
	is "$out" ok "$who: control: the parent's environ is readable outside"
	run $AS env CORRAL_SECRET_TOKEN=hunter2 "$H/confine-parent" -- "$C" $G -- "$TRY" environ-ppid
	is "$out" EACCES "$who: reading /proc/PPID/environ: EACCES"
	run $AS "$H/confine-parent" -- "$C" $G -- "$TRY" kill-ppid
	is "$rc.$out" 0.EPERM "$who: kill -9 of the parent: EPERM, parent alive"

	# unix sockets the parent listens on
	run $AS "$H/confine-parent" -a "corral-t-$who-$$" -u "$D/out/sock" -- \
	    "$TRY" abstract "corral-t-$who-$$"
	is "$out" ok "$who: control: the abstract socket is reachable outside"
	run $AS "$H/confine-parent" -a "corral-t-$who-$$" -- "$C" $G -- "$TRY" abstract "corral-t-$who-$$"
	is "$out" socket:EACCES "$who: abstract unix connect: socket(AF_UNIX) EACCES"
	rm -f "$D/out/sock"
	run $AS "$H/confine-parent" -u "$D/out/sock" -- "$C" $G -- "$TRY" unix "$D/out/sock"
	is "$out" socket:EACCES "$who: pathname unix connect: socket(AF_UNIX) EACCES"
	rm -f "$D/out/sock"
	run c "$TRY" socketpair
	is "$out" ok "$who: socketpair still works"

	# TIOCSTI into the controlling terminal, under a real pty
	run $AS "$PTY" DONE clean -- /bin/sh -c '"$@"; echo DONE; read -r line; echo "LINE=$line"' \
	    sh "$TRY" tiocsti 'echo INJECTED'
	like "$out" 'LINE=echo INJECTED' "$who: control: TIOCSTI injects outside"
	run $AS "$PTY" DONE clean -- /bin/sh -c '"$@"; echo DONE; read -r line; echo "LINE=$line"' \
	    sh "$C" $G -- "$TRY" tiocsti 'echo INJECTED'
	like "$out" '^EPERM' "$who: TIOCSTI: EPERM"
	like "$out" 'LINE=clean' "$who: ... the outer shell read only what was typed"
	unlike "$out" 'LINE=.*INJECTED' "$who: ... and never the injected text"

	# an fd leaked without CLOEXEC
	run $AS "$H/confine-parent" -l "7=$D/leak" -- "$TRY" readfd 7
	is "$out" ok "$who: control: the leaked fd is readable outside"
	run $AS "$H/confine-parent" -l "7=$D/leak" -- "$C" $G -- "$TRY" readfd 7
	is "$out" EBADF "$who: reading a leaked fd: EBADF"
	run $AS "$H/confine-parent" -l "7=$D/leak" -- "$C" --keep-fd 7 $G -- "$TRY" readfd 7
	is "$out" ok "$who: --keep-fd 7 keeps it"

	# a core dump of a process holding a secret
	run $AS env CORRAL_SECRET_TOKEN=hunter2 "$TRY" core "$D/ws"
	is "$out" core "$who: control: a core is dumped outside"
	rm -f "$D"/ws/core*
	run $AS env CORRAL_SECRET_TOKEN=hunter2 "$C" $G -- "$TRY" core "$D/ws"
	is "$out" nocore "$who: no core dump inside (RLIMIT_CORE 0, not raisable)"
	status_ok "$(ls "$D"/ws/core* >/dev/null 2>&1; [ $? -ne 0 ]; echo $?)" "$who: ... and no core file"

	# --no-network
	run $AS "$H/confine-parent" -t -- "$TRY" tcp @P1@
	is "$out" ok "$who: control: TCP connect outside"
	run $AS "$H/confine-parent" -t -- "$C" --no-network $G -- "$TRY" tcp @P1@
	is "$out" socket:EACCES "$who: --no-network: TCP connect: EACCES"
	run c "$TRY" udp 9
	is "$out" ok "$who: control: UDP sendto with the network open"
	run $AS "$C" --no-network $G -- "$TRY" udp 9
	is "$out" socket:EACCES "$who: --no-network: UDP sendto: EACCES"
	run $AS "$C" --no-network $G -- "$TRY" raw
	is "$out" socket:EACCES "$who: --no-network: raw socket: EACCES"
	run $AS "$H/confine-parent" -t -- "$C" --no-network $G -- "$TRY" mptcp @P1@
	is "$out" socket:EACCES "$who: --no-network: MPTCP socket: EACCES"

	# --connect P
	run $AS "$H/confine-parent" -t -- "$C" --connect @P1@ $G -- "$TRY" tcp @P1@
	is "$out" ok "$who: --connect P: P allowed"
	run $AS "$H/confine-parent" -t -- "$C" --connect @P1@ $G -- "$TRY" tcp @P2@
	is "$out" EACCES "$who: --connect P: another port: EACCES"
	run $AS "$H/confine-parent" -t -- "$C" --connect @P1@ $G -- "$TRY" mptcp @P1@
	is "$out" socket:EACCES "$who: --connect P: MPTCP socket (would bypass the port rules): EACCES"
	run $AS "$C" --connect 1 $G -- "$TRY" sctp
	is "$out" socket:EACCES "$who: --connect P: SCTP socket: EACCES"
	run $AS "$C" --connect 1 $G -- "$TRY" udp 9
	is "$out" ok "$who: --connect P: UDP stays open (name resolution)"
	run $AS "$H/confine-parent" -t -- "$TRY" tfo @P2@
	is "$out" ok "$who: control: a TCP Fast Open sendto connects outside"
	run $AS "$H/confine-parent" -t -- "$C" --connect @P1@ $G -- "$TRY" tfo @P2@
	is "$out" EACCES "$who: --connect P: TCP Fast Open to another port (bypasses Landlock): EACCES"
	run $AS "$C" --connect 1 $G -- "$TRY" bind 0
	is "$out" EACCES "$who: --connect P: bind to an ungranted port: EACCES"

	# devices: only the usable ones
	run c "$TRY" write /dev/null
	is "$out" ok "$who: --dev: /dev/null is writable"
	run c "$TRY" read /dev/kmsg
	is "$out" EACCES "$who: --dev: /dev/kmsg is not granted: EACCES"

	# io_uring, keyrings
	run c "$TRY" io-uring
	is "$out" ENOSYS "$who: io_uring_setup: ENOSYS"
	run $AS "$TRY" keyctl
	is "$out" ok "$who: control: the user keyring is reachable outside"
	run c "$TRY" keyctl
	is "$out" ENOSYS "$who: keyctl on the runner's keyring: ENOSYS"
}

suite root ""
suite nobody as_nobody
done_testing
