#!/bin/sh
# The embedded default grants the system trees that exist: in a root with
# no /usr and no /sbin (a FROM scratch image: the static binaries and a
# static busybox, here a chroot in a mount namespace of the test's own)
# they are left out and named by explain and doctor, and corral run works;
# a policy that names /usr itself is refused. Root, and nobody inside.
. "$CORRAL_TOP/tests/lib/tap.sh"
BB=$(command -v busybox || true)
if ! is_root || ! command -v unshare >/dev/null || [ -z "$BB" ] || ! file -L "$BB" | grep -q 'statically linked'; then
	echo "1..0 # SKIP needs root, unshare -m and a static busybox (busybox-static): the root without /usr is a chroot of the test's own"
	exit 0
fi
R=$TMP/root
mkdir -p "$R/bin" "$R/proc" "$R/dev" "$R/tmp" "$R/etc" "$R/root/w" "$R/home/nobody/w"
chmod 1777 "$R/tmp"
chown -R 65534:65534 "$R/home/nobody"
for p in "$CORRAL_BIN"/*; do cp "$p" "$R/bin/"; done
cp "$BB" "$R/bin/busybox"
# The san build's programs are dynamic (glibc, ASan): the root gets their
# loader and libraries, in /lib and /lib64, which the default grants too.
libs=
if [ "${CORRAL_MODE:-musl}" = san ]; then
	"$CORRAL_TOP/mk/libs-of" "$R" "$CORRAL_BIN"/*
	libs="-x /lib -x /lib64 "
fi
for a in sh cat echo; do ln -s busybox "$R/bin/$a"; done
printf '{"exec": ["/usr"]}\n' > "$R/root/usr.json"
printf '{"exec": ["/usr"]}\n' > "$R/home/nobody/usr.json"
chown 65534 "$R/home/nobody/usr.json"
# inroot USER DIR CMD...: CMD in the chroot, as USER (0 or 65534), in DIR
inroot() {
	u=$1 d=$2; shift 2
	if [ "$u" = 0 ]; then h=/root; else h=/home/nobody; fi
	unshare -m sh -c 'mount --rbind /proc "$0/proc" && mount --rbind /dev "$0/dev" && exec "$@"' "$R" \
	    chroot --userspec="$u:$u" "$R" /bin/busybox env -i HOME=$h PATH=/bin sh -c 'cd "$0" && exec "$@"' "$d" "$@"
}
for who in root nobody; do
	if [ $who = root ]; then u=0 d=/root/w; else u=65534 d=/home/nobody/w; fi
	run inroot $u $d /bin/corral explain -- sh -c true
	is "$rc" 0 "$who: explain without /usr and /sbin: exit 0"
	like "$out" "^# left out: /usr, a system tree of the default \"exec\": not on this machine$" "$who: explain names /usr left out"
	like "$out" "^# left out: /sbin, a system tree of the default \"exec\": not on this machine$" "$who: ... and /sbin"
	like "$out" "confine (--no-symlinks )?-x /bin $libs-x /etc " "$who: the trees that exist granted"
	unlike "$out" "-x /usr" "$who: /usr not granted"

	run inroot $u $d /bin/corral run -- sh -c 'echo in; cat /proc/self/status >/dev/null && echo proc'
	is "$rc:$out" "0:in
proc" "$who: corral run works without /usr (the agent's own command ran)"
	unlike "$err" "fatal" "$who: ... no refusal"

	run inroot $u $d /bin/corral doctor
	is "$rc" 0 "$who: doctor: exit 0"
	like "$out" "^  left out: /usr, a system tree of the default \"exec\": not on this machine$" "$who: doctor names /usr left out"

	run inroot $u $d /bin/corral run -p ../usr.json -- sh -c 'echo in'
	is "$rc:$out" "125:" "$who: a policy naming /usr: refused, nothing ran"
	is "$err" 'corral: fatal: policy "exec" grants /usr: No such file or directory
corral: hint: remove it from the policy, or create it first' "$who: ... the tree named, a hint"
done
done_testing
