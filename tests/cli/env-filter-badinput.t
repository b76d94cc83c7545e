#!/bin/sh
# env-filter: every bad input is its own one-line error, exit 125, nothing run.
. "$CORRAL_TOP/tests/lib/tap.sh"
EF=$CORRAL_BIN/env-filter
umask 077

# refuse DESC STDERR ARGS...: 125, exactly STDERR, PROG (touch) never ran
refuse() {
	desc=$1 want=$2
	shift 2
	rm -f "$TMP/ran"
	run env -i PATH=/usr/bin:/bin "$EF" "$@" -- /usr/bin/touch "$TMP/ran"
	is "$rc" 125 "$desc: exit 125"
	is "$err" "$want" "$desc: message"
	is "$out" "" "$desc: nothing on stdout"
	[ ! -e "$TMP/ran" ]
	status_ok $? "$desc: nothing exec'd"
}
F() { printf "$2" >"$TMP/$1"; chmod 0600 "$TMP/$1"; echo "$TMP/$1"; }

# command-line layers: the value is never echoed
refuse "-s without '='" "env-filter: fatal: -s: line without '='" -s NOEQUALSVALUE
refuse "-s invalid name" "env-filter: fatal: -s: invalid variable name" -s 1A=x
refuse "-s dash in name" "env-filter: fatal: -s: invalid variable name" -s A-B=x
refuse "-s empty name" "env-filter: fatal: -s: invalid variable name" -s =x
refuse "-p without '='" "env-filter: fatal: -p: line without '='" -p HOME
refuse "-p invalid name" "env-filter: fatal: -p: invalid variable name" -p 'A B=x'
refuse "-p twice" "env-filter: fatal: -p: HOME pinned twice" -p HOME=/a -p HOME=/b
refuse "-k invalid name" "env-filter: fatal: -k: invalid variable name" -k A=B
refuse "-k empty" "env-filter: fatal: -k: invalid variable name" -k ''

# files
f=$(F noeq.env 'A=1\n# c\nJUSTANAME\n')
refuse "-f line without '='" "env-filter: fatal: $f:3: line without '='" -f "$f"
f=$(F name.env 'A=1\n1BAD=x\n')
refuse "-f invalid name" "env-filter: fatal: $f:2: invalid variable name" -f "$f"
f=$(F export.env 'export A=1\n')
refuse "-f export prefix" "env-filter: fatal: $f:1: invalid variable name" -f "$f"
f=$(F nul.env 'A=1\nB=x\0y\n')
refuse "-f NUL byte" "env-filter: fatal: $f:2: NUL byte in line" -f "$f"
f=$(F cr.env 'A=1\r\n')
refuse "-f CRLF" "env-filter: fatal: $f:1: carriage return in line" -f "$f"
{ printf 'A=1\nB='; head -c 32766 /dev/zero | tr '\0' x; printf '\n'; } >"$TMP/long.env"
run env -i "$EF" -f "$TMP/long.env" -- /bin/true
is "$rc:$err" "0:" "-f: a line of exactly 32768 bytes passes"
{ printf 'A=1\nB='; head -c 32767 /dev/zero | tr '\0' x; printf '\n'; } >"$TMP/long.env"
refuse "-f over-long line" "env-filter: fatal: $TMP/long.env:2: line longer than 32768 bytes" -f "$TMP/long.env"
i=0; while [ $i -lt 1025 ]; do echo "V$i=x"; i=$((i + 1)); done >"$TMP/many.env"
refuse "-f too many entries" "env-filter: fatal: $TMP/many.env:1025: more than 1024 entries" -f "$TMP/many.env"
head -n 1000 "$TMP/many.env" >"$TMP/k1.env"
sed -n '1001,1024p;' "$TMP/many.env" | sed 's/^V/W/' >"$TMP/k2.env"
echo "LAST=1" >>"$TMP/k2.env"
refuse "too many variables over two files" "env-filter: fatal: $TMP/k2.env:25: more than 1024 entries" -f "$TMP/k1.env" -f "$TMP/k2.env"
head -c 1048577 /dev/zero | tr '\0' '#' >"$TMP/huge.env"
refuse "-f over 1 MiB" "env-filter: fatal: $TMP/huge.env: larger than 1048576 bytes" -f "$TMP/huge.env"

f=$(F real.env 'A=1\n')
ln -s "$f" "$TMP/link.env"
refuse "-f symlink" "env-filter: fatal: $TMP/link.env: is a symbolic link" -f "$TMP/link.env"
chmod 0640 "$f"
refuse "-f group-readable" "env-filter: fatal: $f: readable by group or others (mode 0640)
env-filter: hint: chmod 600 $f" -f "$f"
chmod 0604 "$f"
refuse "-f other-readable" "env-filter: fatal: $f: readable by group or others (mode 0604)
env-filter: hint: chmod 600 $f" -f "$f"
chmod 0620 "$f"
refuse "-f group-writable" "env-filter: fatal: $f: writable by group or others (mode 0620)
env-filter: hint: chmod 600 $f" -f "$f"
chmod 0400 "$f"
run env -i "$EF" -f "$f" -- /bin/true
is "$rc:$err" "0:" "-f: mode 0400 is fine"
refuse "-f missing" "env-filter: fatal: unable to open $TMP/nope.env: No such file or directory" -f "$TMP/nope.env"
mkdir "$TMP/dir.env"
refuse "-f directory" "env-filter: fatal: $TMP/dir.env: not a regular file" -f "$TMP/dir.env"
mkfifo -m 0600 "$TMP/fifo.env"
refuse "-f fifo" "env-filter: fatal: $TMP/fifo.env: not a regular file" -f "$TMP/fifo.env"

