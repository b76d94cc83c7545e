#!/bin/sh
# env-filter: what the exec'd program really gets, layer by layer.
. "$CORRAL_TOP/tests/lib/tap.sh"
EF=$CORRAL_BIN/env-filter
D=$T/helpers/dumpenv
nl='
'

run env -i FOO=1 "$EF" -- "$D"
is "$rc:$out:$err" "0::" "no layers: an empty environment"

run env -i PATH=/usr/bin:/bin HOME=/home/u USER=u LOGNAME=u SHELL=/bin/sh TMPDIR=/tmp/u \
	LANG=C.UTF-8 LC_ALL=C LC_CTYPE=C TZ=UTC TERM=dumb SSL_CERT_FILE=/c/f SSL_CERT_DIR=/c \
	NODE_EXTRA_CA_CERTS=/c/n REQUESTS_CA_BUNDLE=/c/r CURL_CA_BUNDLE=/c/u \
	FOO=1 EDITOR=vi http_proxy=http://p NODE_OPTIONS=--require=x SSH_AUTH_SOCK=/s \
	"$EF" --baseline -- "$D"
want="PATH=/usr/bin:/bin
HOME=/home/u
USER=u
LOGNAME=u
SHELL=/bin/sh
TMPDIR=/tmp/u
LANG=C.UTF-8
LC_ALL=C
LC_CTYPE=C
TZ=UTC
TERM=dumb
SSL_CERT_FILE=/c/f
SSL_CERT_DIR=/c
NODE_EXTRA_CA_CERTS=/c/n
REQUESTS_CA_BUNDLE=/c/r
CURL_CA_BUNDLE=/c/u"
is "$rc:$out:$err" "0:$want:" "--baseline: exactly its names, in its order; nothing else"

run env -i HOME=/h "$EF" --baseline -- "$D"
is "$out" "HOME=/h" "--baseline keeps only what the caller has"

run env -i FOO=foo BAR=bar "$EF" -k FOO -k ABSENT -- "$D"
is "$rc:$out" "0:FOO=foo" "-k keeps one name; an unset one adds nothing"

run env -i FOO=caller "$EF" -s FOO=set -k FOO -- "$D"
is "$out" "FOO=caller" "-k after -s: the later layer wins"
run env -i FOO=caller "$EF" -k FOO -s FOO=set -- "$D"
is "$out" "FOO=set" "-s after -k: the later layer wins"
run env -i "$EF" -s FOO=set -k FOO -- "$D"
is "$out" "FOO=set" "-k of an unset name leaves the earlier value"

run env -i "$EF" -s A=1 -s B=2 -s A=3 -- "$D"
is "$out" "A=3${nl}B=2" "a replaced variable keeps its first position"

run env -i "$EF" -p A=pin -s A=1 -s B=x -- "$D"
is "$out" "A=pin${nl}B=x" "-p wins over a later -s"
run env -i A=caller "$EF" -s A=1 -p A=pin -k A -- "$D"
is "$out" "A=pin" "-p wins over a later -k"
run env -i HOME=/real "$EF" -p HOME=/pinned --baseline -- "$D"
is "$out" "HOME=/pinned" "-p wins over a later --baseline"

run env -i "$EF" -s 'V=a b =c "d"' -s E= -- "$D"
is "$out" "V=a b =c \"d\"${nl}E=" "values are literal; empty values pass"

umask 077
printf '# comment\n\nA=file\nB=two words\nA=again\nQ="quoted"\n' >"$TMP/a.env"
run env -i "$EF" -s A=set -f "$TMP/a.env" -- "$D"
is "$out" "A=again${nl}B=two words${nl}Q=\"quoted\"" "-f: lines, comments, later line wins, literal values"
run env -i "$EF" -f "$TMP/a.env" -s A=set -- "$D"
is "$(echo "$out" | head -n1)" "A=set" "-s after -f wins"
printf 'N=1' >"$TMP/nonl.env"
run env -i "$EF" -f "$TMP/nonl.env" -- "$D"
is "$out" "N=1" "-f: a last line without a newline"
: >"$TMP/empty.env"
run env -i "$EF" -f "$TMP/empty.env" -- "$D"
is "$rc:$out" "0:" "-f: an empty file adds nothing"

