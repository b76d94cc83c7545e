#!/bin/sh
# confine: a grant of /etc (corral's default grants it) is made entry by
# entry without the secrets of lib/etc_secrets.c: as root (and as nobody,
# given files nobody could read) /etc/shadow, gshadow, their backups, ssh
# host keys, /etc/ssl/private and /etc/security/opasswd read
# EACCES, while passwd, ssh_config, the host keys' public halves and
# certificates read. The secrets are real files on tmpfs and bind mounts in
# a private mount namespace the test makes, so nothing of this machine's
# /etc changes; each has its control run without confine.
. "$CORRAL_TOP/tests/lib/tap.sh"
H=$T/helpers
TRY=$H/confine-try
C=$CORRAL_BIN/confine
SYS="-x /usr -x /bin -x /lib -o -x /lib64 -r /proc -x $H"

if ! is_root; then
	diag "not root: no mount namespace to plant secrets in; only the real /etc/shadow"
	run "$C" $SYS -r /etc -- "$TRY" read /etc/shadow
	is "$out" EACCES "/etc/shadow under -r /etc: EACCES"
	done_testing
	exit
fi

# the real machine, as root: shadow and gshadow are here
for f in /etc/shadow /etc/gshadow; do
	run "$TRY" read $f
	is "$out" ok "root: control: $f reads outside"
	run "$C" $SYS -r /etc -- "$TRY" read $f
	is "$out" EACCES "root: $f under -r /etc: EACCES"
	run "$C" $SYS -x /etc -- "$TRY" read $f
	is "$out" EACCES "root: $f under -x /etc (the default policy's grant): EACCES"
done
run "$C" $SYS -r / -- "$TRY" read /etc/shadow
is "$out" EACCES "root: /etc/shadow under -r /: EACCES"
run "$C" $SYS -r /etc -- "$TRY" read /etc/passwd
is "$out" ok "root: /etc/passwd under -r /etc reads"
run "$C" $SYS -r /etc/shadow -- "$TRY" read /etc/shadow
is "$out" ok "root: a grant naming /etc/shadow itself reaches it"
run "$C" $SYS -r /etc -- sh -c 'ls /etc | grep -c .'
is "$out" "$(ls /etc | grep -c .)" "root: /etc lists every name"

# planted secrets, in a private mount namespace
cat >"$TMP/inner.sh" <<'IN'
set -eu
mount -t tmpfs -o mode=0755 tmpfs /etc/ssh
echo 'Host *' >/etc/ssh/ssh_config
echo 'PRIVATE HOST KEY' >/etc/ssh/ssh_host_ed25519_key
echo 'ssh-ed25519 PUBLIC' >/etc/ssh/ssh_host_ed25519_key.pub
mkdir /etc/ssh/ssh_config.d
echo 'Port 22' >/etc/ssh/ssh_config.d/x.conf
mount -t tmpfs -o mode=0755 tmpfs /etc/ssl/private
echo 'PRIVATE TLS KEY' >/etc/ssl/private/site.key
mount -t tmpfs -o mode=0755 tmpfs /etc/security
echo 'root:1:$6$old' >/etc/security/opasswd
echo '* soft core 0' >/etc/security/limits.conf
echo 'root:$6$planted:19000::::::' >"$1/shadow"
mount --bind "$1/shadow" /etc/shadow
chmod 0644 /etc/ssh/ssh_config /etc/ssh/ssh_host_ed25519_key* /etc/ssh/ssh_config.d/x.conf \
    /etc/ssl/private/site.key /etc/security/opasswd /etc/security/limits.conf "$1/shadow"
IN
cat >"$TMP/check.sh" <<'CK'
# check.sh WHO AS...: the attempts, in the namespace; "name result" lines
who=$1; shift
for f in /etc/shadow /etc/ssh/ssh_host_ed25519_key /etc/ssl/private/site.key /etc/security/opasswd \
    /etc/ssh/ssh_config /etc/ssh/ssh_host_ed25519_key.pub /etc/ssh/ssh_config.d/x.conf \
    /etc/security/limits.conf /etc/passwd; do
	echo "out $f $("$@" "$TRY" read $f)"
	echo "in $f $("$@" "$C" $SYS -r /etc -- "$TRY" read $f)"
done
echo "ls-ssh $("$@" "$C" $SYS -r /etc -- ls /etc/ssh | tr '\n' ' ')"
echo "rename $("$@" "$C" $SYS -w /etc -- "$TRY" rename /etc/ssh/ssh_host_ed25519_key /etc/ssh/stolen)"
echo "write $("$@" "$C" $SYS -w /etc -- "$TRY" write /etc/ssh/new)"
echo "explicit $("$@" "$C" $SYS -r /etc/ssh/ssh_host_ed25519_key -- "$TRY" read /etc/ssh/ssh_host_ed25519_key)"
echo "key-left $(cat /etc/ssh/ssh_host_ed25519_key)"
CK
for who in root nobody; do
	if [ $who = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	mkdir -p "$TMP/$who"
	r=$(TRY=$TRY C=$C SYS=$SYS unshare -m --propagation private sh -c \
	    'sh "$1" "$2" >"$2/setup.log" 2>&1 || { echo "setup failed: $(cat "$2/setup.log")"; exit 1; }; shift 2; sh "$@"' \
	    sh "$TMP/inner.sh" "$TMP/$who" "$TMP/check.sh" $who $AS)
	is "$?" 0 "$who: the namespace was set up and the checks ran"
	get() { printf '%s\n' "$r" | sed -n "s|^$1 ||p"; }
	for f in /etc/shadow /etc/ssh/ssh_host_ed25519_key /etc/ssl/private/site.key /etc/security/opasswd; do
		is "$(get "out $f")" ok "$who: control: planted $f reads outside"
		is "$(get "in $f")" EACCES "$who: $f under -r /etc: EACCES"
	done
	for f in /etc/ssh/ssh_config /etc/ssh/ssh_host_ed25519_key.pub /etc/ssh/ssh_config.d/x.conf \
	    /etc/security/limits.conf /etc/passwd; do
		is "$(get "in $f")" ok "$who: $f under -r /etc reads"
	done
	like "$(get ls-ssh)" "ssh_host_ed25519_key " "$who: the names in /etc/ssh stay listable"
	is "$(get rename)" EACCES "$who: -w /etc: renaming a host key to a readable name: EACCES"
	is "$(get write)" EACCES "$who: -w /etc: a directory that holds a secret takes no new file"
	is "$(get explicit)" ok "$who: a grant naming the host key itself reaches it"
	is "$(get key-left)" "PRIVATE HOST KEY" "$who: the key is where it was"
done
is "$(cat /etc/ssh/ssh_config | head -c 1 | wc -c)" 1 "this machine's /etc/ssh is untouched"
done_testing