# ownership: the file must be the caller's own
chmod 0711 "$TMP"
f=$(F owned.env 'A=1\n')
if is_root; then
	chown nobody "$f"
	refuse "-f owned by someone else" "env-filter: fatal: $f: owned by uid $(id -u nobody), not by you (uid 0)" -f "$f"
	chown root "$f"
	chmod 0644 "$f"
	rm -f "$TMP/ran"
	run as_nobody "$EF" -f "$f" -- /usr/bin/touch "$TMP/ran"
	is "$rc:$err" "125:env-filter: fatal: $f: owned by uid 0, not by you (uid $(id -u nobody))" "as nobody: a root-owned readable file refused"
	chmod 0600 "$f"
	run as_nobody "$EF" -f "$f" -- /bin/true
	is "$rc:$err" "125:env-filter: fatal: unable to open $f: Permission denied" "as nobody: an unreadable file"
	cp "$TMP/real.env" "$TMP/nob.env" 2>/dev/null || printf 'A=1\n' >"$TMP/nob.env"
	chown nobody "$TMP/nob.env"; chmod 0600 "$TMP/nob.env"
	run as_nobody "$EF" -f "$TMP/nob.env" --print0
	is "$rc:$out" "0:A=1" "as nobody: its own 0600 file is read"
else
	diag "not root: ownership checks run as $(id -un) only"
fi

# descriptors
refuse "-F not a number" "env-filter: fatal: -F x3: not a descriptor number" -F x3
refuse "-F negative" "env-filter: fatal: -F -1: not a descriptor number" -F -1
refuse "-F closed" "env-filter: fatal: unable to read fd 9: Bad file descriptor" -F 9
rm -f "$TMP/ran"
run env -i "$EF" -F 4 -- /usr/bin/touch "$TMP/ran" 4>"$TMP/wonly"
is "$rc:$err" "125:env-filter: fatal: unable to read fd 4: Bad file descriptor" "-F write-only descriptor"
run env -i "$EF" -F 4 -- /usr/bin/touch "$TMP/ran" 4<"$TMP/dir.env"
is "$rc:$err" "125:env-filter: fatal: unable to read fd 4: Is a directory" "-F a directory"
[ ! -e "$TMP/ran" ]; status_ok $? "-F errors: nothing exec'd"
printf 'A=1\nbad line\n' >"$TMP/fd.env"
run env -i "$EF" -F 5 -- /usr/bin/touch "$TMP/ran" 5<"$TMP/fd.env"
is "$rc:$err" "125:env-filter: fatal: fd 5:2: line without '='" "-F line without '=': fd and line"
printf 'A=\0\n' >"$TMP/fd.env"
run env -i "$EF" -F 5 -- /usr/bin/touch "$TMP/ran" 5<"$TMP/fd.env"
is "$rc:$err" "125:env-filter: fatal: fd 5:1: NUL byte in line" "-F NUL byte"
run env -i "$EF" -F 5 -- /usr/bin/touch "$TMP/ran" 5<"$TMP/many.env"
is "$rc:$err" "125:env-filter: fatal: fd 5:1025: more than 1024 entries" "-F too many entries"
run env -i "$EF" -F 5 -- /usr/bin/touch "$TMP/ran" 5<"$TMP/huge.env"
is "$rc:$err" "125:env-filter: fatal: fd 5: more than 1048576 bytes" "-F over 1 MiB"
[ ! -e "$TMP/ran" ]; status_ok $? "-F line errors: nothing exec'd"

# usage
refuse "unknown option" "env-filter: usage: unknown option -x
env-filter: hint: env-filter --help" -x
refuse "unknown long option" "env-filter: usage: unknown option --bogus
env-filter: hint: env-filter --help" --bogus
refuse "both output modes" "env-filter: fatal: --explain and --print0 exclude each other" --explain --print0
run env -i "$EF" -k
is "$rc:$err" "125:env-filter: usage: option -k needs an argument
env-filter: hint: env-filter --help" "-k without its argument"
run env -i "$EF" --file
is "$rc:$err" "125:env-filter: usage: option --file needs an argument
env-filter: hint: env-filter --help" "--file without its argument"
run env -i "$EF" -s A=1
is "$rc:$err" "125:env-filter: usage: env-filter [--baseline] [-k NAME] [-s NAME=VALUE] [-f FILE] [-F FD] [-p NAME=VALUE] [--proxy PORT] [--explain | --print0] [--] PROG [ARG...]" "no PROG"

done_testing
