#!/bin/sh
# What confine(1) CAVEATS documents rather than closes, shown to hold as
# written, each beside its control, as root and as nobody: a binary from a
# read-only grant is refused by execve (126) yet runs through the dynamic
# loader; a directory the program cannot list (~/.ssh) can still be
# watched with inotify, which reports the names created there.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
LD=/lib64/ld-linux-x86-64.so.2
SYS="-x /usr -x /lib -x /lib64 -r /etc -r /proc"
mkdir -p "$TMP/ro" "$TMP/home/.ssh" "$TMP/sig"
chmod 0777 "$TMP/sig"
cp /usr/bin/true "$TMP/ro/prog"
chmod -R a+rX "$TMP/ro"
cat >"$TMP/watch.py" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
try:
    os.listdir(sys.argv[1])
    print("listed")
except PermissionError:
    print("list denied")
fd = libc.inotify_init1(0)
wd = libc.inotify_add_watch(fd, sys.argv[1].encode(), 0x100 | 0x20)  # IN_CREATE | IN_OPEN
print("watch", "added" if wd >= 0 else "refused: " + os.strerror(ctypes.get_errno()), flush=True)
if wd >= 0:
    open(sys.argv[2], "w").close()
    buf = os.read(fd, 4096)
    _, _, _, n = struct.unpack_from("iIII", buf)
    print("saw", buf[16:16 + n].rstrip(b"\0").decode())
PY
chmod a+r "$TMP/watch.py"
for who in root nobody; do
	AS=; [ $who = nobody ] && AS=as_nobody
	[ $who = nobody ] && chown -R nobody:nogroup "$TMP/home"
	chmod 0700 "$TMP/home/.ssh"
	run $AS "$C" $SYS -r "$TMP/ro" -- "$TMP/ro/prog"
	is "$rc" 126 "$who: control: a binary in a read-only grant: execve refused (126)"
	run $AS "$C" $SYS -r "$TMP/ro" -- "$LD" "$TMP/ro/prog"
	is "$rc" 0 "$who: documented: the dynamic loader runs it all the same"
	run $AS "$C" $SYS -x "$TMP/ro" -- "$TMP/ro/prog"
	is "$rc" 0 "$who: control: with the execute right it runs directly"
	rm -f "$TMP/home/.ssh/created-$who" "$TMP/sig/ready"
	# the watcher inside; the file is made outside once the watch is in place
	( $AS "$C" $SYS -r "$TMP/watch.py" -w "$TMP/sig" -- /usr/bin/python3 "$TMP/watch.py" "$TMP/home/.ssh" "$TMP/sig/ready" >"$TMP/w.out" 2>&1 ) &
	wp=$!
	k=0; while [ ! -e "$TMP/sig/ready" ] && [ $k -lt 300 ] && kill -0 $wp 2>/dev/null; do sleep 0.1; k=$((k + 1)); done
	touch "$TMP/home/.ssh/created-$who"
	wait $wp
	is "$(cat "$TMP/w.out")" "list denied
watch added
saw created-$who" "$who: documented: ~/.ssh cannot be listed, yet an inotify watch on it sees the name created there"
done
done_testing