run env -i "$EF" -F 3 -s Z=z -- "$D" 3<"$TMP/a.env"
is "$out" "A=again${nl}B=two words${nl}Q=\"quoted\"${nl}Z=z" "-F: lines from a descriptor"
run sh -c 'printf "P=piped\n" | "$1" -F 0 -- "$2"' sh "$EF" "$D"
is "$out" "P=piped" "-F 0: from a pipe"
run sh -c 'printf "P=piped\n" | "$1" -F 0 -- /bin/sh -c "readlink /proc/self/fd/0"' sh "$EF"
is "$out" "/dev/null" "-F 0: stdin is /dev/null afterwards"
run env -i "$EF" -F 7 -- /bin/sh -c 'ls /proc/self/fd' 7<"$TMP/a.env"
unlike "$out" '^7$' "-F: the descriptor is closed before exec"
run env -i "$EF" -- /bin/sh -c 'ls /proc/self/fd' 7<"$TMP/a.env"
like "$out" '^7$' "(without -F the same check sees it)"

# PROG is looked up in the new PATH, not the caller's
mkdir "$TMP/bin" "$TMP/bin2"
cp "$D" "$TMP/bin/ef-probe-prog"
run env -i PATH=/usr/bin:/bin "$EF" -s PATH="$TMP/bin" -- ef-probe-prog
is "$rc:$out" "0:PATH=$TMP/bin" "PROG found in the new environment's PATH"
run env -i PATH="$TMP/bin" "$EF" -s PATH=/usr/bin:/bin -- ef-probe-prog
is "$rc" 127 "not found in the new PATH although in the caller's: 127"
is "$err" "env-filter: fatal: unable to run ef-probe-prog: No such file or directory
env-filter: hint: PROG is looked up in the new environment's PATH" "the 127 message"
run env -i PATH="$TMP/bin" "$EF" -- ef-probe-prog
is "$rc" 127 "no PATH in the new environment: /usr/bin:/bin only"
run env -i "$EF" -- "$TMP/nonexistent/prog"
is "$rc:$err" "127:env-filter: fatal: unable to run $TMP/nonexistent/prog: No such file or directory" "absolute path not found: 127"
printf '#!/bin/sh\n' >"$TMP/bin2/noexec"
chmod 0644 "$TMP/bin2/noexec"
run env -i "$EF" -s PATH="$TMP/bin2" -- noexec
is "$rc:$err" "126:env-filter: fatal: unable to run noexec: Permission denied" "found but not executable: 126"
run env -i "$EF" -- "$TMP/bin2"
is "$rc" 126 "a directory: 126"

run "$EF" -s A=1 -- /bin/sh -c 'exit 42'
is "$rc" 42 "PROG's exit status passes through"

# options after PROG belong to PROG
env -i "$EF" -s A=1 "$D" -0 -w </dev/null >"$TMP/o0"
is "$(od -An -c "$TMP/o0" | tr -s ' ')" " A = 1 \\0" "parsing stops at PROG: -0 reached dumpenv"
run env -i "$EF" -s A=1 -- "$D" -s B=2
is "$rc:$err" "2:usage: dumpenv [-0] [-w]" "arguments after -- go to PROG untouched"

# --explain: names and layers, never values
run env -i HOME=/h SECRETVAL=hunter2-value "$EF" --baseline -k SECRETVAL -s S=setvalue \
	-f "$TMP/a.env" -F 3 -p P=pinvalue --explain 3<"$TMP/nonl.env"
want="HOME	baseline
SECRETVAL	keep
S	set
A	file $TMP/a.env:5
B	file $TMP/a.env:4
Q	file $TMP/a.env:6
N	fd 3:1
P	pin"
is "$rc:$out" "0:$want" "--explain: each name and its layer"
unlike "$out" "hunter2|setvalue|pinvalue|again|two words|quoted|=" "--explain prints no value"
long=$(head -c 5000 /dev/zero | tr '\0' N)
run env -i "$EF" -s "$long=secretvalue" --explain
is "$rc:${#out}" "0:260" "--explain of a 5000-byte name: 256 bytes of it and its layer"
unlike "$out" "secretvalue|=" "and never its value"
run env -i "$EF" -s A=1 --explain -- /bin/false
is "$rc:$out" "0:A	set" "--explain does not exec PROG"

run env -i "$EF" -s A=1 -s 'B=x y' --print0
printf 'A=1\0B=x y\0' >"$TMP/want0"
env -i "$EF" -s A=1 -s 'B=x y' --print0 >"$TMP/got0"
cmp -s "$TMP/want0" "$TMP/got0"
status_ok $? "--print0: NAME=VALUE, NUL-terminated"

run "$EF" --help
is "$rc" 0 "--help exits 0"
like "$out" "^usage: env-filter \[--baseline\] \[-k NAME\] \[-s NAME=VALUE\] \[-f FILE\] \[-F FD\] \[-p NAME=VALUE\] \[--proxy PORT\] \[--explain \| --print0\] \[--\] PROG \[ARG\.\.\.\]" "--help starts with the synopsis"
run "$EF" -h
is "$rc" 0 "-h exits 0"
run "$EF" --version
is "$rc:$out" "0:env-filter 0.1.0" "--version"

done_testing
