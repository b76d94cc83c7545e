#!/bin/sh
# probe: --help, --version, the man page, usage errors (exit 2), -q.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/probe
MAN=$CORRAL_TOP/probe/probe.1
VERSION=$(sed -n 's/.*CORRAL_VERSION "\(.*\)"/\1/p' "$CORRAL_TOP/lib/version.h")
HINT="probe: hint: probe --help"
mkdir "$TMP/w"
export TMPDIR="$TMP/w"

run "$P" --help
is "$rc:$err" "0:" "--help exits 0, nothing on stderr"
is "$(printf '%s\n' "$out" | sed -n 1p)" "usage: probe [-q | -v | -j] [-r TIER]" "--help starts with the synopsis"
for o in -q,\ --quiet -v,\ --verbose -j,\ --json "-r, --require TIER" -h,\ --help --version; do
	like "$out" "^  *$o " "--help lists $o"
done
run "$P" -h
is "$rc" 0 "-h exits 0"
run "$P" --version
is "$rc:$out:$err" "0:probe $VERSION:" "--version prints probe VERSION"
is "$(ls -A "$TMP/w")" "" "--help and --version run no check"

# the man page: lint-clean, its SYNOPSIS is --help's, every tier and check in it
run mandoc -Tlint -Wwarning "$MAN"
is "$rc:$out$err" "0:" "probe.1 is clean under mandoc -Tlint -Wwarning"
page=$(mandoc -Tascii "$MAN" | sed "s/.\x08//g" | expand)	# plain text without col(1)
syn=$(printf '%s\n' "$page" | sed -n '/^SYNOPSIS/{n;p;}' | sed 's/^ *//')
is "usage: $syn" "$("$P" --help | sed -n 1p)" "man page SYNOPSIS matches --help"
like "$(printf '%s\n' "$page" | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p')" "probe -h \\| --version" "SYNOPSIS has -h | --version"
for t in none fs fs+net full; do
	like "$(printf '%s\n' "$page" | sed -n '/^TIERS/,/^CHECKS/p')" "^     $(printf '%s' "$t" | sed 's/+/\\+/')( |\$)" "man page defines tier $t"
done
for c in fs privs fds proc-environ tcp signal abstract-unix unix-socket tiocsti udp; do
	like "$(printf '%s\n' "$page" | sed -n '/^CHECKS/,/^ENVIRONMENT/p')" "^     $c( |$)" "man page documents check $c"
done
like "$page" "^EXIT STATUS" "man page has EXIT STATUS"

# usage errors: 2, one line, a hint, no check run
for args in "--bogus" "-x" "extra" "-r" "-r none" "-r FULL" "--require=fast" "-v -j" "-q -v" "-q -j" "-- extra"; do
	run "$P" $args
	is "$rc:$out" "2:" "'$args': exit 2, nothing on stdout"
	like "$(printf '%s\n' "$err" | sed -n 1p)" "^probe: usage: " "'$args': a usage line"
	is "$(printf '%s\n' "$err" | sed -n 2p)" "$HINT" "'$args': a hint"
	is "$(printf '%s\n' "$err" | wc -l)" 2 "'$args': two lines"
done
run "$P" -r none
is "$err" "probe: usage: unknown tier 'none' (fs, fs+net or full)
$HINT" "-r none: names the tier and the choices"
run "$P" -r
is "$err" "probe: usage: option -r needs an argument
$HINT" "-r without TIER"
run "$P" --require
is "$err" "probe: usage: option --require needs an argument
$HINT" "--require without TIER"
run "$P" -x
is "$err" "probe: usage: unknown option -x
$HINT" "-x named"
run "$P" --bogus
is "$err" "probe: usage: unknown option --bogus
$HINT" "--bogus named"
run "$P" --verbose=3
is "$err" "probe: usage: option --verbose takes no argument
$HINT" "--verbose=3 named"
run "$P" extra
like "$err" "^probe: usage: unexpected operand 'extra'; " "operand named"
is "$(ls -A "$TMP/w")" "" "usage errors run no check"

# -q: nothing on stdout
run "$P" -q
is "$rc:$out:$err" "0::" "-q: exit 0, nothing printed"
run "$P" --quiet --require full
is "$rc:$out:$err" "0::" "--quiet --require full: exit 0, nothing printed"
run "$P" --require=fs+net
is "$rc:$out" "0:platform=linux tier=full" "--require=fs+net form"

# TMPDIR through a symbolic link, or with a trailing slash: the fixtures
# are made in its real path (a child opens its path rules as named, with
# no link on the way), the fs check is proven, nothing is left behind.
# Control: TMPDIR as it is.
ln -s w "$TMP/wl"
real=$(realpath "$TMP/w")
for d in "$TMP/w" "$TMP/wl" "$TMP/wl/" "$TMP/w/"; do
	run strace -f -qq -e trace=mkdir -o "$TMP/st" env $untraced TMPDIR="$d" "$P" -v --require full
	is "$rc" 0 "TMPDIR=$d: tier full"
	like "$out" "check fs: proven" "TMPDIR=$d: fs proven"
	like "$(sed -n 1p "$TMP/st")" "mkdir\\(\"$real/corral-probe\\.[0-9a-f]{16}\", 0700\\) = 0" "TMPDIR=$d: made in $real"
	is "$(ls -A "$TMP/w")" "" "TMPDIR=$d: nothing left"
done
done_testing
